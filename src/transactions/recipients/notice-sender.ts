// Kept as one file: the sender's steps (claim, decide, send, record) read and write the same columns of a claimed
// notice, and their order is what keeps the sender out of deadlocks with the events that queue mail.
import type { Logger } from 'pino';
import type { Database, Transaction } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { open } from '../../keys/sealed-box.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { operatorMessage } from '../../errors.ts';
import {
  changesRequestedMail,
  invitationMail,
  recipientLink,
  reminderMail,
  signedCopyMail,
  voidedMail,
  type RecipientMailFacts,
} from './mail.ts';
import { DUE_COLUMN, NOTICE_TOKEN_SECRET, type MessageKind } from './notice-queue.ts';
import { AWAITS_RECIPIENT } from './turn.ts';
import { DEFAULT_INVITATIONS, type TemplateDefinition } from '../templates/schema.ts';
import { finalStates } from '../workflow.ts';
import { createKickedRuns, type KickedRuns } from '../../jobs/kicked-runs.ts';
import { sendDueEsignNotices } from '../esign/organization-notice.ts';

/**
 * The sender of the recipient mail that notice-queue.ts queues. `sendDueNotices` sends each message after the
 * database transaction that queued it committed, retrying a failed send with backoff. Each message that went is
 * logged as a SYSTEM event of the transaction (`mail.<kind>`, see {@link MAIL_EVENT_PREFIX}). Any number of nodes
 * may run `sendDueNotices` side by side: each claims due rows with `FOR UPDATE SKIP LOCKED` by moving their due
 * time a few minutes on (committed at once, so no row lock is held while the SMTP server answers), sends, then
 * records what it sent in a short database transaction that locks the transaction before its notice, as events
 * do, and is tried again on a deadlock (see {@link record}). A node that dies mid-send leaves its claim to run
 * out; another then sends again (at-least-once).
 *
 * A reminder goes on the template's schedule (`invitations.reminders`, see {@link DEFAULT_INVITATIONS}) only while
 * the recipient has something to do: the transaction is not in a final state and they have something to submit
 * ({@link AWAITS_RECIPIENT}). Once they submitted, a due reminder is skipped (not counted) and looked at again
 * `everyDays` later; if the sponsor then requests changes (a new revision), reminders resume at the next of those
 * checks, up to `max` in all. The sealed token stays while mail may still need the link (a request for changes or
 * the signed copy may come after the last reminder): it is dropped once the signed copy went, the transaction
 * ends in a final state or the link expires (a row with no more reminders is looked at again when its link
 * expires, for that).
 */

const DAY_MS = 86_400_000;
/** How long a failed send waits before its next try, by failures in a row: 1, 5, 15, then every 60 minutes. */
export const NOTICE_RETRY_DELAYS_MS: readonly number[] = [1, 5, 15, 60].map((minutes) => minutes * 60_000);
/**
 * How long a claimed notice belongs to the run that claimed it: far beyond the mailer's timeouts (about 50 s),
 * so that only a run that died leaves its notice to another.
 */
const CLAIM_MS = 5 * 60_000;
/** How many notices one claim takes (and sends side by side). */
const BATCH_SIZE = 10;

/**
 * The `eventKey` of the transaction event that logs a mail that went: `mail.invitation`, `mail.reminder`,
 * `mail.changes_requested`, `mail.signed_copy`, `mail.voided`. The dot keeps it apart from every workflow event (template keys
 * have none).
 */
export const MAIL_EVENT_PREFIX = 'mail.';

/** What a run of {@link sendDueNotices} did. */
export interface NoticeCounts {
  invitations: number;
  reminders: number;
  changesRequested: number;
  signedCopies: number;
  /** Mails telling a recipient their transaction was voided. */
  voids: number;
  /**
   * Mails telling the organization a recipient withdrew consent to sign electronically or asked for paper
   * (esign/organization-notice.ts): one per act, to its assignee or its admins and operators.
   */
  esignNotices: number;
  /** Sends that failed, each to be tried again later. */
  failed: number;
}

const COUNTED: Record<MessageKind, Exclude<keyof NoticeCounts, 'failed' | 'esignNotices'>> = {
  invitation: 'invitations',
  reminder: 'reminders',
  changes_requested: 'changesRequested',
  signed_copy: 'signedCopies',
  voided: 'voids',
};

/** A due notice, claimed, with what its mail says. */
interface ClaimedNotice {
  transactionId: string;
  /** The request that queued the latest message of the row (null for none, e.g. the demo's). */
  requestId: string | null;
  /** The message claimed (when several are due, the first of invitation, changes, signed copy, reminder). */
  kind: MessageKind;
  tokenSealed: Uint8Array;
  /** The invitation follows a reset of the link. */
  linkReplaced: boolean;
  /** What the sponsor said with their request for changes. */
  changesMessage: string | null;
  /** The signed copy is still to be mailed: the token must stay. */
  signedCopyDue: boolean;
  /** The void is still to be mailed: the token must stay. */
  voidedDue: boolean;
  /** Why the organization voided the transaction (null while it is not voided). */
  voidReason: string | null;
  /** The personal line the first invitation quotes (see create-transaction.ts). */
  invitationNote: string | null;
  nextReminderAt: Date | null;
  remindersSent: number;
  failures: number;
  /** The time the run goes by (the `now` it was given, else the database's). */
  now: Date;
  noticeEmail: string;
  noticeName: string;
  state: string;
  completed: boolean;
  expiresAt: Date | null;
  templateName: string;
  definition: TemplateDefinition;
  organizationName: string;
  contactName: string;
  contactEmail: string | null;
  processKeys: string[];
  /** The recipient has something to submit ({@link AWAITS_RECIPIENT}). */
  awaitsRecipient: boolean;
}

/** What becomes of a claimed notice. */
type Step =
  | { kind: 'send' }
  /** Nothing more will be sent: the sealed token goes. */
  | { kind: 'drop' }
  /** Not this message: the transaction is over, and the signed copy or the void is still to go. */
  | { kind: 'clear' }
  /** No reminder now (the recipient has nothing to do, or had every reminder); look again then. */
  | { kind: 'skip'; nextReminderAt: Date };

/** The reminder settings of a template, its gaps filled from {@link DEFAULT_INVITATIONS}. */
export function reminderSettings(definition: TemplateDefinition): {
  afterDays: number;
  everyDays: number;
  max: number;
} {
  return { ...DEFAULT_INVITATIONS.reminders, ...definition.invitations?.reminders };
}

function decide(notice: ClaimedNotice): Step {
  const expired = notice.expiresAt !== null && notice.expiresAt <= notice.now;
  // The signed copy goes once complete, whatever the state: the portal's page offers it while the link works.
  // A void goes whatever the state too: it ends the transaction (the link then shows why).
  if (notice.kind === 'signed_copy' || notice.kind === 'voided')
    return expired ? { kind: 'drop' } : { kind: 'send' };
  const over =
    notice.completed ||
    notice.voidReason !== null ||
    finalStates(notice.definition.workflow).has(notice.state) ||
    expired;
  const stillDue = notice.signedCopyDue || notice.voidedDue;
  if (over) return stillDue && !expired ? { kind: 'clear' } : { kind: 'drop' };
  if (notice.kind !== 'reminder') return { kind: 'send' };
  const { everyDays, max } = reminderSettings(notice.definition);
  // Every reminder went: the token stays for a request for changes or the signed copy, until the link expires.
  if (notice.remindersSent >= max) {
    return notice.expiresAt === null ? { kind: 'drop' } : { kind: 'skip', nextReminderAt: notice.expiresAt };
  }
  if (!notice.awaitsRecipient) {
    return { kind: 'skip', nextReminderAt: new Date(notice.now.getTime() + everyDays * DAY_MS) };
  }
  return { kind: 'send' };
}

/**
 * When the reminders are looked at next after a sent message: the next reminder; after the last, when the link
 * expires (to drop the token then); null when nothing more will be sent.
 */
function nextReminderAfter(notice: ClaimedNotice): Date | null {
  const { afterDays, everyDays, max } = reminderSettings(notice.definition);
  const at = (days: number) => new Date(notice.now.getTime() + days * DAY_MS);
  switch (notice.kind) {
    case 'signed_copy':
    case 'voided':
      return null;
    case 'invitation':
      return max > 0 ? at(afterDays) : notice.expiresAt;
    case 'reminder':
      return notice.remindersSent + 1 < max ? at(everyDays) : notice.expiresAt;
    case 'changes_requested': {
      // The recipient just heard what to do: the next reminder waits as long as one after an invitation would.
      const next = notice.nextReminderAt;
      return next === null ? null : new Date(Math.max(next.getTime(), at(afterDays).getTime()));
    }
  }
}

/**
 * Claims up to `limit` due notices: their due time moves on by {@link CLAIM_MS}, committed at once. It locks
 * notices only, skipping those an event holds, and reads their transactions without a lock: it never waits, so
 * it cannot join a deadlock with an event (which locks the transaction, then the notice).
 */
function claimDue(db: Database, now: Date | undefined, limit: number): Promise<ClaimedNotice[]> {
  return db.query<ClaimedNotice>(
    `with clock as (select coalesce($1::timestamptz, now()) as now),
     due as (
       select n.transaction_id,
         case when n.invitation_due_at <= clock.now then 'invitation'
              when n.changes_due_at <= clock.now then 'changes_requested'
              when n.signed_copy_due_at <= clock.now then 'signed_copy'
              when n.voided_due_at <= clock.now then 'voided'
              else 'reminder' end as kind
       from recipient_notices n, clock
       where n.token_sealed is not null and (n.invitation_due_at <= clock.now or n.changes_due_at <= clock.now
         or n.signed_copy_due_at <= clock.now or n.voided_due_at <= clock.now or n.next_reminder_at <= clock.now)
       order by least(n.invitation_due_at, n.changes_due_at, n.signed_copy_due_at, n.voided_due_at,
         n.next_reminder_at)
       limit $2
       for update of n skip locked
     ),
     claim as (select clock.now + make_interval(secs => $3::float8 / 1000) as until from clock)
     update recipient_notices n set
       invitation_due_at = case when due.kind = 'invitation' then claim.until else n.invitation_due_at end,
       changes_due_at = case when due.kind = 'changes_requested' then claim.until else n.changes_due_at end,
       signed_copy_due_at = case when due.kind = 'signed_copy' then claim.until else n.signed_copy_due_at end,
       voided_due_at = case when due.kind = 'voided' then claim.until else n.voided_due_at end,
       next_reminder_at = case when due.kind = 'reminder' then claim.until else n.next_reminder_at end,
       updated_at = clock_timestamp()
     from due cross join clock cross join claim
       join transactions t on t.id = due.transaction_id
       join templates tp on tp.id = t.template_id
       join organizations o on o.id = t.organization_id
       join entities s on s.id = t.sender_entity_id
     where n.transaction_id = due.transaction_id
     returning n.transaction_id as "transactionId", n.request_id as "requestId", due.kind, n.token_sealed as "tokenSealed",
       n.link_replaced as "linkReplaced", n.changes_message as "changesMessage",
       n.signed_copy_due_at is not null as "signedCopyDue", n.voided_due_at is not null as "voidedDue",
       t.void_reason as "voidReason", t.invitation_note as "invitationNote", n.next_reminder_at as "nextReminderAt",
       n.reminders_sent as "remindersSent", n.failures, clock.now, t.notice_email as "noticeEmail",
       t.notice_name as "noticeName", t.state, t.completed_at is not null as completed,
       t.transmit_token_expires_at as "expiresAt", tp.name as "templateName", tp.definition,
       o.name as "organizationName", s.name as "contactName", s.email as "contactEmail",
       array(select p.key from transaction_processes p where p.transaction_id = t.id
             order by p.created_at, p.sequence) as "processKeys",
       ${AWAITS_RECIPIENT('t')} as "awaitsRecipient"`,
    [now ?? null, limit, CLAIM_MS],
  );
}

/** The columns a step writes, and the values they get. */
type Changes = Record<string, unknown>;

/**
 * SQLSTATEs after which {@link record} runs its short database transaction again: 40P01 deadlock_detected and
 * 40001 serialization_failure. Neither leaves anything written, and the next try usually goes through.
 */
const RETRIED_SQLSTATES = new Set(['40P01', '40001']);
/** How many times {@link record} tries before it gives the error up (the claim then runs out: at-least-once). */
const RECORD_ATTEMPTS = 5;

/** Whether `error`, or an error it was caused by, is one of {@link RETRIED_SQLSTATES}. */
function isRetried(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  return (typeof code === 'string' && RETRIED_SQLSTATES.has(code)) || isRetried(cause, depth + 1);
}

/**
 * Writes what became of a claimed notice, unless its token changed meanwhile (a reset queued a new invitation,
 * which then stays due). With `sent`, the mail that went is logged as an event of the transaction in the same
 * statement, whatever became of the token: the mail went; with `failed`, the failure joins the transaction's
 * activity, in the mail server's words.
 *
 * Locks are taken transaction first, then its notice, as every event that queues mail takes them
 * (`lockTransaction`, then a `queue…` of notice-queue.ts). The record's rows point at the transaction, and
 * their foreign keys take `FOR KEY SHARE` on its row at the end of the statement, after the notice's row is
 * locked: alone, the statement would hold the notice while waiting for an event that holds the transaction and
 * waits for the notice, a deadlock (issue 37). So the transaction's row is locked first, in a short database transaction of
 * its own, which waits for an event under way to commit before it touches the notice. The mail has already
 * gone when this runs: a deadlock or serialization failure that still happens (with a writer that takes
 * another order) is tried again rather than left to roll the record back, which would send the message again
 * once its claim ran out.
 */
async function record(
  db: Database,
  notice: ClaimedNotice,
  changes: Changes,
  outcome?: { sent: MessageKind } | { failed: MessageKind; reason: string; retryAt: Date },
): Promise<void> {
  const columns = Object.keys(changes);
  const assignments = columns.map((column, index) => `${column} = $${index + 5}`);
  const failed = outcome && 'failed' in outcome ? outcome : undefined;
  const write = async (tx: Transaction) => {
    await tx.query('select 1 from transactions where id = $1 for key share', [notice.transactionId]);
    await tx.query(
      `with logged as (
         insert into transaction_events
           (organization_id, transaction_id, event_key, source_state, target_state, actor_type)
         select t.organization_id, t.id, $3, t.state, t.state, 'system' from transactions t
         where t.id = $1 and $3::text is not null),
       failed as (
         insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
         select t.organization_id, t.id, 'mail', 'failed', 'system', $4::jsonb from transactions t
         where t.id = $1 and $4::jsonb is not null)
       update recipient_notices set ${[...assignments, 'updated_at = clock_timestamp()'].join(', ')}
       where transaction_id = $1 and token_sealed = $2`,
      [
        notice.transactionId,
        Buffer.from(notice.tokenSealed),
        outcome && 'sent' in outcome ? `${MAIL_EVENT_PREFIX}${outcome.sent}` : null,
        failed
          ? JSON.stringify({ message: failed.failed, reason: failed.reason, retryAt: failed.retryAt })
          : null,
        ...Object.values(changes),
      ],
    );
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db.transaction(write);
      return;
    } catch (error) {
      if (attempt >= RECORD_ATTEMPTS || !isRetried(error)) throw error;
    }
  }
}

/** What nothing more to send leaves: no token, nothing due. */
const DROPPED: Changes = {
  token_sealed: null,
  invitation_due_at: null,
  changes_due_at: null,
  changes_message: null,
  signed_copy_due_at: null,
  voided_due_at: null,
  next_reminder_at: null,
};

/** What an ended transaction leaves while its signed copy or void is still to go: that alone, with the token. */
const NOT_BUT_THE_SIGNED_COPY: Changes = {
  invitation_due_at: null,
  changes_due_at: null,
  changes_message: null,
  next_reminder_at: null,
};

/** The mail of a notice, with its link on `transactionsUrl`. */
function mailOf(notice: ClaimedNotice, key: Buffer, transactionsUrl: string) {
  const token = open(Buffer.from(notice.tokenSealed), key) as string;
  const titles = new Map(notice.definition.processes.map((process) => [process.key, process.title]));
  const keys = notice.processKeys.length > 0 ? notice.processKeys : [...titles.keys()];
  const facts: RecipientMailFacts = {
    to: notice.noticeEmail,
    noticeName: notice.noticeName,
    organizationName: notice.organizationName,
    templateName: notice.templateName,
    asked: keys.map((key) => titles.get(key) ?? key),
    contact: { name: notice.contactName, email: notice.contactEmail },
    link: recipientLink(transactionsUrl, token),
    // A link without an end (made before links expired) is shown as working for the default time.
    expiresAt:
      notice.expiresAt ?? new Date(notice.now.getTime() + DEFAULT_INVITATIONS.linkValidDays * DAY_MS),
  };
  const mail = {
    invitation: () =>
      invitationMail(facts, { linkReplaced: notice.linkReplaced, note: notice.invitationNote }),
    reminder: () => reminderMail(facts),
    changes_requested: () => changesRequestedMail(facts, { message: notice.changesMessage }),
    signed_copy: () => signedCopyMail(facts),
    voided: () => voidedMail(facts, { reason: notice.voidReason ?? '' }),
  }[notice.kind]();
  return { token, mail };
}

/** What a sent message leaves on its row: its own due time cleared, and the reminders' next look. */
function afterSent(notice: ClaimedNotice): Changes {
  // The signed copy is the last message, and so is a void unless the signed copy is still to go: the sealed
  // token goes once nothing more will be sent.
  if (notice.kind === 'signed_copy') return notice.voidedDue ? { signed_copy_due_at: null } : DROPPED;
  if (notice.kind === 'voided') return notice.signedCopyDue ? { voided_due_at: null } : DROPPED;
  const own: Changes = {
    invitation: { invitation_due_at: null, invited_at: notice.now, reminders_sent: 0, link_replaced: false },
    reminder: { reminders_sent: notice.remindersSent + 1 },
    changes_requested: { changes_due_at: null, changes_message: null },
  }[notice.kind];
  const next = nextReminderAfter(notice);
  return { ...own, ...(next === null ? DROPPED : { next_reminder_at: next }) };
}

/** What the log lines of a notice's mail say of it: which message, of which transaction, queued by which request. */
function logFieldsOf(notice: ClaimedNotice) {
  return {
    requestId: notice.requestId ?? undefined,
    transactionId: notice.transactionId,
    message: notice.kind,
  };
}

/** A reason a send failed, cut short and without the link's token. */
function failureText(text: string, token: string | undefined): string {
  return (token === undefined ? text : text.replaceAll(token, '…')).slice(0, 500);
}

/**
 * Sends the recipient mail due (at `now`, else by the database's clock), batch after batch until none is left,
 * with the organization's mail about recipients' consent to sign electronically (esign/organization-notice.ts),
 * and returns how many went and how many failed. A failed send is recorded (`failures`,
 * `last_failure`) and tried again after {@link NOTICE_RETRY_DELAYS_MS}; it is logged as a warning without the
 * link. Safe to run on any number of nodes at once.
 *
 * @example
 * const counts = await sendDueNotices(db, { mailer, transactionsUrl: 'https://tx.example.com' });
 * // { invitations: 1, reminders: 0, failed: 0 }
 */
export async function sendDueNotices(
  db: Database,
  options: { mailer: Mailer; transactionsUrl: string; logger?: Logger | undefined; now?: Date | undefined },
): Promise<NoticeCounts> {
  const counts: NoticeCounts = {
    invitations: 0,
    reminders: 0,
    changesRequested: 0,
    signedCopies: 0,
    voids: 0,
    esignNotices: 0,
    failed: 0,
  };
  // The organization's mail about a withdrawal or a request for paper goes with the recipients' own.
  const esign = await sendDueEsignNotices(db, options);
  counts.esignNotices = esign.sent;
  counts.failed += esign.failed;
  let key: Buffer | undefined;
  for (;;) {
    // Every claim moves its notices' due time past `now`, so each batch holds new ones and the loop ends.
    const claimed = await claimDue(db, options.now, BATCH_SIZE);
    if (claimed.length === 0) return counts;
    key ??= await loadInstanceSecret(db, NOTICE_TOKEN_SECRET);
    const secret = key;
    const results = await Promise.allSettled(
      claimed.map(async (notice) => {
        const step = decide(notice);
        if (step.kind === 'drop') return record(db, notice, DROPPED);
        if (step.kind === 'clear') return record(db, notice, NOT_BUT_THE_SIGNED_COPY);
        if (step.kind === 'skip') return record(db, notice, { next_reminder_at: step.nextReminderAt });
        let token: string | undefined;
        try {
          const made = mailOf(notice, secret, options.transactionsUrl);
          token = made.token;
          await options.mailer.send({ ...made.mail, log: logFieldsOf(notice) });
        } catch (error) {
          counts.failed += 1;
          const failures = notice.failures + 1;
          const delay =
            NOTICE_RETRY_DELAYS_MS[Math.min(failures, NOTICE_RETRY_DELAYS_MS.length) - 1] ?? 60_000;
          const retryAt = new Date(notice.now.getTime() + delay);
          // The log has the operators' reason (the server's answer, its host); the console's staff read the
          // client's (the server's refusal of the address, which they can correct).
          const reason = failureText(operatorMessage(error), token);
          const shown = failureText(error instanceof Error ? error.message : String(error), token);
          options.logger?.warn(
            { ...logFieldsOf(notice), failures, retryAt, reason },
            'recipient mail failed; trying again later',
          );
          return record(
            db,
            notice,
            { failures, last_failure: shown, [DUE_COLUMN[notice.kind]]: retryAt },
            { failed: notice.kind, reason: shown, retryAt },
          );
        }
        counts[COUNTED[notice.kind]] += 1;
        return record(
          db,
          notice,
          { ...afterSent(notice), failures: 0, last_failure: null },
          { sent: notice.kind },
        );
      }),
    );
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** The sender of recipient mail in a running service. */
/**
 * The sender of recipient mail: `kick()` after a mutation that may have queued mail committed; `runDue(now)`
 * sends what is due at `now` (default: the database's clock) and says what went.
 */
export type RecipientNotices = KickedRuns<NoticeCounts>;

/** What a {@link RecipientNotices} sends with. */
export interface RecipientNoticesOptions {
  db: Database;
  mailer: Mailer;
  /** The Transactions service's public base address, for the links; a function when it is known later. */
  transactionsUrl: string | (() => string);
  logger?: Logger | undefined;
  /** How often due mail is looked for; 0 for never (only `kick()` and `runDue()`). @default 60000 */
  intervalMs?: number;
}

/**
 * Sends recipient mail every `intervalMs` (an unref'd timer: it never keeps the process alive) and whenever
 * kicked.
 *
 * @example
 * const notices = createRecipientNotices({ db, mailer, transactionsUrl: 'https://localhost:4000', logger });
 * const app = await buildTransactionsApp({ ...deps, recipientNotices: notices });
 * // …
 * await notices.stop();
 */
export function createRecipientNotices(options: RecipientNoticesOptions): RecipientNotices {
  const { db, mailer, logger } = options;
  const url = options.transactionsUrl;
  return createKickedRuns({
    run: (now) =>
      sendDueNotices(db, { mailer, transactionsUrl: typeof url === 'function' ? url() : url, logger, now }),
    intervalMs: options.intervalMs ?? 60_000,
    onError: (error) => {
      logger?.warn({ err: error }, 'sending recipient mail failed; trying again in a minute');
    },
  });
}
