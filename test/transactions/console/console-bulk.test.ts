// Bulk actions in the console: the preflight says which selected transactions an action can be done to and why
// not the others, and the job it makes acts on each eligible one once, from any number of runners, skipping one
// that moved since the preflight. Every request comes "through a TLS-terminating proxy" (x-forwarded-proto).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runDueBulkJobs } from '../../../src/transactions/console/bulk/bulk-runs.ts';
import { preflightBulk } from '../../../src/transactions/console/bulk/bulk-jobs.ts';
import { runConsoleEvent } from '../../../src/transactions/console/transaction/console-events.ts';
import { api, consoleApiWorld, signedIn as signedInAs } from '../../support/data/console-api.ts';
import { createPerson, type Browser, type DashboardPerson } from '../../support/data/dashboard.ts';
import { organizationStory, type OrganizationStoryOptions } from '../../support/data/stories.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);
const signedIn = (person: DashboardPerson) => signedInAs(world, person);

interface Preflight {
  title: string;
  checkedAt: string;
  total: number;
  eligible: number;
  blocked: number;
  asks: number;
  reasons: { reason: string; count: number }[];
  items: { id: string; investorName: string; stateTitle: string; reason: string | null; asks: boolean }[];
  nextOffset: number | null;
}
interface Job {
  id: string;
  status: string;
  counts: Record<string, number>;
  items: { transactionId: string; status: string; reason: string | null }[];
}

/** An organization with a transaction in each of `states`, an operator and a viewer. */
async function organization(
  states: NonNullable<OrganizationStoryOptions['transactions']>,
  template?: OrganizationStoryOptions['template'],
) {
  const story = await organizationStory(world.db, world.files, { transactions: states, template });
  const tenant = { kind: 'organization' as const, id: story.organizationId };
  const operatorPerson = await createPerson(world.db, { tenant, role: 'operator' });
  const viewer = await createPerson(world.db, { tenant, role: 'viewer' });
  return {
    story,
    ids: story.transactions.map((transaction) => transaction.id),
    operatorPerson,
    operator: await signedIn(operatorPerson),
    viewer: await signedIn(viewer),
  };
}

async function preflight(page: Browser, body: object): Promise<Preflight> {
  const answer = await page.request('POST', api('/bulk/preflight'), body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { preflight: Preflight }).preflight;
}

async function run(page: Browser, body: object, checkedAt: string, key = randomUUID()) {
  return page.request('POST', api('/bulk'), { ...body, checkedAt, idempotencyKey: key });
}

async function jobOf(page: Browser, id: string): Promise<Job> {
  const answer = await page.get(api(`/bulk/${id}`));
  expect(answer.status).toBe(200);
  return (answer.body as { job: Job }).job;
}

const reminders = async (transactionId: string) =>
  (
    await world.db.query(
      `select 1 from transaction_activity where transaction_id = $1 and kind = 'console' and action = 'reminded'`,
      [transactionId],
    )
  ).length;

describe('a bulk action', () => {
  it("lists each transaction as eligible or blocked with the rule's reason, in the template's words, for remind, an event, a void and an assignment", async () => {
    const { ids, operator, viewer, operatorPerson } = await organization(['sent', 'submitted', 'complete']);
    const selection = { ids };
    expect(
      (await viewer.request('POST', api('/bulk/preflight'), { selection, action: { kind: 'remind' } }))
        .status,
    ).toBe(403);

    const remind = await preflight(operator, { selection, action: { kind: 'remind' } });
    expect(remind).toMatchObject({ title: 'Remind', total: 3, eligible: 1, blocked: 2 });
    expect(remind.items.map((item) => item.reason)).toEqual([
      null,
      'Remind: The recipient has nothing to submit now: a reminder would ask them for nothing.',
      'Remind: This transaction is complete: its recipient has nothing more to do.',
    ]);
    expect(remind.items.map((item) => item.stateTitle)).toEqual(['in progress', 'in review', 'completed']);

    const approve = await preflight(operator, { selection, action: { kind: 'event', eventKey: 'approve' } });
    expect(approve).toMatchObject({ title: 'Approve', eligible: 1, blocked: 2 });
    expect(approve.items.map((item) => item.reason)).toEqual([
      'Approve: only from in review',
      null,
      'Approve: the transaction is completed, a final state',
    ]);
    expect(approve.reasons).toEqual([
      { reason: 'Approve: only from in review', count: 1 },
      { reason: 'Approve: the transaction is completed, a final state', count: 1 },
    ]);

    const voiding = await preflight(operator, { selection, action: { kind: 'event', eventKey: 'void' } });
    expect(voiding.items.map((item) => item.reason)).toEqual([
      null,
      null,
      'Void: the transaction is completed, a final state',
    ]);
    // A void runs only with its reason, which the recipients are told.
    const noReason = await run(
      operator,
      { selection, action: { kind: 'event', eventKey: 'void' } },
      voiding.checkedAt,
    );
    expect(noReason.status).toBe(400);
    expect(noReason.body).toMatchObject({ error: { code: 'BAD_USER_INPUT' } });

    const assign = { kind: 'assign', userId: operatorPerson.id };
    const assigned = await run(
      operator,
      { selection: { ids: [ids[0]] }, action: assign },
      new Date().toISOString(),
    );
    expect(assigned.status).toBe(201);
    await runDueBulkJobs(world.db);
    const again = await preflight(operator, { selection, action: assign });
    expect(again.title).toBe(`Assign to ${operatorPerson.name}`);
    expect(again.items.map((item) => item.reason)).toEqual([
      'Assign: it is assigned to this person already.',
      null,
      null,
    ]);
    const nobody = await operator.request('POST', api('/bulk/preflight'), {
      selection,
      action: { kind: 'assign', userId: randomUUID() },
    });
    expect(nobody.status).toBe(404);
  });

  it('makes one job for a double submit, acts on each eligible transaction once, and refuses the key with another request', async () => {
    const { ids, operator } = await organization(['sent', 'sent', 'submitted']);
    const body = { selection: { ids }, action: { kind: 'remind' } };
    const checked = await preflight(operator, body);
    const key = randomUUID();
    const [first, second] = await Promise.all([
      run(operator, body, checked.checkedAt, key),
      run(operator, body, checked.checkedAt, key),
    ]);
    expect([first.status, second.status]).toEqual([201, 201]);
    const jobId = (first.body as { job: { id: string } }).job.id;
    expect((second.body as { job: { id: string } }).job.id).toBe(jobId);
    const other = await run(operator, { ...body, selection: { ids: [ids[0]] } }, checked.checkedAt, key);
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    expect((await jobOf(operator, jobId)).counts).toMatchObject({ pending: 2, blocked: 1 });
    await Promise.all([runDueBulkJobs(world.db), runDueBulkJobs(world.db)]);
    const job = await jobOf(operator, jobId);
    expect(job).toMatchObject({ status: 'finished', counts: { pending: 0, done: 2, blocked: 1 } });
    expect(await Promise.all(ids.map(reminders))).toEqual([1, 1, 0]);
    // Each reminder is queued for the mail sender, as a single reminder is.
    const due = await world.db.query(
      'select 1 from recipient_notices where transaction_id = any($1::uuid[]) and next_reminder_at <= clock_timestamp()',
      [ids.slice(0, 2)],
    );
    expect(due).toHaveLength(2);
  });

  it('reminds a transaction two jobs name once, and fails the second with the reason a single reminder gives', async () => {
    const { ids, operator } = await organization(['sent', 'sent']);
    const body = { selection: { ids }, action: { kind: 'remind' } };
    const checked = await preflight(operator, body);
    const jobs = await Promise.all([
      run(operator, body, checked.checkedAt),
      run(operator, body, checked.checkedAt),
    ]);
    // Made at once, so either may be the first: the runner takes them in the order they were made.
    const jobIds = (
      await world.db.query<{ id: string }>(
        'select id from bulk_jobs where id = any($1::uuid[]) order by created_at, sequence',
        [jobs.map((answer) => (answer.body as { job: { id: string } }).job.id)],
      )
    ).map((job) => job.id);
    expect(jobIds).toHaveLength(2);
    // Both jobs' items in one batch: the first reminds, the second is refused by the one-minute rule.
    await runDueBulkJobs(world.db);
    const [first, second] = await Promise.all(jobIds.map((id) => jobOf(operator, id)));
    expect(first?.counts).toMatchObject({ done: 2, failed: 0 });
    expect(second?.counts).toMatchObject({ done: 0, failed: 2 });
    expect(second?.items[0]?.reason).toMatch(/^A reminder was asked for \d+ seconds ago/);
    expect(await Promise.all(ids.map(reminders))).toEqual([1, 1]);
  });

  it('asks a second person for an event the template says needs one, rather than running it', async () => {
    const { ids, operator } = await organization(['submitted', 'submitted'], (example) => ({
      ...example,
      workflow: { ...example.workflow, secondPerson: ['approve'] },
    }));
    const body = { selection: { ids }, action: { kind: 'event', eventKey: 'approve' } };
    const checked = await preflight(operator, body);
    expect(checked).toMatchObject({ eligible: 2, asks: 2 });
    const made = await run(operator, body, checked.checkedAt);
    await runDueBulkJobs(world.db);
    const job = await jobOf(operator, (made.body as { job: { id: string } }).job.id);
    expect(job.counts).toMatchObject({ asked: 2, done: 0 });
    const states = await world.db.query<{ state: string }>(
      'select state from transactions where id = any($1::uuid[])',
      [ids],
    );
    expect(states.map((row) => row.state)).toEqual(['in_review', 'in_review']);
    const waiting = await world.db.query(
      `select 1 from event_approvals where transaction_id = any($1::uuid[]) and event_key = 'approve' and decided_at is null`,
      [ids],
    );
    expect(waiting).toHaveLength(2);
    // Asked again while those wait: each is blocked, naming who asked, rather than failing at the run.
    const again = await preflight(operator, body);
    expect(again).toMatchObject({ eligible: 0, blocked: 2, asks: 0 });
    expect(again.items[0]?.reason).toMatch(/^Approve: .+ asked for Approve already, which a second person/);
  });

  it('skips a transaction that moved after the preflight, or after the job was made, saying it changed', async () => {
    const { story, ids, operator, operatorPerson } = await organization([
      'submitted',
      'submitted',
      'submitted',
    ]);
    const body = { selection: { ids }, action: { kind: 'event', eventKey: 'approve' } };
    const checked = await preflight(operator, body);
    const move = (transactionId: string) =>
      runConsoleEvent(world.db, {
        organizationId: story.organizationId,
        transactionId,
        eventKey: 'request_changes',
        version: null,
        role: 'operator',
        actor: { type: 'user', id: operatorPerson.id },
      }).catch(async () => {
        const [latest] = await world.db.query<{ id: string }>(
          `select id from transaction_events where transaction_id = $1 order by created_at desc, sequence desc limit 1`,
          [transactionId],
        );
        return runConsoleEvent(world.db, {
          organizationId: story.organizationId,
          transactionId,
          eventKey: 'request_changes',
          version: latest?.id ?? null,
          role: 'operator',
          actor: { type: 'user', id: operatorPerson.id },
        });
      });
    await move(ids[0] ?? '');
    const made = await run(operator, body, checked.checkedAt);
    const jobId = (made.body as { job: { id: string } }).job.id;
    await move(ids[1] ?? '');
    await runDueBulkJobs(world.db);
    const job = await jobOf(operator, jobId);
    expect(job.items.map((item) => item.status)).toEqual(['blocked', 'skipped', 'done']);
    expect(job.items[1]?.reason).toMatch(/^Changed since you checked/);
    const states = await world.db.query<{ id: string; state: string }>(
      'select id, state from transactions where id = any($1::uuid[])',
      [ids],
    );
    expect(new Map(states.map((row) => [row.id, row.state]))).toEqual(
      new Map([
        [ids[0], 'changes_requested'],
        [ids[1], 'changes_requested'],
        [ids[2], 'countersigning'],
      ]),
    );
  });

  it('refuses a selection over the limit with SELECTION_TOO_LARGE, by hand or by a filter', async () => {
    const { story, ids, operator } = await organization(['sent', 'sent', 'sent']);
    const tooMany = Array.from({ length: 10_001 }, () => randomUUID());
    const byHand = await operator.request('POST', api('/bulk/preflight'), {
      selection: { ids: tooMany },
      action: { kind: 'remind' },
    });
    expect(byHand.status).toBe(400);
    await expect(
      preflightBulk(world.db, {
        organizationId: story.organizationId,
        role: 'operator',
        selection: { filter: {} },
        action: { kind: 'remind' },
        max: 2,
      }),
    ).rejects.toMatchObject({
      code: 'SELECTION_TOO_LARGE',
      message: expect.stringContaining('3 transactions'),
    });
    await expect(
      preflightBulk(world.db, {
        organizationId: story.organizationId,
        role: 'operator',
        selection: { ids },
        action: { kind: 'remind' },
        max: 2,
      }),
    ).rejects.toMatchObject({ code: 'SELECTION_TOO_LARGE' });
  });

  it("never selects or acts on another organization's transactions, and reads another's job as none", async () => {
    const ours = await organization(['sent']);
    const theirs = await organization(['sent']);
    const selection = { ids: [...ours.ids, ...theirs.ids] };
    const checked = await preflight(ours.operator, { selection, action: { kind: 'remind' } });
    expect(checked.items.map((item) => item.id)).toEqual(ours.ids);
    const byFilter = await preflight(ours.operator, {
      selection: { filter: {} },
      action: { kind: 'remind' },
    });
    expect(byFilter.items.map((item) => item.id)).toEqual(ours.ids);
    const made = await run(ours.operator, { selection, action: { kind: 'remind' } }, checked.checkedAt);
    await runDueBulkJobs(world.db);
    expect(await reminders(theirs.ids[0] ?? '')).toBe(0);
    expect(await reminders(ours.ids[0] ?? '')).toBe(1);
    const jobId = (made.body as { job: { id: string } }).job.id;
    expect((await theirs.operator.get(api(`/bulk/${jobId}`))).status).toBe(404);
  });

  it('is taken up where it stopped: a runner that stops mid-job leaves the rest to the next runners, each done once', async () => {
    const { ids, operator } = await organization(['sent', 'sent', 'sent', 'sent', 'sent']);
    const body = { selection: { ids }, action: { kind: 'remind' } };
    const checked = await preflight(operator, body);
    const made = await run(operator, body, checked.checkedAt);
    const jobId = (made.body as { job: { id: string } }).job.id;
    let batches = 0;
    const first = await runDueBulkJobs(world.db, { batchSize: 2, shouldStop: () => batches++ >= 1 });
    expect(first.done).toBe(2);
    expect(await jobOf(operator, jobId)).toMatchObject({
      status: 'running',
      counts: { done: 2, pending: 3 },
    });
    const [a, b] = await Promise.all([
      runDueBulkJobs(world.db, { batchSize: 1 }),
      runDueBulkJobs(world.db, { batchSize: 1 }),
    ]);
    expect(a.done + b.done).toBe(3);
    expect(await jobOf(operator, jobId)).toMatchObject({
      status: 'finished',
      counts: { done: 5, pending: 0 },
    });
    expect(await Promise.all(ids.map(reminders))).toEqual([1, 1, 1, 1, 1]);
  });
});
