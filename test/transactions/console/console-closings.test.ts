// Closings in the console: a draft made, its list uploaded and checked row by row, rows fixed and dropped, and the
// run, which creates each ready row's transaction once however many runners go at it. Every request comes
// "through a TLS-terminating proxy" (x-forwarded-proto), as the session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { ClosingDetail, ClosingRow } from '../../../src/transactions/console/contract.ts';
import { runDueClosings } from '../../../src/transactions/console/closings/closing-runs.ts';
import { api, consoleApiWorld, signedIn as signedInAs } from '../../support/data/console-api.ts';
import { createPerson, type Browser, type DashboardPerson } from '../../support/data/dashboard.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { multipartBody } from '../../support/data/uploads.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

const signedIn = (person: DashboardPerson) => signedInAs(world, person);

/** An organization whose template lets the sender fill in the amount, with an operator and a viewer. */
async function organization() {
  const story = await organizationStory(world.db, world.files, { transactions: [] });
  const tenant = { kind: 'organization' as const, id: story.organizationId };
  const operator = await createPerson(world.db, { tenant, role: 'operator' });
  const viewer = await createPerson(world.db, { tenant, role: 'viewer' });
  return { story, operator: await signedIn(operator), viewer: await signedIn(viewer) };
}

/** A CSV of `count` investors, with `bad` rows put in place of some (by row number, the header being 1). */
function investorsCsv(count: number, bad: Record<number, string> = {}): string {
  const rows = Array.from({ length: count }, (_, index) => {
    const row = index + 2;
    return (
      bad[row] ??
      `Investor ${String(row)},investor-${String(row)}-${randomUUID()}@example.com,Individual,"${String(10 + row)},000"`
    );
  });
  return ['Name,E-mail,Entity type,Amount', ...rows].join('\n');
}

/** Makes a draft closing of the story's template and sender. */
async function draftOf(page: Browser, story: { templateId: string; senderEntityId: string }) {
  const made = await page.request('POST', api('/closings'), {
    name: 'Fund I, first close',
    templateId: story.templateId,
    senderEntityId: story.senderEntityId,
    linkValidDays: 30,
    note: 'Welcome to Fund I.',
  });
  expect(made.status).toBe(201);
  return (made.body as { closing: { id: string } }).closing.id;
}

/** Uploads `content` as the closing's list. */
function uploadList(page: Browser, closingId: string, content: Buffer | string, filename = 'investors.csv') {
  const { payload, headers } = multipartBody({
    filename,
    content: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
    contentType: 'text/csv',
  });
  return page.request('POST', api(`/closings/${closingId}/list`), payload, { headers });
}

const detailOf = async (page: Browser, closingId: string) =>
  ((await page.get(api(`/closings/${closingId}`))).body as { closing: ClosingDetail }).closing;

describe('a closing', () => {
  it('checks its list before anything is created, takes fixes and drops, then creates each ready row once', async () => {
    const { story, operator } = await organization();
    const closingId = await draftOf(operator, story);
    const uploaded = await uploadList(
      operator,
      closingId,
      investorsCsv(30, {
        5: 'Bad Address,not-an-address,Individual,"20,000"',
        9: 'European Amount,euro@example.com,Individual,"1.000,00"',
      }),
    );
    expect(uploaded.status).toBe(200);
    const checked = (uploaded.body as { closing: ClosingDetail }).closing;
    expect(checked).toMatchObject({
      status: 'draft',
      columnProblems: [],
      rowCounts: { ready: 28, problem: 2 },
    });
    const bad = checked.rows.filter((row) => row.status === 'problem');
    expect(bad.map((row) => [row.row, row.problems])).toEqual([
      [5, [{ column: 'E-mail', message: '"not-an-address" is not an e-mail address.' }]],
      [9, [{ column: 'Amount', message: expect.stringMatching(/^"1\.000,00" could be read two ways/) }]],
    ]);

    // Not while rows have problems.
    const early = await operator.request('POST', api(`/closings/${closingId}/run`));
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: { message: '2 rows have problems: fix or drop them first.' } });

    // One fixed on the page, the other dropped.
    const [address, amount] = bad as [ClosingRow, ClosingRow];
    const fixed = await operator.request('PUT', api(`/closings/${closingId}/rows/${address.id}`), {
      cells: { ...address.cells, 'E-mail': 'bad-address-fixed@example.com' },
    });
    expect(fixed.body).toMatchObject({
      row: { status: 'ready', problems: [], investor: { email: 'bad-address-fixed@example.com' } },
    });
    const dropped = await operator.request('PUT', api(`/closings/${closingId}/rows/${amount.id}/dropped`), {
      dropped: true,
    });
    expect(dropped.body).toEqual({ status: 'dropped', checkedAgain: [] });

    const run = await operator.request('POST', api(`/closings/${closingId}/run`));
    expect(run.body).toEqual({ status: 'running', rows: 29 });
    // Once running, its list no longer changes.
    expect((await uploadList(operator, closingId, investorsCsv(2))).status).toBe(409);

    // Two runners at once (two nodes) create each row once.
    const [first, second] = await Promise.all([runDueClosings(world.db), runDueClosings(world.db)]);
    expect(first.created + second.created).toBe(29);
    expect(first.failed + second.failed).toBe(0);

    const done = await detailOf(operator, closingId);
    expect(done).toMatchObject({
      status: 'finished',
      rowCounts: { created: 29, dropped: 1, ready: 0, problem: 0 },
      states: [{ state: 'draft', title: 'draft', count: 29 }],
      notOpened: 29,
      stalled: 0,
      // Once run, its rows are those not created: the others are its transactions, in the work queue.
      rows: [],
    });
    // Rows 2–31 but 9: 12,000 to 41,000, less the dropped row's 19,000, and the fixed row's 20,000 for its 15,000.
    const total = Array.from({ length: 30 }, (_, index) => index + 2)
      .filter((row) => row !== 9)
      .reduce((sum, row) => sum + (row === 5 ? 20_000 : 10_000 + row * 1000), 0);
    expect(done.committed).toEqual([{ currency: 'USD', amount: total * 100 }]);
    const made = await world.db.query<{ count: number; distinct: number; note: string }>(
      `select count(*)::int as count, count(distinct r.transaction_id)::int as distinct,
         min(t.invitation_note) as note
       from closing_rows r join transactions t on t.id = r.transaction_id
       where r.closing_id = $1 and t.closing_id = $1`,
      [closingId],
    );
    expect(made).toEqual([{ count: 29, distinct: 29, note: 'Welcome to Fund I.' }]);

    // The queue filtered to the closing.
    const queue = await operator.get(api(`/queue?closing=${closingId}&first=100`));
    expect((queue.body as { rows: unknown[]; tabs: { state: string; count: number }[] }).rows).toHaveLength(
      29,
    );
    const { tabs } = queue.body as { tabs: { state: string; count: number }[] };
    expect(tabs.filter((tab) => tab.count > 0)).toEqual([
      expect.objectContaining({ state: 'draft', count: 29 }),
    ]);
    // Its export: the two header rows, then a row per transaction of the closing, its amount among them.
    const exported = await operator.get(api(`/queue/export?closing=${closingId}`));
    expect(exported.status).toBe(200);
    const records: string[][] = parse(exported.text, { bom: true });
    expect(records).toHaveLength(2 + 29);
    const amountColumn = records[1]?.indexOf('subscription_amount.amount') ?? -1;
    const amounts = records.slice(2).map((record) => Number(record[amountColumn]));
    expect(amounts.reduce((sum, each) => sum + each, 0)).toBe(total);
    // And among the organization's closings.
    const list = await operator.get(api('/closings'));
    expect(list.body).toMatchObject({
      closings: [{ id: closingId, name: 'Fund I, first close', status: 'finished', rows: 29, created: 29 }],
    });
  });

  it('keeps a row the domain refuses at creation as failed, with its reason, and creates the others', async () => {
    const { story, operator } = await organization();
    const closingId = await draftOf(operator, story);
    await uploadList(operator, closingId, investorsCsv(3));
    await operator.request('POST', api(`/closings/${closingId}/run`));
    const [row] = await world.db.query<{ id: string }>(
      `select id from closing_rows where closing_id = $1 order by row_number limit 1`,
      [closingId],
    );
    // One row's answers no longer fit what the template lets the sender fill in.
    await world.db.query(
      `update closing_rows set answers = '{"investor_details.legalName": "x"}' where id = $1`,
      [row?.id],
    );
    const counts = await runDueClosings(world.db);
    expect(counts).toMatchObject({ created: 2, failed: 1, finished: 1 });
    const detail = await detailOf(operator, closingId);
    expect(detail.rows.find((each) => each.id === row?.id)).toMatchObject({
      status: 'failed',
      failure: expect.stringMatching(
        /^The template does not let the sender fill in investor_details\.legalName/,
      ),
      transactionId: null,
    });
  });

  it('refuses a list that is not a readable table with its code, and nothing changes', async () => {
    const { story, operator } = await organization();
    const closingId = await draftOf(operator, story);
    await uploadList(operator, closingId, investorsCsv(2));
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Name,E-mail\n', 'utf16le')]);
    const refused = await uploadList(operator, closingId, utf16);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: { code: 'TABLE_INVALID', message: expect.stringMatching(/UTF-16/) },
    });
    const broken = await uploadList(operator, closingId, 'Name,E-mail\n"Ada\nLovelace",ada@example.com\n');
    expect(broken.body).toMatchObject({ error: { code: 'TABLE_INVALID', details: { row: 2 } } });
    expect((await detailOf(operator, closingId)).rowCounts).toMatchObject({ ready: 2 });
  });

  it('checks again the rows that share an address when one of them is fixed, dropped or brought back', async () => {
    const { story, operator } = await organization();
    const closingId = await draftOf(operator, story);
    const twice = `twice-${randomUUID()}@example.com`;
    await uploadList(
      operator,
      closingId,
      investorsCsv(5, { 3: `First,${twice},Individual,"10,000"`, 5: `Second,${twice},Individual,"10,000"` }),
    );
    const rows = (await detailOf(operator, closingId)).rows;
    const [first, second] = [rows.find((row) => row.row === 3), rows.find((row) => row.row === 5)] as [
      ClosingRow,
      ClosingRow,
    ];
    expect(second.problems).toEqual([
      { column: 'E-mail', message: 'The same investor as row 3: each investor is in a closing once.' },
    ]);
    const statusOf = (body: unknown, id: string) =>
      (body as { checkedAgain: ClosingRow[] }).checkedAgain.find((row) => row.id === id)?.status;

    // The first row given another address: the second is the investor's only row now.
    const moved = await operator.request('PUT', api(`/closings/${closingId}/rows/${first.id}`), {
      cells: { ...first.cells, 'E-mail': `moved-${randomUUID()}@example.com` },
    });
    expect(moved.body).toMatchObject({ row: { status: 'ready' } });
    expect(statusOf(moved.body, second.id)).toBe('ready');
    // Given the address back, it is the first again and the second is the same investor once more.
    const back = await operator.request('PUT', api(`/closings/${closingId}/rows/${first.id}`), {
      cells: { ...first.cells, 'E-mail': twice.toUpperCase() },
    });
    expect(back.body).toMatchObject({ row: { status: 'ready' } });
    expect(statusOf(back.body, second.id)).toBe('problem');
    // Dropped, the first leaves the second alone; brought back, it is the first again.
    const dropped = await operator.request('PUT', api(`/closings/${closingId}/rows/${first.id}/dropped`), {
      dropped: true,
    });
    expect(dropped.body).toMatchObject({ status: 'dropped' });
    expect(statusOf(dropped.body, second.id)).toBe('ready');
    const restored = await operator.request('PUT', api(`/closings/${closingId}/rows/${first.id}/dropped`), {
      dropped: false,
    });
    expect(restored.body).toMatchObject({ status: 'ready' });
    expect(statusOf(restored.body, second.id)).toBe('problem');
    expect((await detailOf(operator, closingId)).rowCounts).toMatchObject({ ready: 4, problem: 1 });
  });

  it('makes one draft for one idempotency key, and refuses the key again with other settings', async () => {
    const { story, operator } = await organization();
    const idempotencyKey = randomUUID();
    const settings = {
      idempotencyKey,
      name: 'Fund II, first close',
      templateId: story.templateId,
      senderEntityId: story.senderEntityId,
    };
    const first = await operator.request('POST', api('/closings'), settings);
    const again = await operator.request('POST', api('/closings'), settings);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const listed = (await operator.get(api('/closings'))).body as { closings: { name: string }[] };
    expect(listed.closings.filter((closing) => closing.name === 'Fund II, first close')).toHaveLength(1);
    const renamed = await operator.request('POST', api('/closings'), {
      ...settings,
      name: 'Fund II, second close',
    });
    expect(renamed.body).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });
  });

  it('is the organization’s own, and made or changed only by those who may operate', async () => {
    const { story, operator, viewer } = await organization();
    const other = await organization();
    const closingId = await draftOf(operator, story);
    expect((await other.operator.get(api(`/closings/${closingId}`))).status).toBe(404);
    expect((await uploadList(other.operator, closingId, investorsCsv(1))).status).toBe(404);
    expect((await other.operator.request('POST', api(`/closings/${closingId}/run`))).status).toBe(404);
    expect((await viewer.get(api(`/closings/${closingId}`))).status).toBe(200);
    expect((await uploadList(viewer, closingId, investorsCsv(1))).status).toBe(403);
    const made = await viewer.request('POST', api('/closings'), {
      name: 'Not mine',
      templateId: story.templateId,
      senderEntityId: story.senderEntityId,
    });
    expect(made.status).toBe(403);
    const foreign = await operator.request('POST', api('/closings'), {
      name: 'Theirs',
      templateId: other.story.templateId,
      senderEntityId: story.senderEntityId,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: { details: { field: 'templateId' } } });
  });
});
