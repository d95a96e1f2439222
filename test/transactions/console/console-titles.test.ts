// The console names a workflow's states and events by the titles its template gives them: the panel and its
// refusals, the transaction's page, the work queue's tabs and rows, and the team's activity. Every request comes
// "through a TLS-terminating proxy" (x-forwarded-proto), as the session cookie is Secure.
import { describe, expect, it } from 'vitest';
import type {
  QueueTab,
  QueueRow,
  TeamActivityEntry,
  TransactionDetail,
  WorkflowPanel,
} from '../../../src/transactions/console/contract.ts';
import type { TemplateDefinition } from '../../../src/transactions/templates/schema.ts';
import { api, consoleApiWorld, signedIn } from '../../support/data/console-api.ts';
import { createPerson } from '../../support/data/dashboard.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { multipartBody, samplePdf } from '../../support/data/uploads.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

/** The example template with titles for its review state and two of its events; the rest keep their keys. */
function titled(example: TemplateDefinition): TemplateDefinition {
  const { workflow } = example;
  return {
    ...example,
    workflow: {
      ...workflow,
      states: workflow.states.map((state) =>
        state.key === 'in_review' ? { ...state, title: 'Under review by the fund' } : state,
      ),
      events: workflow.events.map((event) =>
        event.key === 'approve'
          ? { ...event, title: 'Accept the subscription' }
          : event.key === 'submit'
            ? { ...event, title: 'Hand in' }
            : event,
      ),
    },
  };
}

describe("the template's titles in the console", () => {
  it('names states and events by their titles in the panel and its refusals, the transaction, the queue and the team’s activity, and by their keys in words where none is given', async () => {
    const story = await organizationStory(world.db, world.files, {
      transactions: ['sent'],
      template: titled,
    });
    const operator = await createPerson(world.db, {
      tenant: { kind: 'organization', id: story.organizationId },
      role: 'operator',
    });
    const page = await signedIn(world, operator);
    const path = (rest = '') => api(`/transactions/${story.transactionId}${rest}`);

    const { workflow } = (await page.get(path('/workflow'))).body as { workflow: WorkflowPanel };
    const approve = workflow.events.find((event) => event.key === 'approve');
    expect(approve?.reason).toBe('Accept the subscription: only from Under review by the fund');
    const countersign = workflow.events.find((event) => event.key === 'countersign');
    expect(countersign?.reason).toBe('Countersign: only from countersigning');

    const { transaction } = (await page.get(path())).body as { transaction: TransactionDetail };
    expect(transaction.workflowTitles.states).toMatchObject({
      in_review: 'Under review by the fund',
      in_progress: 'in progress',
    });
    expect(transaction.workflowTitles.events).toMatchObject({
      approve: 'Accept the subscription',
      submit: 'Hand in',
      request_changes: 'Request changes',
      void: 'Void',
    });

    // The investor's form came by post: the operator hands it in on their behalf, which the activity tells.
    const { payload, headers } = multipartBody({ filename: 'by-post.pdf', content: await samplePdf() });
    const uploaded = await page.request('POST', path('/paper-forms'), payload, { headers });
    const { paperForm } = uploaded.body as { paperForm: { id: string } };
    const run = await page.request('POST', path('/events'), {
      eventKey: 'submit',
      version: workflow.version,
      onBehalf: { paperFormId: paperForm.id },
    });
    expect(run.status).toBe(200);

    const queue = (await page.get(api('/queue'))).body as { rows: QueueRow[]; tabs: QueueTab[] };
    expect(queue.tabs.find((tab) => tab.state === 'in_review')?.title).toBe('Under review by the fund');
    expect(queue.tabs.find((tab) => tab.state === 'countersigning')?.title).toBe('countersigning');
    expect(queue.rows[0]).toMatchObject({ state: 'in_review', stateTitle: 'Under review by the fund' });

    const { entries } = (await page.get(api('/team/activity'))).body as { entries: TeamActivityEntry[] };
    expect(entries.find((entry) => entry.kind === 'workflow')?.details).toMatchObject({
      titles: { event: 'Hand in', from: 'in progress', to: 'Under review by the fund' },
    });
  });
});
