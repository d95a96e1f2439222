import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../../../src/mail/mailer.ts';
import { importTemplateSource } from '../../../src/transactions/templates/templates.ts';
import {
  createRecipientNotices,
  type NoticeCounts,
  type RecipientNotices,
} from '../../../src/transactions/recipients/notice-sender.ts';
import { mailTo, smtpMailer } from '../../support/data/dashboard.ts';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../../support/peers/smtp.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  transactionInput,
  TRIGGER_TRANSACTION_EVENT,
  triggerEvent,
} from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';

/** Where the mailed links point (PORTICO_TRANSACTIONS_URL). */
const ORIGIN = 'https://portal.portico.test';
const DAY = 86_400_000;
const RESET_TRANSMIT_TOKEN = `mutation ($input: ResetTransmitTokenInput!) {
  resetTransmitToken(input: $input) { transactionId transmitToken }
}`;

/**
 * A template whose recipient submits in two calls (one short form; the one document is the sender's to sign, so
 * the transaction completes only at countersignature), with a reminder schedule of its own: the first a day
 * after the invitation, then every two days, three at most.
 */
const SIDE_LETTER = `
key: side_letter
name: Side letter
invitations:
  reminders: { afterDays: 1, everyDays: 2, max: 3 }
recipientRoles:
  - key: investor
    primary: true
  - key: countersigner
    sender: true
processes:
  - key: details
    title: Your details
    submitEvent: submit
    items:
      - vulcanKey: details
        title: Details
        schema: { type: object, required: [name], properties: { name: { type: string } } }
    documents:
      - key: side_letter
        title: Side letter
        signedBy: [countersigner]
workflow:
  initialState: open
  states:
    - key: open
      onEnter: [{ createProcess: details }]
    - key: review
    - key: changes
      onEnter: [{ openRevision: details }]
    - key: countersigning
      onEnter: [{ addRecipient: countersigner }]
    - key: done
      final: true
  events:
    - { key: submit, from: [open, changes], to: review }
    - { key: request_changes, from: [review], to: changes }
    - { key: approve, from: [review], to: countersigning }
    - { key: countersign, from: [countersigning], to: done, guard: all_processes_complete }
`;
const SIGN_AS_SENDER = `mutation ($input: SignTransactionDocumentInput!) {
  signTransactionDocument(input: $input) { documentKey }
}`;

const suite = useTransactionsSuite();
let smtp: TestSmtpServer;
let mailer: Mailer;
/** The sender the tests drive with `runDue(now)`; it has no timer. */
let notices: RecipientNotices;
/** An app that kicks `notices` after its mutations, as `serve` builds it; the suite's own app kicks nothing. */
let kicking: FastifyInstance;
let tenant: EmptyTenant;
let sideLetterId: string;

/** A sender of recipient notices on the suite's database through `mailer`, without a timer (`runDue` drives it). */
function noticesBy(mailer: Mailer, logger?: Logger): RecipientNotices {
  return createRecipientNotices({
    db: suite.db,
    mailer,
    transactionsUrl: ORIGIN,
    intervalMs: 0,
    ...(logger ? { logger } : {}),
  });
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  mailer = smtpMailer(smtp.url());
  notices = noticesBy(mailer);
  kicking = await suite.buildApp({ recipientNotices: notices });
  tenant = await suite.emptyTenant();
  sideLetterId = (
    await importTemplateSource(suite.db, {
      organizationId: tenant.organizationId,
      source: SIDE_LETTER,
      filename: 'side-letter.yaml',
    })
  ).id;
});

afterAll(async () => {
  await notices.stop();
  mailer.close();
  await smtp.close();
});

// Each test reads only the mail of its own transactions: what earlier tests left due is dropped.
afterEach(async () => {
  await suite.db.query(
    `update recipient_notices set token_sealed = null, invitation_due_at = null, next_reminder_at = null,
       changes_due_at = null, signed_copy_due_at = null`,
  );
});

/** A fresh address, so that a test finds its own mail among the server's. */
const newAddress = (name = 'investor') => `${name}.${randomUUID().slice(0, 8)}@example.com`;

/** Creates a transaction through GraphQL on `app` for `noticeEmail`; its id and transmit token. */
async function create(options: {
  app?: FastifyInstance;
  noticeEmail: string;
  noticeName?: string;
  templateId?: string;
}): Promise<{ transactionId: string; transmitToken: string }> {
  const { body } = await graphql(options.app ?? suite.app, tenant.apiKey, CREATE_TRANSACTION, {
    input: transactionInput(tenant, {
      noticeEmail: options.noticeEmail,
      noticeName: options.noticeName ?? 'Ada Lovelace',
      ...(options.templateId === undefined ? {} : { templateId: options.templateId, inputData: {} }),
    }),
  });
  expect(body.errors).toBeUndefined();
  return body.data?.createTransaction;
}

/**
 * The database's time (which stamps queued rows) as a Date, rounded up to the next millisecond: a Date holds no
 * microseconds, and a row queued in the same millisecond must be due.
 */
async function databaseNow(): Promise<Date> {
  const [row] = await suite.db.query<{ now: Date }>(
    `select date_trunc('milliseconds', clock_timestamp()) + interval '1 millisecond' as now`,
  );
  return row?.now ?? new Date();
}

const later = (start: Date, days: number) => new Date(start.getTime() + days * DAY);

/** The mail received for `address`, in order. */
const mailFor = (address: string): ReceivedMail[] =>
  smtp.received.filter((mail) => mail.envelope.to.includes(address));

/** The recipient link in a message's text, and its token. */
function linkIn(mail: ReceivedMail): { link: string; token: string } {
  const found = new RegExp(`${ORIGIN}/r/([0-9a-f-]{36})`).exec(mail.parsed.text ?? '');
  if (!found?.[1]) throw new Error(`no recipient link in: ${mail.parsed.text ?? ''}`);
  return { link: found[0], token: found[1] };
}

/** GET /recipient/<token>: what the portal's page asks first. */
async function openLink(token: string) {
  const response = await suite.app.inject({ method: 'GET', url: `/recipient/${token}` });
  return { status: response.statusCode, body: response.json() };
}

/** A recipient call with the token, which must succeed. */
async function asRecipient(token: string, method: 'PUT' | 'POST', path: string, payload?: object) {
  const response = await suite.app.inject({ method, url: `/recipient/${token}/${path}`, payload });
  expect(response.statusCode, response.body).toBe(200);
}

async function trigger(transactionId: string, eventKey: string, options: { app?: FastifyInstance } = {}) {
  const { body } = await triggerEvent(options.app ?? suite.app, tenant.apiKey, { transactionId, eventKey });
  expect(body.errors).toBeUndefined();
}

/** The sponsor asks for changes on `app`, with `message`. */
async function requestChanges(transactionId: string, message: string, app = suite.app) {
  const { body } = await graphql(app, tenant.apiKey, TRIGGER_TRANSACTION_EVENT, {
    input: { transactionId, eventKey: 'request_changes', message },
  });
  expect(body.errors).toBeUndefined();
}

/** The recipient fills in and submits the side letter. */
async function submitSideLetter(token: string) {
  await asRecipient(token, 'PUT', 'items/details', { data: { name: 'Ada' } });
  await asRecipient(token, 'POST', 'processes/details/submit');
}

/** The sponsor approves, countersigns and closes a submitted side letter on `app`: it completes. */
async function completeSideLetter(transactionId: string, app = suite.app) {
  await trigger(transactionId, 'approve', { app });
  const signed = await graphql(app, tenant.apiKey, SIGN_AS_SENDER, {
    input: { transactionId, documentKey: 'side_letter', signedName: 'Test Capital', consent: true },
  });
  expect(signed.body.errors).toBeUndefined();
  await trigger(transactionId, 'countersign', { app });
}

const READ_EVENTS = `query ($id: uuid!) {
  transaction(id: $id) { events { eventKey sourceStateKey targetStateKey actorType actorId } }
}`;

/** The keys of the mail events of a transaction, as GraphQL lists them (`Transaction.events`). */
async function mailEvents(transactionId: string): Promise<string[]> {
  const { body } = await graphql(suite.app, tenant.apiKey, READ_EVENTS, { id: transactionId });
  expect(body.errors).toBeUndefined();
  const events = body.data?.transaction.events as { eventKey: string; actorType: string }[];
  return events
    .filter((event) => event.eventKey.startsWith('mail.'))
    .map((event) => `${event.eventKey} by ${event.actorType}`);
}

/** The text and HTML parts of a message. */
const partsOf = (mail: ReceivedMail) => ({
  text: mail.parsed.text ?? '',
  html: typeof mail.parsed.html === 'string' ? mail.parsed.html : '',
});

async function noticeOf(transactionId: string) {
  const [row] = await suite.db.query<{
    sealed: boolean;
    invitationDueAt: Date | null;
    nextReminderAt: Date | null;
    remindersSent: number;
    failures: number;
    lastFailure: string | null;
  }>(
    `select token_sealed is not null as sealed, invitation_due_at as "invitationDueAt",
       next_reminder_at as "nextReminderAt", reminders_sent as "remindersSent", failures,
       last_failure as "lastFailure"
     from recipient_notices where transaction_id = $1`,
    [transactionId],
  );
  if (!row) throw new Error(`no notice for ${transactionId}`);
  return row;
}

const counts = (
  invitations: number,
  reminders: number,
  failed = 0,
  more: Partial<NoticeCounts> = {},
): NoticeCounts => ({
  invitations,
  reminders,
  changesRequested: 0,
  signedCopies: 0,
  voids: 0,
  esignNotices: 0,
  failed,
  ...more,
});

describe('the invitation', () => {
  it('is mailed to noticeEmail when a transaction is created, with a link that opens the transaction and the organization named', async () => {
    const address = newAddress('ada');
    const { transactionId, transmitToken } = await create({
      app: kicking,
      noticeEmail: address,
      noticeName: 'Ada <Lovelace> & Co',
    });

    const mail = await mailTo(smtp, address);
    expect(mail.parsed.subject).toBe('Test Capital asks you to complete: Fund subscription');
    const { link, token } = linkIn(mail);
    expect(token).toBe(transmitToken);
    expect(link).toBe(`${ORIGIN}/r/${transmitToken}`);
    const opened = await openLink(token);
    expect(opened.status).toBe(200);
    expect(opened.body.transaction.id).toBe(transactionId);

    const text = mail.parsed.text ?? '';
    const html = typeof mail.parsed.html === 'string' ? mail.parsed.html : '';
    for (const part of [text, html]) {
      expect(part).toContain('Test Capital');
      expect(part).toContain('Fund subscription');
      expect(part).toContain('Subscription');
      expect(part).toContain('operations@test-capital.example');
      expect(part).toMatch(/works until \d{1,2} \w+ \d{4}, \d\d:\d\d UTC/);
    }
    expect(text).toContain('Dear Ada <Lovelace> & Co,');
    expect(html).toContain('Dear Ada &lt;Lovelace&gt; &amp; Co,');
    expect(html).toContain(`<a href="${link}">`);
    // The sender records the invitation as sent once the mail server has taken it, a moment after it arrived.
    await expect
      .poll(() => noticeOf(transactionId), { timeout: 5_000 })
      .toMatchObject({ invitationDueAt: null, failures: 0 });
  });

  it('is mailed again with the new link when the token is reset, saying the old link stopped working, which then answers 410 LINK_REVOKED', async () => {
    const address = newAddress();
    const { transactionId, transmitToken: first } = await create({ app: kicking, noticeEmail: address });
    await mailTo(smtp, address);

    const { body } = await graphql(kicking, tenant.apiKey, RESET_TRANSMIT_TOKEN, {
      input: { transactionId },
    });
    expect(body.errors).toBeUndefined();
    const second = body.data?.resetTransmitToken.transmitToken as string;
    const mail = await mailTo(smtp, address, { nth: 2 });
    expect(mail.parsed.subject).toBe('New link: Test Capital asks you to complete: Fund subscription');
    expect(linkIn(mail).token).toBe(second);
    for (const part of Object.values(partsOf(mail))) {
      expect(part).toContain('The link you had before no longer works');
      expect(part).not.toContain(first);
    }
    // Both mails are in the transaction's events.
    await expect
      .poll(() => mailEvents(transactionId), { timeout: 5_000 })
      .toEqual(['mail.invitation by SYSTEM', 'mail.invitation by SYSTEM']);

    expect((await openLink(second)).status).toBe(200);
    const old = await openLink(first);
    expect(old.status).toBe(410);
    expect(old.body.error.code).toBe('LINK_REVOKED');
  });

  it('is mailed once for a createTransaction replayed with its Idempotency-Key', async () => {
    const address = newAddress();
    const input = transactionInput(tenant, { noticeEmail: address });
    const headers = { 'idempotency-key': randomUUID() };
    const first = await graphql(kicking, tenant.apiKey, CREATE_TRANSACTION, { input }, headers);
    const replayed = await graphql(kicking, tenant.apiKey, CREATE_TRANSACTION, { input }, headers);
    expect(replayed.body.data).toEqual(first.body.data);
    await mailTo(smtp, address);
    // Whatever the replay's kick sends is sent by the time a run started after it ends.
    expect(await notices.runDue()).toEqual(counts(0, 0));
    expect(mailFor(address)).toHaveLength(1);
  });

  it('holds no secret but the recipient link: no API key, no other token, nothing secret in the subject or the log', async () => {
    // A run an earlier test kicked would mail the invitation before this test's outbox reads it.
    await notices.settled();
    const address = newAddress();
    const { transmitToken } = await create({ noticeEmail: address });
    const lines: string[] = [];
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-notices-'));
    const files = createMailer(
      { dataDir, smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>' },
      pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    );
    const outbox = noticesBy(files);
    try {
      await outbox.runDue(await databaseNow());
      await notices.runDue(later(await databaseNow(), 3));
    } finally {
      await outbox.stop();
      await rm(dataDir, { recursive: true, force: true });
    }

    // The .eml outbox logs the subject and the link, and nothing else that opens anything.
    const logged = lines.map((line) => JSON.parse(line) as { subject?: string; links?: string[] });
    const invitation = logged.find((entry) => entry.links?.some((link) => link.includes(transmitToken)));
    expect(invitation?.links).toEqual([`${ORIGIN}/r/${transmitToken}`]);
    expect(invitation?.subject).not.toContain(transmitToken);

    const [secret] = await suite.db.query<{ value: Uint8Array }>(
      `select value from instance_secrets where name = 'recipient_links'`,
    );
    const reminder = mailFor(address)[0];
    expect(reminder?.parsed.subject).toMatch(/^Reminder: /);
    const raw = reminder?.raw ?? '';
    expect(raw).not.toContain(tenant.apiKey);
    expect(raw).not.toContain(Buffer.from(secret?.value ?? []).toString('hex'));
    expect(raw).not.toContain(Buffer.from(secret?.value ?? []).toString('base64'));
    expect(reminder?.parsed.subject).not.toContain(transmitToken);
    // The token appears only within the link: once in the text, in the href and as text in the HTML.
    expect((reminder?.parsed.text ?? '').split(transmitToken)).toHaveLength(2);
  });
});

describe('reminders', () => {
  it('go on the default schedule (3 days after the invitation, then every 7) and stop after 3', async () => {
    const address = newAddress();
    const { transactionId } = await create({ noticeEmail: address });
    const start = await databaseNow();

    expect(await notices.runDue(start)).toEqual(counts(1, 0));
    expect(await notices.runDue(later(start, 2.9))).toEqual(counts(0, 0));
    for (const day of [3, 10, 17])
      expect(await notices.runDue(later(start, day)), `day ${day}`).toEqual(counts(0, 1));
    // The sealed token stays for a request for changes or the signed copy, until the link expires (90 days).
    const { nextReminderAt } = await noticeOf(transactionId);
    expect(nextReminderAt?.getTime()).toBeGreaterThan(later(start, 89).getTime());
    expect(await noticeOf(transactionId)).toMatchObject({ sealed: true, remindersSent: 3 });
    expect(await notices.runDue(later(start, 60))).toEqual(counts(0, 0));
    expect(await notices.runDue(later(start, 91))).toEqual(counts(0, 0));
    expect(await noticeOf(transactionId)).toMatchObject({ sealed: false, nextReminderAt: null });

    const subjects = mailFor(address).map((mail) => mail.parsed.subject);
    expect(subjects).toEqual([
      'Test Capital asks you to complete: Fund subscription',
      ...Array<string>(3).fill('Reminder: Test Capital asks you to complete: Fund subscription'),
    ]);
    expect(mailFor(address)[3]?.parsed.text).toContain('A reminder: Test Capital is waiting for you');
  });

  it("follow the template's schedule, pause while the submission is reviewed, resume after request_changes (after its own mail) and stop when complete", async () => {
    const address = newAddress();
    const { transactionId, transmitToken } = await create({ noticeEmail: address, templateId: sideLetterId });
    const start = await databaseNow();
    expect(await notices.runDue(start)).toEqual(counts(1, 0));
    expect(mailFor(address)[0]?.parsed.text).toContain('- Your details');

    // Submitted: the reminder due a day later is skipped, and looked at again two days on.
    await asRecipient(transmitToken, 'PUT', 'items/details', { data: { name: 'Ada' } });
    await asRecipient(transmitToken, 'POST', 'processes/details/submit');
    expect(await notices.runDue(later(start, 1))).toEqual(counts(0, 0));
    expect(await noticeOf(transactionId)).toMatchObject({
      sealed: true,
      remindersSent: 0,
      nextReminderAt: later(start, 3),
    });

    // The sponsor asks for changes (a new revision): its own mail goes at once, and the next check reminds.
    await trigger(transactionId, 'request_changes');
    expect(await notices.runDue(await databaseNow())).toEqual(counts(0, 0, 0, { changesRequested: 1 }));
    expect(await notices.runDue(later(start, 3))).toEqual(counts(0, 1));
    expect(mailFor(address).map((mail) => mail.parsed.subject)).toEqual([
      'Test Capital asks you to complete: Side letter',
      'Test Capital asks for changes: Side letter',
      'Reminder: Test Capital asks you to complete: Side letter',
    ]);

    // Submitted, approved and countersigned: complete, so the signed copy goes, then nothing more and the
    // sealed token is dropped.
    await asRecipient(transmitToken, 'POST', 'processes/details/submit');
    await completeSideLetter(transactionId);
    expect(await notices.runDue(later(start, 5))).toEqual(counts(0, 0, 0, { signedCopies: 1 }));
    expect(await noticeOf(transactionId)).toMatchObject({
      sealed: false,
      invitationDueAt: null,
      nextReminderAt: null,
    });
    expect(await notices.runDue(later(start, 30))).toEqual(counts(0, 0));
    expect(mailFor(address)).toHaveLength(4);
  });
});

describe('sending', () => {
  it('retries a send the SMTP server refused, with backoff, until it goes: nothing is lost and the link is never logged', async () => {
    const refusing = await startRefusingSmtpServer();
    const refusedMailer = smtpMailer(refusing.url);
    const lines: string[] = [];
    const failing = noticesBy(
      refusedMailer,
      pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    );
    try {
      const address = newAddress();
      const { transactionId, transmitToken } = await create({ noticeEmail: address });
      const start = await databaseNow();

      expect(await failing.runDue(start)).toEqual(counts(0, 0, 1));
      const failed = await noticeOf(transactionId);
      expect(failed).toMatchObject({ sealed: true, failures: 1, invitationDueAt: later(start, 1 / 1440) });
      // The console's staff read the server's refusal of the address, which they can correct; where the
      // server is, and the setting that names it, are in the log only.
      expect(failed.lastFailure).toBe('The mail server refused the address: 550 Mailbox unavailable');
      expect(failed.lastFailure).not.toContain(transmitToken);
      expect(await failing.runDue(later(start, 1 / 1440))).toEqual(counts(0, 0, 1));
      // After two failures in a row the next try is 5 minutes on; not before.
      expect((await noticeOf(transactionId)).invitationDueAt).toEqual(later(start, 6 / 1440));
      expect(lines.join('\n')).toContain('recipient mail failed');
      expect(lines.join('\n')).toMatch(
        /"reason":"the SMTP server of PORTICO_SMTP_URL did not take the message: [^"]*550/,
      );
      expect(lines.join('\n')).not.toContain(transmitToken);

      expect(await notices.runDue(later(start, 5 / 1440))).toEqual(counts(0, 0));
      expect(await notices.runDue(later(start, 6 / 1440))).toEqual(counts(1, 0));
      expect(linkIn(await mailTo(smtp, address)).token).toBe(transmitToken);
      expect(await noticeOf(transactionId)).toMatchObject({
        failures: 0,
        lastFailure: null,
        invitationDueAt: null,
      });
      // The transaction's timeline tells the story: queued, failed twice in the mail server's words, then sent.
      const mail = await suite.db.query<{ kind: string; action: string; details: Record<string, string> }>(
        "select kind, action, details from transaction_activity where transaction_id = $1 and kind = 'mail' order by sequence",
        [transactionId],
      );
      expect(mail.map((entry) => entry.action)).toEqual(['queued', 'failed', 'failed']);
      expect(mail[1]?.details).toMatchObject({ message: 'invitation', reason: failed.lastFailure });
      expect(JSON.stringify(mail)).not.toContain(transmitToken);
      const [sent] = await suite.db.query<{ count: number }>(
        "select count(*)::int as count from transaction_events where transaction_id = $1 and event_key = 'mail.invitation'",
        [transactionId],
      );
      expect(sent?.count).toBe(1);
    } finally {
      await failing.stop();
      refusedMailer.close();
      await refusing.close();
    }
  });

  it('sends each message once when two nodes run at the same time', async () => {
    const addresses = [newAddress(), newAddress(), newAddress()];
    for (const noticeEmail of addresses) await create({ noticeEmail });
    const other = noticesBy(mailer);
    try {
      const now = await databaseNow();
      const runs = await Promise.all([notices.runDue(now), other.runDue(now), notices.runDue(now)]);
      expect(runs.reduce((sum, run) => sum + run.invitations, 0)).toBe(3);
    } finally {
      await other.stop();
    }
    await Promise.all(addresses.map((address) => mailTo(smtp, address)));
    // Anything sent twice would have arrived by now, as every run above has finished.
    for (const address of addresses) expect(mailFor(address), address).toHaveLength(1);
  });

  it('coalesces kicks: many at once send what is due, once, and stop() waits for them', async () => {
    const address = newAddress();
    await create({ noticeEmail: address });
    const kicked = noticesBy(mailer);
    for (let kick = 0; kick < 5; kick += 1) kicked.kick();
    await kicked.stop();
    expect(mailFor(address)).toHaveLength(1);
    kicked.kick();
    expect(await notices.runDue()).toEqual(counts(0, 0));
  });
});

describe('an event racing the sender', () => {
  const INVITATION = 'Test Capital asks you to complete: Fund subscription';
  const CANCELLED = 'Cancelled: Fund subscription with Test Capital';

  // Issue 37's campaign: a void within moments of a creation met the sender sending the creation's invitation.
  // An event locks the transaction, then its notice; a sender that took them the other way round deadlocked
  // with it, and PostgreSQL aborted one: the void answered 500, or the sender's record of the invitation rolled
  // back and the invitation went again once its claim ran out. Here the void goes as the SMTP server takes the
  // invitation, and the server answers 5 ms later: the sender records the mail while the void runs, whatever
  // this machine's speed (on PGlite, one connection, the two take turns).
  it(
    'voids 100 transactions (20 on PGlite) while their invitations are being sent, with no error, and mails each investor one invitation and one notice of the void',
    { timeout: 60_000 },
    async () => {
      const smtpServer = await startHoldingSmtpServer();
      const heldMailer = smtpMailer(smtpServer.url);
      const warnings: string[] = [];
      const racing = noticesBy(
        heldMailer,
        pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }),
      );
      const app = await suite.buildApp({ recipientNotices: racing });
      // PGlite runs one statement at a time and cannot deadlock: a fifth of the race checks the mail there.
      const pairs = suite.db.kind === 'postgres' ? 100 : 20;
      const addresses = Array.from({ length: pairs }, () => newAddress());
      const errors: unknown[] = [];
      const transactionIds: string[] = [];
      const createAndVoid = async (address: string) => {
        const held = smtpServer.hold(address);
        const created = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
          input: transactionInput(tenant, { noticeEmail: address }),
        });
        const transactionId = (created.body.data?.createTransaction as { transactionId: string } | undefined)
          ?.transactionId;
        if (created.body.errors || transactionId === undefined) {
          errors.push(created.body.errors);
          held.answer();
          return;
        }
        transactionIds.push(transactionId);
        await held.arrived;
        const voiding = graphql(app, tenant.apiKey, TRIGGER_TRANSACTION_EVENT, {
          input: { transactionId, eventKey: 'void', message: 'The fund closed.' },
        });
        // The stimulus: the mail server takes the invitation while the void runs.
        await new Promise((resolve) => setTimeout(resolve, 5));
        held.answer();
        const voided = await voiding;
        if (voided.body.errors) errors.push(voided.body.errors);
      };
      const remaining = [...addresses];
      const client = async () => {
        for (let address = remaining.shift(); address !== undefined; address = remaining.shift()) {
          await createAndVoid(address);
        }
      };
      try {
        // The first alone (it makes the deployment's secret for links), then four clients side by side.
        const first = remaining.shift();
        if (first !== undefined) await createAndVoid(first);
        await Promise.all([client(), client(), client(), client()]);
      } finally {
        await racing.stop();
      }
      // A claim whose record was lost runs out after 5 minutes, and its message goes again: a run 10 minutes on
      // sends whatever is left.
      const afterClaims = noticesBy(heldMailer);
      await afterClaims.runDue(later(await databaseNow(), 10 / 1440));
      await afterClaims.stop();
      heldMailer.close();
      await smtpServer.close();

      // Every mail that went is in its transaction's events: its record was not rolled back.
      const logged = await suite.db.query<{ eventKey: string; events: number }>(
        `select event_key as "eventKey", count(*)::int as events
       from transaction_events where transaction_id = any($1::uuid[]) and event_key like 'mail.%'
       group by event_key order by event_key`,
        [transactionIds],
      );
      // Told as counts first, so that a failure says how often each outcome happened.
      const mailedOtherwise = addresses
        .map((address) => smtpServer.subjectsTo(address))
        .filter((subjects) => subjects.join('\n') !== [INVITATION, CANCELLED].join('\n'));
      expect({
        errors: errors.length,
        senderFailures: warnings.length,
        investorsMailedOtherwise: mailedOtherwise.length,
        logged,
      }).toEqual({
        errors: 0,
        senderFailures: 0,
        investorsMailedOtherwise: 0,
        logged: [
          { eventKey: 'mail.invitation', events: pairs },
          { eventKey: 'mail.voided', events: pairs },
        ],
      });
      expect(mailedOtherwise).toEqual([]);
    },
  );
});

describe('the mail of a request for changes, of completion and its events', () => {
  /** A side letter for a new address, sent by the kicking app, its invitation received and the letter submitted. */
  async function submittedSideLetter() {
    const address = newAddress();
    const { transactionId, transmitToken } = await create({
      app: kicking,
      noticeEmail: address,
      templateId: sideLetterId,
    });
    await mailTo(smtp, address);
    await submitSideLetter(transmitToken);
    return { address, transactionId, transmitToken };
  }

  it("mails the sponsor's message and the link at once after a request for changes, quoted as text and escaped in the HTML part", async () => {
    const { address, transactionId, transmitToken } = await submittedSideLetter();

    const message = 'Please correct your name.\n<script>alert("x")</script> & sign again';
    await requestChanges(transactionId, message, kicking);
    const mail = await mailTo(smtp, address, { nth: 2 });
    expect(mail.parsed.subject).toBe('Test Capital asks for changes: Side letter');
    expect(linkIn(mail).token).toBe(transmitToken);
    expect((await openLink(transmitToken)).status).toBe(200);
    const { text, html } = partsOf(mail);
    expect(text).toContain(
      'Test Capital writes:\n> Please correct your name.\n> <script>alert("x")</script> & sign again',
    );
    expect(html).toContain(
      '<blockquote>Please correct your name.<br>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; sign again</blockquote>',
    );
    expect(html).not.toContain('<script>');

    await expect
      .poll(() => mailEvents(transactionId), { timeout: 5_000 })
      .toEqual(['mail.invitation by SYSTEM', 'mail.changes_requested by SYSTEM']);
    const { body } = await graphql(suite.app, tenant.apiKey, READ_EVENTS, { id: transactionId });
    expect(body.data?.transaction.events.at(-1)).toEqual({
      eventKey: 'mail.changes_requested',
      sourceStateKey: 'changes',
      targetStateKey: 'changes',
      actorType: 'SYSTEM',
      actorId: null,
    });
  });

  it('mails the recipient on completion a link to their page, which offers the signed copy, and then keeps no token', async () => {
    const { address, transactionId, transmitToken } = await submittedSideLetter();
    await completeSideLetter(transactionId, kicking);

    const mail = await mailTo(smtp, address, { nth: 2 });
    expect(mail.parsed.subject).toBe('Signed by everyone: Side letter with Test Capital');
    expect(mail.parsed.attachments).toEqual([]);
    for (const part of Object.values(partsOf(mail))) expect(part).toContain('Download your signed copy');
    const { token } = linkIn(mail);
    expect(token).toBe(transmitToken);
    const opened = await openLink(token);
    expect(opened.status).toBe(200);
    expect(opened.body.transaction.completedAt).not.toBeNull();
    const signedFile = opened.body.processes[0].documents[0].signedFile as { url: string };
    const download = await suite.app.inject({ method: 'GET', url: signedFile.url });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    await expect
      .poll(() => mailEvents(transactionId), { timeout: 5_000 })
      .toEqual(['mail.invitation by SYSTEM', 'mail.signed_copy by SYSTEM']);
    await expect.poll(() => noticeOf(transactionId), { timeout: 5_000 }).toMatchObject({ sealed: false });
  });

  it('sends a request for changes the mail server refused at first on a retry, and logs it once', async () => {
    const refusing = await startRefusingSmtpServer();
    const refusedMailer = smtpMailer(refusing.url);
    const failing = noticesBy(refusedMailer);
    try {
      const address = newAddress();
      const { transactionId, transmitToken } = await create({
        noticeEmail: address,
        templateId: sideLetterId,
      });
      expect(await notices.runDue(await databaseNow())).toEqual(counts(1, 0));
      await submitSideLetter(transmitToken);
      await requestChanges(transactionId, 'Your name, please.');
      const start = await databaseNow();

      expect(await failing.runDue(start)).toEqual(counts(0, 0, 1));
      expect(await mailEvents(transactionId)).toEqual(['mail.invitation by SYSTEM']);
      expect(await notices.runDue(start)).toEqual(counts(0, 0));
      expect(await notices.runDue(later(start, 1 / 1440))).toEqual(counts(0, 0, 0, { changesRequested: 1 }));
      const mail = await mailTo(smtp, address, { nth: 2 });
      expect(mail.parsed.text).toContain('> Your name, please.');
      expect(await mailEvents(transactionId)).toEqual([
        'mail.invitation by SYSTEM',
        'mail.changes_requested by SYSTEM',
      ]);
      expect(await noticeOf(transactionId)).toMatchObject({ failures: 0, lastFailure: null });
    } finally {
      await failing.stop();
      refusedMailer.close();
      await refusing.close();
    }
  });
});

/** An SMTP server on a free loopback port that refuses every recipient (550). */
async function startRefusingSmtpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: true,
    logger: false,
    onRcptTo(_address, _session, callback) {
      callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(resolve);
      }),
  };
}

/**
 * An SMTP server on a free loopback port that answers every message at once, except the first one to an
 * address held with `hold()`, which it answers when told: what it received, by recipient (read after answering).
 */
async function startHoldingSmtpServer() {
  const subjects = new Map<string, string[]>();
  const reading = new Set<Promise<void>>();
  const holds = new Map<string, { arrived: () => void; answered: Promise<void> }>();
  const server = new SMTPServer({
    hideSTARTTLS: true,
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      // The envelope is the session's until the answer: read it first.
      const to = session.envelope.rcptTo.map((recipient) => recipient.address);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const read = simpleParser(Buffer.concat(chunks)).then((mail) => {
          for (const address of to)
            subjects.set(address, [...(subjects.get(address) ?? []), mail.subject ?? '']);
        });
        reading.add(read);
        const held = to.map((address) => holds.get(address)).find((hold) => hold !== undefined);
        for (const address of to) holds.delete(address);
        held?.arrived();
        void (held?.answered ?? Promise.resolve()).then(() => {
          callback();
        });
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** Holds the answer to the next message to `address`: `arrived` once it came, answered on `answer()`. */
    hold(address: string): { arrived: Promise<void>; answer(): void } {
      let arrived = () => {};
      let answer = () => {};
      const hasArrived = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      holds.set(address, { arrived, answered });
      return { arrived: hasArrived, answer };
    },
    /** The subjects of the messages to `address`, in the order they came (once `close()` resolved). */
    subjectsTo: (address: string): string[] => subjects.get(address) ?? [],
    async close(): Promise<void> {
      await Promise.all(reading);
      await new Promise<void>((resolve) => {
        server.close(resolve);
      });
    },
  };
}
