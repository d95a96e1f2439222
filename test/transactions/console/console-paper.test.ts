// Submitting on an investor's behalf from the console: staff upload the paper form the investor signed, then run
// the investor's event naming it. Every request comes "through a TLS-terminating proxy" (x-forwarded-proto), as the
// session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  TimelineEntry,
  TransactionDetail,
  WorkflowPanel,
} from '../../../src/transactions/console/contract.ts';
import {
  consoleApiWorld,
  signedIn as signedInAs,
  transactionWithTeam,
} from '../../support/data/console-api.ts';
import type { Browser, DashboardPerson } from '../../support/data/dashboard.ts';
import { multipartBody, samplePdf } from '../../support/data/uploads.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

/** A sent transaction whose investor filled in nothing, and a person of each role of its organization. */
const sentWithTeam = () => transactionWithTeam(world, 'sent');

const signedIn = (person: DashboardPerson | undefined) => signedInAs(world, person);

/** Uploads `content` as a paper form of the transaction at `path`. */
function uploadPaperForm(page: Browser, path: string, content: Buffer, filename = 'signed-by-post.pdf') {
  const { payload, headers } = multipartBody({ filename, content });
  return page.request('POST', `${path}/paper-forms`, payload, { headers });
}

/** The workflow panel's submit, as `page`'s person sees it. */
async function submitOf(page: Browser, path: string) {
  const { workflow } = (await page.get(`${path}/workflow`)).body as { workflow: WorkflowPanel };
  return { version: workflow.version, submit: workflow.events.find((event) => event.key === 'submit') };
}

describe("submitting on the investor's behalf", () => {
  it('runs the investor’s submit with the paper form an operator uploaded, which completes their process and shows in the files and the timeline', async () => {
    const { people, path, story } = await sentWithTeam();
    const operator = await signedIn(people.operator);
    const reviewer = await signedIn(people.reviewer);

    // The panel offers it to those who may submit, and only while the online form lacks something.
    const before = await submitOf(operator, path());
    expect(before.submit).toMatchObject({ allowed: false, mayTrigger: true, onBehalf: true });
    expect((await submitOf(reviewer, path())).submit).toMatchObject({ mayTrigger: false, onBehalf: false });

    const uploaded = await uploadPaperForm(operator, path(), await samplePdf('Subscription, signed by post'));
    expect(uploaded.status).toBe(201);
    const { paperForm } = uploaded.body as { paperForm: { id: string; name: string; byteSize: number } };
    expect(paperForm).toMatchObject({ name: 'signed-by-post.pdf', byteSize: expect.any(Number) });

    // Without the form, the submit is still refused for what is missing; with it, it runs.
    const refused = await operator.request('POST', path('/events'), {
      eventKey: 'submit',
      version: before.version,
    });
    expect(refused.body).toMatchObject({ error: { code: 'REVISION_INCOMPLETE' } });
    const run = await operator.request('POST', path('/events'), {
      eventKey: 'submit',
      version: before.version,
      onBehalf: { paperFormId: paperForm.id },
    });
    expect(run.body).toMatchObject({ outcome: 'done', targetStateKey: 'in_review' });

    // The revision is submitted on paper, and the process it belongs to is complete.
    const [revision] = await world.db.query<{ paper: string | null; committed: boolean; complete: boolean }>(
      `select r.paper_file_id as paper, r.committed_at is not null as committed, p.completed_at is not null as complete
       from transaction_process_revisions r join transaction_processes p on p.id = r.transaction_process_id
       where p.transaction_id = $1 order by r.number desc limit 1`,
      [story.transactionId],
    );
    expect(revision).toEqual({ paper: paperForm.id, committed: true, complete: true });

    // The form is among the files, as what it is, and downloads.
    const { transaction } = (await reviewer.get(path())).body as { transaction: TransactionDetail };
    const file = transaction.files.find((each) => each.id === paperForm.id);
    expect(file).toMatchObject({ kind: 'paper', name: 'signed-by-post.pdf' });
    // Its agreement is signed on paper: the page offers no signature for it.
    expect(transaction.documents).toEqual([
      expect.objectContaining({ key: 'subscription_agreement', onPaper: true }),
    ]);
    const download = await world.app.inject({ method: 'GET', url: file?.downloadPath ?? '' });
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    // The timeline says who submitted it, on whose behalf, with which form.
    const { entries } = (await reviewer.get(path('/timeline'))).body as { entries: TimelineEntry[] };
    const submitted = entries.find((entry) => entry.kind === 'workflow' && entry.action === 'submit');
    expect(submitted).toMatchObject({
      actor: { type: 'user' },
      details: {
        onBehalf: true,
        paperForm: { name: 'signed-by-post.pdf', downloadPath: expect.any(String) },
      },
    });
    expect(submitted?.actor.label).toContain(people.operator?.name ?? 'no operator');
  });

  it("refuses what is not a PDF, a reviewer's upload, a form of another transaction, and an event that is not the investor's", async () => {
    const { people, path } = await sentWithTeam();
    const other = await sentWithTeam();
    const operator = await signedIn(people.operator);

    const text = await uploadPaperForm(operator, path(), Buffer.from('not a pdf at all'), 'form.pdf');
    expect(text).toMatchObject({ status: 415, body: { error: { code: 'FILE_TYPE_NOT_ALLOWED' } } });
    const reviewer = await signedIn(people.reviewer);
    const forbidden = await uploadPaperForm(reviewer, path(), await samplePdf());
    expect(forbidden).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    // Another organization's transaction reads as one that does not exist.
    const elsewhere = await uploadPaperForm(operator, other.path(), await samplePdf());
    expect(elsewhere).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });

    const theirs = await uploadPaperForm(
      await signedIn(other.people.operator),
      other.path(),
      await samplePdf(),
    );
    const { paperForm } = theirs.body as { paperForm: { id: string } };
    const { version } = await submitOf(operator, path());
    for (const paperFormId of [paperForm.id, randomUUID()]) {
      const run = await operator.request('POST', path('/events'), {
        eventKey: 'submit',
        version,
        onBehalf: { paperFormId },
      });
      expect(run).toMatchObject({
        status: 404,
        body: { error: { code: 'NOT_FOUND', details: { field: 'onBehalf.paperFormId' } } },
      });
    }
    const mine = await uploadPaperForm(operator, path(), await samplePdf());
    const voided = await operator.request('POST', path('/events'), {
      eventKey: 'void',
      version,
      message: 'Withdrawn',
      onBehalf: { paperFormId: (mine.body as { paperForm: { id: string } }).paperForm.id },
    });
    expect(voided).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_USER_INPUT', details: { field: 'onBehalf' } } },
    });
  });
});
