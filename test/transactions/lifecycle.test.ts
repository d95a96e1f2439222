import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CREATE_TRANSACTION, graphql, triggerEvent, transactionInput } from '../support/data/transactions.ts';
import { readyToSubmit } from '../support/data/stories.ts';
import { addEntity, useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();
/** The organization of the running test: a fresh one each test, so counts and reads see only that test's rows. */
let demo: EmptyTenant;
/** Another organization, only ever read: its template, entity and key stand for a stranger's. */
let other: EmptyTenant;

const READ = `query ($id: uuid!) {
  transaction(id: $id) {
    state isComplete
    availableEvents { key allowed reason }
    transactionRecipients { vulcanKey entity { id name email } }
    transactionProcessRevisions { id number context committedAt transactionItems { id vulcanKey data completionPercentage } }
    events { eventKey sourceStateKey targetStateKey actorType actorId }
  }
}`;

const DRY_RUN = `mutation ($input: TriggerTransactionEventInput!) {
  triggerTransactionEvent(input: $input) { dryRun }
}`;

const WORKFLOW = `query ($id: uuid!) {
  template(id: $id) {
    workflow { initialState states { key final onEnter } events { key from to guard } }
  }
}`;

const input = (overrides: Record<string, unknown> = {}) => transactionInput(demo, overrides);

async function create(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return graphql(suite.app, demo.apiKey, CREATE_TRANSACTION, { input: input(overrides) }, headers);
}

async function trigger(
  transactionId: string,
  eventKey: string,
  key = demo.apiKey,
  headers: Record<string, string> = {},
) {
  return triggerEvent(suite.app, key, { transactionId, eventKey }, headers);
}

/** The investor's revision answered and signed, as in the portal, so that `submit` may happen. */
const ready = (id: string) =>
  readyToSubmit(suite.db, suite.files, { id, organizationId: demo.organizationId });

/** Sends the transaction, makes its revision ready and submits it through the API: it is then in review. */
async function sendAndSubmit(id: string) {
  expect((await trigger(id, 'send')).body.errors).toBeUndefined();
  await ready(id);
  expect((await trigger(id, 'submit')).body.errors).toBeUndefined();
}

async function read(id: string) {
  const { body } = await graphql(suite.app, demo.apiKey, READ, { id });
  return body.data?.transaction;
}

async function count(table: string): Promise<number> {
  const [row] = await suite.db.query<{ count: string }>(
    `select count(*) as count from ${table} where organization_id = $1`,
    [demo.organizationId],
  );
  return Number(row?.count);
}

async function outbox(transactionId: string) {
  return suite.db.query<{ type: string; payload: Record<string, unknown> }>(
    'select type, payload from outbox_events where transaction_id = $1 order by sequence',
    [transactionId],
  );
}

beforeAll(async () => {
  other = await suite.emptyTenant();
});

beforeEach(async () => {
  demo = await suite.emptyTenant();
});

describe('createTransaction', () => {
  it('creates the transaction in the initial state with its recipient and its prefilled process', async () => {
    const { status, body } = await create();
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const { transactionId, transmitToken } = body.data!.createTransaction;
    expect(transmitToken).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const t = await read(transactionId);
    expect(t.state).toBe('draft');
    expect(t.isComplete).toBe(false);
    expect(t.availableEvents).toEqual([
      { key: 'send', allowed: true, reason: null },
      {
        key: 'submit',
        allowed: false,
        reason:
          'submit: 4 required answers, 1 consent, 1 upload and 1 signature missing in About you, Tax residency and forms, Accreditation and Subscription agreement',
      },
      { key: 'void', allowed: true, reason: null },
    ]);
    expect(t.transactionRecipients).toEqual([
      {
        vulcanKey: 'investor',
        entity: { id: expect.any(String), name: 'Ada Lovelace', email: expect.stringMatching(/^ada\./) },
      },
    ]);
    const [revision] = t.transactionProcessRevisions;
    expect(t.transactionProcessRevisions).toHaveLength(1);
    expect(revision).toMatchObject({ number: 1, context: { reason: 'create' } });
    const items = Object.fromEntries(
      revision.transactionItems.map((i: { vulcanKey: string }) => [i.vulcanKey, i]),
    );
    expect(items.subscription_amount).toMatchObject({
      data: { amount: { currency: 'USD', amount: 100_000_000 } },
      completionPercentage: 100,
    });
    expect(items.tax_forms).toMatchObject({ data: { taxResidency: 'GB' }, completionPercentage: 50 });
    expect(items.investor_details).toMatchObject({ data: {}, completionPercentage: 0 });
    expect(t.events).toEqual([
      {
        eventKey: 'create',
        sourceStateKey: null,
        targetStateKey: 'draft',
        actorType: 'API_KEY',
        actorId: expect.any(String),
      },
    ]);
    expect(await outbox(transactionId)).toEqual([
      {
        type: 'transaction.state_changed',
        payload: expect.objectContaining({ transactionId, state: 'draft', previousState: null }),
      },
    ]);
  });

  it('keeps only a hash of the transmit token', async () => {
    const { body } = await create();
    const { transactionId, transmitToken } = body.data!.createTransaction;
    const [row] = await suite.db.query<{ hash: Uint8Array; everything: string }>(
      `select transmit_token_hash as hash, row_to_json(t)::text as everything from transactions t where id = $1`,
      [transactionId],
    );
    expect(Buffer.from(row!.hash).equals(createHash('sha256').update(transmitToken).digest())).toBe(true);
    expect(row!.everything).not.toContain(transmitToken);
  });

  it("makes the organization's entity with that e-mail the recipient instead of a new one", async () => {
    await addEntity(suite.db, demo.organizationId, {
      name: 'Jane Q. Doe',
      email: 'jane.doe@example.com',
      type: 'individual',
    });
    const { body } = await create({ noticeEmail: 'JANE.DOE@example.com', noticeName: 'Jane' });
    const t = await read(body.data?.createTransaction.transactionId);
    expect(t.transactionRecipients[0].entity).toMatchObject({
      name: 'Jane Q. Doe',
      email: 'jane.doe@example.com',
    });
  });

  it.each([
    [
      'an unknown template',
      { templateId: '00000000-0000-4000-8000-000000000000' },
      'templateId',
      /There is no template/,
    ],
    [
      'an unknown sender entity',
      { senderEntityId: '00000000-0000-4000-8000-000000000000' },
      'senderEntityId',
      /no entity/,
    ],
    ['a bad e-mail address', { noticeEmail: 'not-an-email' }, 'noticeEmail', /not an e-mail address/],
    ['a blank name', { noticeName: '   ' }, 'noticeName', /must not be blank/],
    ['inputData for an unknown item', { inputData: { nope: {} } }, 'inputData', /inputData\.nope: no item/],
    [
      'inputData that does not fit its item',
      { inputData: { subscription_amount: { amount: { currency: 'usd', amount: 12.5 } } } },
      'inputData',
      /^(?=.*inputData\.subscription_amount\.amount\.amount: must be integer)(?=.*inputData\.subscription_amount\.amount: the currency must be USD, EUR, GBP or CHF, not "usd")/,
    ],
  ])('refuses %s, naming the field and writing nothing', async (_, overrides, field, message) => {
    const before = [await count('transactions'), await count('entities'), await count('outbox_events')];
    const { body } = await create(overrides);
    expect(body.data).toBeNull();
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(body.errors?.[0]?.message).toMatch(message);
    expect([await count('transactions'), await count('entities'), await count('outbox_events')]).toEqual(
      before,
    );
  });

  it('refuses a 200 KB noticeEmail as BAD_USER_INPUT for its length, without echoing it', async () => {
    const noticeEmail = `${'a'.repeat(200_000)}@example.com`;
    const { body } = await create({ noticeEmail });
    expect(body.data).toBeNull();
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'noticeEmail' });
    expect(body.errors?.[0]?.message).toBe('noticeEmail has at most 254 characters.');
  });

  it('refuses a long text with many @ and dots, the kind that made the old check slow, for its length', async () => {
    const { body } = await create({ noticeEmail: `a@${'b.'.repeat(100_000)}` });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'noticeEmail' });
    expect(body.errors?.[0]?.message).toMatch(/^noticeEmail has at most 254 characters/);
  });

  it('accepts an address of exactly 254 characters and refuses one of 255', async () => {
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(49)}.example.com`;
    const noticeEmail = `${randomUUID().slice(0, 8)}${'a'.repeat(56)}@${domain}`;
    expect(noticeEmail).toHaveLength(254);
    const { body } = await create({ noticeEmail });
    expect(body.errors).toBeUndefined();
    const t = await read(body.data?.createTransaction.transactionId);
    expect(t.transactionRecipients[0].entity.email).toBe(noticeEmail);
    const longer = await create({ noticeEmail: `a${noticeEmail}` });
    expect(longer.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'noticeEmail',
    });
  });

  it.each([
    ['no dot in the domain', 'ada@example'],
    ['an empty part of the domain', 'ada@example..com'],
    ['a dot ending the domain', 'ada@example.com.'],
    ['a dot starting the domain', 'ada@.example.com'],
    ['two @', 'ada@lovelace@example.com'],
    ['a space', 'ada lovelace@example.com'],
  ])('refuses an address with %s', async (_, noticeEmail) => {
    const { body } = await create({ noticeEmail });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'noticeEmail' });
    expect(body.errors?.[0]?.message).toBe(`${JSON.stringify(noticeEmail)} is not an e-mail address.`);
  });

  it('shows only the beginning of a long text that is not an address', async () => {
    const noticeEmail = `${'x'.repeat(40)}${'y'.repeat(200)}`;
    const { body } = await create({ noticeEmail });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'noticeEmail' });
    expect(body.errors?.[0]?.message).toBe(`"${'x'.repeat(40)}…" (240 characters) is not an e-mail address.`);
  });

  it('refuses a noticeName longer than 200 characters, and accepts one of 200', async () => {
    const long = await create({ noticeName: 'N'.repeat(201) });
    expect(long.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'noticeName' });
    expect(long.body.errors?.[0]?.message).toBe('noticeName has at most 200 characters.');
    const longest = await create({ noticeName: `  ${'N'.repeat(200)}  ` });
    expect(longest.body.errors).toBeUndefined();
  });

  it('names unknown inputData keys short and lists only the first ten problems', async () => {
    const inputData = Object.fromEntries(
      Array.from({ length: 150 }, (_, index) => [`key ${index} ${'k'.repeat(100)}`, {}]),
    );
    const { body } = await create({ inputData });
    const [error] = body.errors ?? [];
    expect(error?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'inputData' });
    expect(error?.message).toMatch(/; and 140 more$/);
    expect(error?.message).not.toContain('k'.repeat(100));
    expect(error?.message.split('; ')).toHaveLength(11);
    expect(error?.extensions.problems).toHaveLength(100);
    expect(JSON.stringify(error?.extensions.problems)).not.toContain('k'.repeat(100));
  });

  it("refuses another organization's template and entity exactly like unknown ones", async () => {
    const foreign = await create({ templateId: other.templateId });
    const unknown = await create({ templateId: '00000000-0000-4000-8000-000000000000' });
    expect(foreign.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(foreign.body.errors?.[0]?.message.replace(other.templateId, 'ID')).toBe(
      unknown.body.errors?.[0]?.message.replace('00000000-0000-4000-8000-000000000000', 'ID'),
    );
    const entity = await create({ senderEntityId: other.senderEntityId });
    expect(entity.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'senderEntityId',
    });
  });
});

describe('triggerTransactionEvent', () => {
  it('moves the transaction, logs the transition with its actor and writes a state_changed outbox row', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    const { body } = await trigger(id, 'send');
    expect(body.data?.triggerTransactionEvent).toEqual({
      sourceStateKey: 'draft',
      targetStateKey: 'in_progress',
    });
    const t = await read(id);
    expect(t.state).toBe('in_progress');
    expect(t.availableEvents.map((event: { key: string }) => event.key)).toEqual(['submit', 'void']);
    expect(t.events.at(-1)).toMatchObject({
      eventKey: 'send',
      sourceStateKey: 'draft',
      targetStateKey: 'in_progress',
      actorType: 'API_KEY',
    });
    expect((await outbox(id)).map((row) => [row.type, row.payload.state])).toEqual([
      ['transaction.state_changed', 'draft'],
      ['transaction.state_changed', 'in_progress'],
    ]);
  });

  it('refuses an unknown event, an event from the wrong state and a failed guard, naming the state and allowed events', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    const unknown = await trigger(id, 'launch');
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_EVENT',
      currentState: 'draft',
      allowedEvents: ['send', 'void'],
      reason: 'unknown event "launch"',
    });
    expect(unknown.body.errors?.[0]?.message).toBe(
      'unknown event "launch"; allowed from "draft": send, void',
    );
    const long = await trigger(id, `launch${'!'.repeat(10_000)}`);
    expect(long.body.errors?.[0]?.message).toBe(
      `unknown event "launch${'!'.repeat(34)}…" (10006 characters); allowed from "draft": send, void`,
    );
    const wrongState = await trigger(id, 'approve');
    expect(wrongState.body.errors?.[0]?.message).toBe(
      'approve: only from in_review; allowed from "draft": send, void',
    );

    await sendAndSubmit(id);
    expect((await trigger(id, 'approve')).body.errors).toBeUndefined();
    const guarded = await trigger(id, 'countersign');
    expect(guarded.body.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_EVENT',
      currentState: 'countersigning',
      allowedEvents: ['void'],
      reason: 'countersign: 0 of 1 process complete',
    });
    const t = await read(id);
    expect(t.state).toBe('countersigning');
    // The API lists the blocked event with the reason the refusal gave.
    expect(t.availableEvents).toEqual([
      { key: 'countersign', allowed: false, reason: 'countersign: 0 of 1 process complete' },
      { key: 'void', allowed: true, reason: null },
    ]);
    expect(t.events.map((e: { eventKey: string }) => e.eventKey)).toEqual([
      'create',
      'send',
      'consent.given.accreditation.confirmed',
      'submit',
      'approve',
    ]);
  });

  it('refuses to submit a revision that lacks answers, as a dry run too, naming what is missing, and submits it once it lacks nothing', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    await trigger(id, 'send');
    const missing =
      'submit: 4 required answers, 1 consent, 1 upload and 1 signature missing in About you, Tax residency and forms, Accreditation and Subscription agreement';
    const refused = await trigger(id, 'submit');
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: 'REVISION_INCOMPLETE',
      currentState: 'in_progress',
      allowedEvents: ['void'],
      reason: missing,
    });
    const dry = await graphql(suite.app, demo.apiKey, DRY_RUN, {
      input: { transactionId: id, eventKey: 'submit', dryRun: true },
    });
    expect(dry.body.errors?.[0]?.extensions).toMatchObject({ code: 'REVISION_INCOMPLETE', reason: missing });
    expect((await read(id)).state).toBe('in_progress');

    await ready(id);
    expect((await read(id)).availableEvents).toContainEqual({ key: 'submit', allowed: true, reason: null });
    expect((await trigger(id, 'submit')).body.errors).toBeUndefined();
    const t = await read(id);
    expect(t.state).toBe('in_review');
    // The event submits the revision, as the investor's own submit would: it no longer changes.
    expect(t.transactionProcessRevisions.map((r: { committedAt: string | null }) => r.committedAt)).toEqual([
      expect.any(String),
    ]);
  });

  it('opens a new revision on request for changes: new items carrying the data forward, earlier ones untouched', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    await sendAndSubmit(id);
    const before = await read(id);
    await trigger(id, 'request_changes');
    const after = await read(id);
    expect(after.state).toBe('changes_requested');
    expect(after.transactionProcessRevisions.map((r: { number: number }) => r.number)).toEqual([1, 2]);
    const [first, second] = after.transactionProcessRevisions;
    expect(first).toEqual(before.transactionProcessRevisions[0]);
    expect(second.context).toEqual({ reason: 'request_changes' });
    const firstIds = first.transactionItems.map((i: { id: string }) => i.id);
    expect(
      second.transactionItems.map((i: { id: string }) => i.id).some((i: string) => firstIds.includes(i)),
    ).toBe(false);
    const strip = (items: { vulcanKey: string; data: unknown; completionPercentage: number }[]) =>
      items.map(({ vulcanKey, data, completionPercentage }) => ({ vulcanKey, data, completionPercentage }));
    expect(strip(second.transactionItems)).toEqual(strip(first.transactionItems));
  });

  it('adds the sender as countersigner when the workflow enters countersigning', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    await sendAndSubmit(id);
    await trigger(id, 'approve');
    const t = await read(id);
    expect(
      t.transactionRecipients.map((r: { vulcanKey: string; entity: { id: string } }) => [
        r.vulcanKey,
        r.entity.id,
      ]),
    ).toEqual([
      ['investor', expect.any(String)],
      ['countersigner', demo.senderEntityId],
    ]);
  });

  it("answers another organization's transaction as not found", async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    const { body } = await trigger(id, 'send', other.apiKey);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', field: 'transactionId' });
    expect((await read(id)).state).toBe('draft');
  });

  it('applies exactly one of 50 concurrent competing events and refuses the others clearly', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    await sendAndSubmit(id);
    const before: number = (await read(id)).events.length;
    const events = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 'approve' : 'request_changes'));
    const answers = await Promise.all(events.map((event) => trigger(id, event)));
    const applied = answers.filter((answer) => answer.body.errors === undefined);
    expect(applied).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.body.errors !== undefined)) {
      expect(refused.body.errors?.[0]?.extensions.code).toBe('INVALID_EVENT');
    }
    const t = await read(id);
    expect(t.events).toHaveLength(before + 1);
    expect(t.state).toBe(applied[0]?.body.data?.triggerTransactionEvent.targetStateKey);
  });
});

describe('the workflow in the graph', () => {
  it("shows a template's states and events so that clients can discover event keys", async () => {
    const { body } = await graphql(suite.app, demo.apiKey, WORKFLOW, { id: demo.templateId });
    const { workflow } = body.data!.template;
    expect(workflow.initialState).toBe('draft');
    expect(workflow.states.find((s: { key: string }) => s.key === 'completed')).toEqual({
      key: 'completed',
      final: true,
      onEnter: [],
    });
    expect(workflow.states.find((s: { key: string }) => s.key === 'draft').onEnter).toEqual([
      { createProcess: 'subscription' },
    ]);
    expect(workflow.events.find((e: { key: string }) => e.key === 'countersign')).toEqual({
      key: 'countersign',
      from: ['countersigning'],
      to: 'completed',
      guard: 'all_processes_complete',
    });
    expect(workflow.events.at(-1)).toEqual({
      key: 'void',
      from: ['draft', 'in_progress', 'in_review', 'changes_requested', 'countersigning'],
      to: 'voided',
      guard: null,
    });
    expect(workflow.states.at(-1)).toEqual({ key: 'voided', final: true, onEnter: [] });
  });
});

describe('Idempotency-Key', () => {
  it('returns the first result for a retry with the same key and input, without creating again', async () => {
    const key = randomUUID();
    const fixed = input();
    const first = await graphql(
      suite.app,
      demo.apiKey,
      CREATE_TRANSACTION,
      { input: fixed },
      { 'idempotency-key': key },
    );
    const before = await count('transactions');
    const again = await graphql(
      suite.app,
      demo.apiKey,
      CREATE_TRANSACTION,
      { input: fixed },
      { 'idempotency-key': key },
    );
    expect(again.body.data).toEqual(first.body.data);
    expect(await count('transactions')).toBe(before);
  });

  it('refuses the same key with other input', async () => {
    const key = randomUUID();
    await create({}, { 'idempotency-key': key });
    const { body } = await create({ noticeName: 'Someone Else' }, { 'idempotency-key': key });
    expect(body.errors?.[0]?.extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('does the work once for concurrent requests with one key, and stores neither the key nor the token in clear', async () => {
    const key = `retry-${randomUUID()}`;
    const fixed = input();
    const before = await count('transactions');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        graphql(suite.app, demo.apiKey, CREATE_TRANSACTION, { input: fixed }, { 'idempotency-key': key }),
      ),
    );
    expect(await count('transactions')).toBe(before + 1);
    const results = answers.map((answer) => JSON.stringify(answer.body.data));
    expect(new Set(results).size).toBe(1);
    const token: string = answers[0]?.body.data?.createTransaction.transmitToken;
    const stored = await suite.db.query<{ row: string }>(
      'select row_to_json(k)::text as row from idempotency_keys k where organization_id = $1',
      [demo.organizationId],
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const { row } of stored) {
      expect(row).not.toContain(token);
      expect(row).not.toContain(key);
    }
  });

  it('replays every mutation: a retried token reset keeps the first new token working', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    const key = randomUUID();
    const reset = () =>
      graphql(
        suite.app,
        demo.apiKey,
        'mutation ($input: ResetTransmitTokenInput!) { resetTransmitToken(input: $input) { transmitToken } }',
        { input: { transactionId: id } },
        { 'idempotency-key': key },
      );
    const first = await reset();
    const retry = await reset();
    expect(retry.body).toEqual(first.body);
    const token: string = first.body.data?.resetTransmitToken.transmitToken;
    expect((await suite.app.inject({ method: 'GET', url: `/recipient/${token}` })).statusCode).toBe(200);
  });

  it('makes a retried event safe: the retry returns the first transition instead of failing', async () => {
    const id = (await create()).body.data?.createTransaction.transactionId;
    const key = randomUUID();
    const first = await trigger(id, 'send', demo.apiKey, { 'idempotency-key': key });
    const retry = await trigger(id, 'send', demo.apiKey, { 'idempotency-key': key });
    expect(retry.body).toEqual(first.body);
    expect((await read(id)).events).toHaveLength(2);
  });
});
