// Templates in the console: the list with how many transactions run on each version, the import (its refusals
// carry each problem's line and the CLI's code; a change to a used version makes a new one), the diff of two
// versions in words, and archiving, which refuses new transactions (console and GraphQL) and stops a running
// closing with its rows left listed. Every request comes "through a TLS-terminating proxy" (x-forwarded-proto).
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runDueClosings } from '../../../src/transactions/console/closings/closing-runs.ts';
import type { ClosingDetail } from '../../../src/transactions/console/contract.ts';
import type {
  TemplateChange,
  TemplateShape,
  TemplateSummary,
} from '../../../src/transactions/console/templates/templates-contract.ts';
import {
  api,
  consoleApiWorld,
  organizationWith,
  signedIn as signedInAs,
} from '../../support/data/console-api.ts';
import { createPerson, type Browser, type DashboardPerson } from '../../support/data/dashboard.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { graphql, transactionInput } from '../../support/data/transactions.ts';
import { multipartBody } from '../../support/data/uploads.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);
const signedIn = (person: DashboardPerson) => signedInAs(world, person);

const EXAMPLE = await readFile(
  new URL('../../../templates/examples/subscription.yaml', import.meta.url),
  'utf8',
);

/** An organization with the example template and one transaction on it, and a person of each role. */
async function organization() {
  const story = await organizationStory(world.db, world.files, { transactions: ['created'] });
  const tenant = { kind: 'organization' as const, id: story.organizationId };
  const page: Partial<Record<'admin' | 'operator' | 'viewer', Browser>> = {};
  for (const role of ['admin', 'operator', 'viewer'] as const) {
    page[role] = await signedIn(await createPerson(world.db, { tenant, role }));
  }
  const { admin, operator, viewer } = page;
  if (!admin || !operator || !viewer) throw new Error('the people were not made');
  return { story, admin, operator, viewer };
}

/** A multipart body of the template (part `file`) and PDFs beside it (parts `attachment`). */
function importBody(
  source: string,
  filename = 'subscription.yaml',
  attachments: { name: string; content: Buffer }[] = [],
) {
  const boundary = `----portico${randomBytes(8).toString('hex')}`;
  const part = (name: string, file: string, type: string, content: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      content,
      Buffer.from('\r\n'),
    ]);
  const payload = Buffer.concat([
    part('file', filename, 'application/yaml', Buffer.from(source, 'utf8')),
    ...attachments.map((each) => part('attachment', each.name, 'application/pdf', each.content)),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function importTemplate(page: Browser, source: string, filename?: string) {
  const { payload, headers } = importBody(source, filename);
  return page.request('POST', api('/templates'), payload, { headers });
}

const listOf = async (page: Browser) =>
  ((await page.get(api('/templates'))).body as { templates: TemplateSummary[] }).templates;

/** The example, changed: a state retitled, the amount's minimum raised and an event added. */
const CHANGED = EXAMPLE.replace('    - key: in_review\n', '    - key: in_review\n      title: Under review\n')
  .replace('            minimum: 1000\n', '            minimum: 5000\n')
  .replace(
    '    - key: approve\n',
    '    - key: reopen\n      title: Reopen\n      from: [in_review]\n      to: in_progress\n    - key: approve\n',
  );

describe('templates in the console', () => {
  it('lists each template with its versions and how many transactions run on each', async () => {
    const { viewer } = await organization();
    const [template] = await listOf(viewer);
    expect(template).toMatchObject({
      key: 'subscription',
      archived: null,
      versions: [{ version: 1, transactions: 1 }],
    });
    expect(template?.name).toBeTruthy();
  });

  it('refuses an import with mistakes with each problem on its line and the code the CLI gives', async () => {
    const { admin } = await organization();
    const broken = EXAMPLE.replace('      to: changes_requested\n', '      to: changes_requestd\n');
    const refused = await importTemplate(admin, broken);
    expect(refused.status).toBe(400);
    const error = (
      refused.body as {
        error: {
          code: string;
          message: string;
          details: { problems: { path: string; line: number; message: string }[] };
        };
      }
    ).error;
    expect(error.code).toBe('BAD_USER_INPUT');
    const line = broken.split('\n').findIndex((text) => text.includes('changes_requestd')) + 1;
    expect(error.details.problems).toContainEqual(
      expect.objectContaining({ path: 'workflow.events[2].to', line }),
    );
    // The message is the CLI's: file:line: path: message.
    expect(error.message).toContain(`subscription.yaml:${String(line)}: workflow.events[2].to`);

    const withPdf = EXAMPLE.replace(
      '        agreement:\n          text: |\n',
      '        agreement:\n          pdf: fund.pdf\n          text: |\n',
    );
    const agreement = await importTemplate(admin, withPdf);
    const agreementError = (
      agreement.body as { error: { code: string; details: { problems: { line?: number }[] } } }
    ).error;
    expect([agreement.status, agreementError.code]).toEqual([400, 'AGREEMENT_INVALID']);
    const agreementLine = withPdf.split('\n').findIndex((text) => text.includes('pdf: fund.pdf')) + 1;
    expect(agreementError.details.problems.some((problem) => (problem.line ?? 0) >= agreementLine - 1)).toBe(
      true,
    );

    const tooLarge = await importTemplate(admin, `${EXAMPLE}\n#${'x'.repeat(1024 * 1024)}\n`);
    expect([tooLarge.status, (tooLarge.body as { error: { code: string } }).error.code]).toEqual([
      413,
      'FILE_TOO_LARGE',
    ]);
    // Nothing of the refusals was stored.
    expect((await listOf(admin)).map((template) => template.versions.length)).toEqual([1]);
  });

  it('makes a new version when transactions use the previous, updates an unused one in place, and says so', async () => {
    const { admin } = await organization();
    const outcome = async (source: string) =>
      ((await importTemplate(admin, source)).body as { template: { version: number; outcome: string } })
        .template;
    expect(await outcome(CHANGED)).toMatchObject({ version: 2, outcome: 'versioned' });
    expect(await outcome(CHANGED)).toMatchObject({ version: 2, outcome: 'unchanged' });
    expect(await outcome(CHANGED.replace('title: Reopen', 'title: Open again'))).toMatchObject({
      version: 2,
      outcome: 'updated',
    });
    expect(await outcome(EXAMPLE.replace('key: subscription\n', 'key: side_letter\n'))).toMatchObject({
      version: 1,
      outcome: 'created',
    });
    const list = await listOf(admin);
    expect(list.find((template) => template.key === 'subscription')?.versions).toMatchObject([
      { version: 2, transactions: 0 },
      { version: 1, transactions: 1 },
    ]);
  });

  it('shows a version by its titles and the changes between two versions in words', async () => {
    const { admin, viewer } = await organization();
    expect((await importTemplate(admin, CHANGED)).status).toBe(200);
    const read = await viewer.get(api('/templates/subscription'));
    expect(read.status).toBe(200);
    const { shape } = read.body as { shape: TemplateShape };
    expect(shape.version).toBe(2);
    expect(shape.workflow.states).toContainEqual({ key: 'in_review', title: 'Under review', final: false });
    const amount = shape.processes[0]?.items
      .flatMap((item) => item.fields)
      .find((field) => field.answer === 'subscription_amount.amount');
    expect(amount).toMatchObject({ title: 'Amount', prefill: true, commitment: true, required: true });

    const diff = await viewer.get(api('/templates/subscription/diff?from=1&to=2'));
    expect(diff.status).toBe(200);
    const { changes } = diff.body as { changes: TemplateChange[] };
    expect(changes).toContainEqual({
      kind: 'changed',
      part: 'state',
      name: 'Under review',
      what: 'title',
      before: 'in review',
      after: 'Under review',
    });
    expect(changes).toContainEqual({
      kind: 'changed',
      part: 'field',
      name: 'Amount, in Subscription amount',
      what: 'smallest amount',
      before: '1000',
      after: '5000',
    });
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'added', part: 'event', name: 'Reopen' }));
    // A state retitled is one change: the events that enter it did not change.
    expect(changes.filter((change) => change.part === 'event' && change.kind === 'changed')).toEqual([]);
    const back = (await viewer.get(api('/templates/subscription/diff?from=2&to=1'))).body as {
      changes: TemplateChange[];
    };
    expect(back.changes).toContainEqual(
      expect.objectContaining({ kind: 'removed', part: 'event', name: 'Reopen' }),
    );
    const missing = await viewer.get(api('/templates/subscription/diff?from=1&to=7'));
    expect([missing.status, (missing.body as { error: { code: string } }).error.code]).toEqual([
      404,
      'NOT_FOUND',
    ]);
  });

  it('archives a template: no new transaction from the console or GraphQL, a running closing stops with its rows listed, and a draft one does not run', async () => {
    const { story, admin, operator } = await organization();
    /** A closing of the template with a list of three investors, ready to run. */
    const listedClosing = async (name: string) => {
      const closing = await operator.request('POST', api('/closings'), {
        name,
        templateId: story.templateId,
        senderEntityId: story.senderEntityId,
      });
      const id = (closing.body as { closing: { id: string } }).closing.id;
      const csv = [
        'Name,E-mail,Entity type,Amount',
        ...[1, 2, 3].map(
          (n) => `Investor ${String(n)},i${String(n)}-${randomUUID()}@example.com,Individual,"20,000"`,
        ),
      ].join('\n');
      const { payload, headers } = multipartBody({
        filename: 'investors.csv',
        content: Buffer.from(csv),
        contentType: 'text/csv',
      });
      expect((await operator.request('POST', api(`/closings/${id}/list`), payload, { headers })).status).toBe(
        200,
      );
      return id;
    };
    const closingId = await listedClosing('Fund I, first close');
    const draftId = await listedClosing('Fund I, second close');
    expect((await operator.request('POST', api(`/closings/${closingId}/run`))).status).toBe(200);

    const archived = await admin.request('PUT', api('/templates/subscription/archived'), { archived: true });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({
      stoppedClosings: 1,
      archived: { by: { name: expect.any(String) } },
    });
    expect(await runDueClosings(world.db)).toMatchObject({ created: 0 });
    const detail = ((await operator.get(api(`/closings/${closingId}`))).body as { closing: ClosingDetail })
      .closing;
    expect(detail.status).toBe('stopped');
    expect(detail.stopReason).toMatch(/archived/);
    expect(detail.rows.map((row) => [row.status, row.failure])).toEqual(
      Array.from({ length: 3 }, () => ['failed', detail.stopReason]),
    );
    // The draft says so, and its run is refused: it would create nothing.
    const draft = ((await operator.get(api(`/closings/${draftId}`))).body as { closing: ClosingDetail })
      .closing;
    expect(draft).toMatchObject({ status: 'draft', template: { archived: true } });
    const refusedRun = await operator.request('POST', api(`/closings/${draftId}/run`));
    expect([refusedRun.status, (refusedRun.body as { error: { code: string } }).error.code]).toEqual([
      409,
      'TEMPLATE_ARCHIVED',
    ]);

    const started = await operator.request('POST', api('/transactions'), {
      templateId: story.templateId,
      senderEntityId: story.senderEntityId,
      investor: { name: 'Ada', email: `ada-${randomUUID()}@example.com`, entityType: 'individual' },
      answers: {},
      idempotencyKey: randomUUID(),
    });
    expect([started.status, (started.body as { error: { code: string } }).error.code]).toEqual([
      409,
      'TEMPLATE_ARCHIVED',
    ]);
    const created = await graphql(
      world.app,
      story.apiKey,
      'mutation ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }',
      { input: transactionInput(story) },
    );
    expect(created.body.errors?.[0]?.extensions.code).toBe('TEMPLATE_ARCHIVED');
    expect(created.body.errors?.[0]?.message).toMatch(/archived/);
    // New transaction does not offer it; the transaction already made goes on, still counted.
    const options = (await operator.get(api('/start/options'))).body as { templates: { key: string }[] };
    expect(options.templates.map((template) => template.key)).not.toContain('subscription');
    expect((await listOf(admin))[0]?.versions[0]?.transactions).toBe(1);
    expect((await operator.get(api(`/transactions/${story.transactionId}`))).status).toBe(200);

    const restored = await admin.request('PUT', api('/templates/subscription/archived'), { archived: false });
    expect(restored.body).toMatchObject({ archived: null, stoppedClosings: 0 });
    expect((await operator.request('POST', api(`/closings/${draftId}/run`))).body).toEqual({
      status: 'running',
      rows: 3,
    });
    const again = await graphql(
      world.app,
      story.apiKey,
      'mutation ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }',
      { input: transactionInput(story) },
    );
    expect(again.body.errors).toBeUndefined();
  });

  it('lets only admins import and archive', async () => {
    const { operator, viewer } = await organization();
    for (const page of [operator, viewer]) {
      const imported = await importTemplate(page, EXAMPLE);
      expect([imported.status, (imported.body as { error: { code: string } }).error.code]).toEqual([
        403,
        'FORBIDDEN',
      ]);
      const archived = await page.request('PUT', api('/templates/subscription/archived'), { archived: true });
      expect([archived.status, (archived.body as { error: { code: string } }).error.code]).toEqual([
        403,
        'FORBIDDEN',
      ]);
    }
    expect((await listOf(viewer))[0]?.archived).toBeNull();
  });

  it("never shows or changes another organization's templates", async () => {
    await organization();
    const { people } = await organizationWith(world, ['admin']);
    const other = await signedIn(people.admin as DashboardPerson);
    expect(await listOf(other)).toEqual([]);
    for (const path of ['/templates/subscription', '/templates/subscription/diff?from=1&to=1']) {
      const read = await other.get(api(path));
      expect([read.status, (read.body as { error: { code: string } }).error.code]).toEqual([
        404,
        'NOT_FOUND',
      ]);
    }
    const archived = await other.request('PUT', api('/templates/subscription/archived'), { archived: true });
    expect(archived.status).toBe(404);
  });
});
