import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { MailMessage, Mailer } from '../../src/mail/mailer.ts';
import { sendDueNotices } from '../../src/transactions/recipients/notice-sender.ts';
import { checkTemplate } from '../../src/transactions/templates/validation.ts';
import { CREATE_TRANSACTION, graphql, transactionInput, triggerEvent } from '../support/data/transactions.ts';
import { readyToSubmit } from '../support/data/stories.ts';
import { useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';
import { readFile } from 'node:fs/promises';

const suite = useTransactionsSuite();
let tenant: EmptyTenant;

beforeEach(async () => {
  tenant = await suite.emptyTenant();
});

const TRIGGER = `mutation ($input: TriggerTransactionEventInput!) {
  triggerTransactionEvent(input: $input) {
    sourceStateKey targetStateKey dryRun
    preview { eventKey sourceStateKey targetStateKey actions messageRequired mails { to role kind } webhooks completes }
  }
}`;

async function create(): Promise<{ transactionId: string; transmitToken: string; noticeEmail: string }> {
  const noticeEmail = `ada.${randomUUID().slice(0, 8)}@example.com`;
  const { body } = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
    input: transactionInput(tenant, { inputData: {}, noticeEmail }),
  });
  expect(body.errors).toBeUndefined();
  return {
    ...(body.data!.createTransaction as { transactionId: string; transmitToken: string }),
    noticeEmail,
  };
}

async function organizationName(): Promise<string> {
  const [row] = await suite.db.query<{ name: string }>('select name from organizations where id = $1', [
    tenant.organizationId,
  ]);
  return row?.name ?? '';
}

function trigger(input: Record<string, unknown>, headers: Record<string, string> = {}) {
  return graphql(suite.app, tenant.apiKey, TRIGGER, { input }, headers);
}

/** What a transaction has written so far: its state, events, outbox rows and idempotency keys. */
async function written(transactionId: string) {
  const [row] = await suite.db.query<{ state: string; events: number; outbox: number; keys: number }>(
    `select t.state,
       (select count(*)::int from transaction_events where transaction_id = t.id) as events,
       (select count(*)::int from outbox_events where transaction_id = t.id) as outbox,
       (select count(*)::int from idempotency_keys where organization_id = t.organization_id) as keys
     from transactions t where t.id = $1`,
    [transactionId],
  );
  return row;
}

describe('voiding a transaction', () => {
  it('needs a message: refused as BAD_USER_INPUT naming the field when it is missing or blank', async () => {
    const { transactionId } = await create();
    for (const message of [undefined, '   ']) {
      const { body } = await trigger({ transactionId, eventKey: 'void', message });
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'message' });
      expect(body.errors?.[0]?.message).toBe('void needs a message: the reason, which the recipient is told');
    }
    expect((await written(transactionId))?.state).toBe('draft');
  });

  it('ends the transaction with its reason: logged, reported by webhook, mailed, and the link shows it', async () => {
    const { transactionId, transmitToken, noticeEmail } = await create();
    const organization = await organizationName();
    const reason = 'The fund closed before your subscription could be accepted.';
    const { body } = await trigger({ transactionId, eventKey: 'void', message: `  ${reason} ` });
    expect(body.errors).toBeUndefined();
    expect(body.data?.triggerTransactionEvent).toEqual({
      sourceStateKey: 'draft',
      targetStateKey: 'voided',
      dryRun: false,
      preview: null,
    });

    const [event] = await suite.db.query(
      `select message, actor_type as "actorType" from transaction_events where transaction_id = $1 and event_key = 'void'`,
      [transactionId],
    );
    expect(event).toEqual({ message: reason, actorType: 'api_key' });
    const outbox = await suite.db.query<{ type: string; payload: Record<string, unknown> }>(
      'select type, payload from outbox_events where transaction_id = $1 order by sequence',
      [transactionId],
    );
    expect(outbox.map((row) => row.type)).toEqual([
      'transaction.state_changed',
      'transaction.state_changed',
      'transaction.voided',
    ]);
    expect(outbox[2]?.payload).toMatchObject({
      transactionId,
      previousState: 'draft',
      state: 'voided',
      reason,
      actorType: 'API_KEY',
    });

    const read = await graphql(
      suite.app,
      tenant.apiKey,
      'query ($id: uuid!) { transaction(id: $id) { state voidReason voidedAt availableEvents { key } events { eventKey message actorType } } }',
      { id: transactionId },
    );
    expect(read.body.data?.transaction).toMatchObject({
      state: 'voided',
      voidReason: reason,
      availableEvents: [],
    });
    expect(read.body.data?.transaction.events.at(-1)).toEqual({
      eventKey: 'void',
      message: reason,
      actorType: 'API_KEY',
    });

    // The invitation queued at creation goes no more: the void's mail goes instead, and is the last.
    const sent: MailMessage[] = [];
    const mailer: Mailer = {
      send: (message) => {
        sent.push(message);
        return Promise.resolve({ via: 'smtp', messageId: randomUUID() });
      },
      close: () => undefined,
    };
    const counts = await sendDueNotices(suite.db, { mailer, transactionsUrl: 'https://portal.test' });
    const mine = sent.filter((message) => message.to === noticeEmail);
    expect(mine.map((message) => message.subject)).toEqual([
      expect.stringMatching(new RegExp(`^Cancelled: .+ with ${organization}$`)),
    ]);
    expect(mine[0]?.text).toContain(`> ${reason}`);
    expect(mine[0]?.text).toContain(`https://portal.test/r/${transmitToken}`);
    expect(counts.voids).toBeGreaterThanOrEqual(1);
    const [notice] = await suite.db.query<{ sealed: boolean }>(
      'select token_sealed is not null as sealed from recipient_notices where transaction_id = $1',
      [transactionId],
    );
    expect(notice?.sealed).toBe(false);

    // The link shows the void with the reason, and takes nothing more.
    const view = await suite.app.inject({ method: 'GET', url: `/recipient/${transmitToken}` });
    expect(view.statusCode).toBe(410);
    expect(view.json().error).toMatchObject({
      code: 'TRANSACTION_VOIDED',
      details: { reason, organizationName: organization },
    });
    const save = await suite.app.inject({
      method: 'PUT',
      url: `/recipient/${transmitToken}/items/investor_details`,
      payload: { data: {} },
    });
    expect(save.json().error.code).toBe('TRANSACTION_VOIDED');
    const submit = await suite.app.inject({
      method: 'POST',
      url: `/recipient/${transmitToken}/processes/subscription/submit`,
    });
    expect(submit.json().error.code).toBe('TRANSACTION_VOIDED');
  });

  it('is refused once the transaction is in a final state, saying so', async () => {
    const { transactionId } = await create();
    await trigger({ transactionId, eventKey: 'void', message: 'Sent by mistake.' });
    const again = await trigger({ transactionId, eventKey: 'void', message: 'Again.' });
    expect(again.body.errors?.[0]?.extensions).toMatchObject({
      code: 'INVALID_EVENT',
      currentState: 'voided',
      allowedEvents: [],
      reason: 'void: the transaction is voided, a final state',
    });
  });
});

describe('a dry run', () => {
  it('previews what the event does and changes nothing, storing no Idempotency-Key result', async () => {
    const { transactionId } = await create();
    const before = await written(transactionId);
    const key = { 'idempotency-key': randomUUID() };
    const { body } = await trigger(
      { transactionId, eventKey: 'void', message: 'Duplicate.', dryRun: true },
      key,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data?.triggerTransactionEvent).toEqual({
      sourceStateKey: 'draft',
      targetStateKey: 'voided',
      dryRun: true,
      preview: {
        eventKey: 'void',
        sourceStateKey: 'draft',
        targetStateKey: 'voided',
        actions: [],
        messageRequired: true,
        mails: [{ to: 'primary_recipient', role: 'investor', kind: 'voided' }],
        webhooks: ['transaction.state_changed', 'transaction.voided'],
        completes: false,
      },
    });
    expect(await written(transactionId)).toEqual(before);

    // The same key then runs the event for real: the dry run left nothing to replay.
    const real = await trigger({ transactionId, eventKey: 'send' }, key);
    expect(real.body.data?.triggerTransactionEvent).toMatchObject({
      targetStateKey: 'in_progress',
      dryRun: false,
    });
  });

  it('is refused exactly as the real event would be', async () => {
    const { transactionId } = await create();
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ eventKey: 'approve' }, { code: 'INVALID_EVENT', reason: 'approve: only from in_review' }],
      [{ eventKey: 'void' }, { code: 'BAD_USER_INPUT', field: 'message' }],
    ];
    for (const [input, refusal] of cases) {
      const dry = await trigger({ transactionId, ...input, dryRun: true });
      const real = await trigger({ transactionId, ...input });
      expect(dry.body.errors?.[0]?.extensions).toMatchObject(refusal);
      expect(dry.body.errors?.[0]).toEqual({ ...real.body.errors?.[0], extensions: expect.anything() });
      expect(dry.body.errors?.[0]?.extensions).toEqual({
        ...real.body.errors?.[0]?.extensions,
        requestId: expect.any(String),
      });
    }
  });

  it('previews a request for changes with the mail it sends back', async () => {
    const { transactionId } = await create();
    await triggerEvent(suite.app, tenant.apiKey, { transactionId, eventKey: 'send' });
    await readyToSubmit(suite.db, suite.files, { id: transactionId, organizationId: tenant.organizationId });
    await triggerEvent(suite.app, tenant.apiKey, { transactionId, eventKey: 'submit' });
    const { body } = await trigger({ transactionId, eventKey: 'request_changes', dryRun: true });
    expect(body.data?.triggerTransactionEvent.preview).toMatchObject({
      targetStateKey: 'changes_requested',
      actions: [{ openRevision: 'subscription' }],
      messageRequired: false,
      mails: [{ to: 'primary_recipient', role: 'investor', kind: 'changes_requested' }],
      webhooks: ['transaction.state_changed'],
      completes: false,
    });
  });
});

describe('templates and void', () => {
  it('still validate with a final state voided of their own, an event void of their own, or void: false', async () => {
    const source = await readFile(
      new URL('../../templates/examples/subscription.yaml', import.meta.url),
      'utf8',
    );
    const variants = [
      source.replace(
        '    - key: completed\n      final: true',
        '    - key: completed\n      final: true\n    - key: voided\n      final: true',
      ),
      source.replace('  events:\n', '  events:\n    - key: void\n      from: [draft]\n      to: completed\n'),
      source.replace('  initialState: draft', '  initialState: draft\n  void: false'),
    ];
    for (const variant of variants) {
      expect(variant).not.toBe(source);
      expect(checkTemplate(variant)).toMatchObject({ ok: true });
    }
  });

  it('refuses a process whose submit would void the transaction', async () => {
    const source = await readFile(
      new URL('../../templates/examples/subscription.yaml', import.meta.url),
      'utf8',
    );
    const check = checkTemplate(source.replace(/submitEvent: \w+/, 'submitEvent: void'));
    expect(check).toMatchObject({ ok: false, problems: [{ path: expect.stringContaining('submitEvent') }] });
  });
});
