import type { Logger } from 'pino';
import type { Database } from '../../../db/database.ts';
import { operatorMessage } from '../../../errors.ts';
import { createKickedRuns, type KickedRuns } from '../../../jobs/kicked-runs.ts';
import type { Mailer } from '../../../mail/mailer.ts';
import { ALERT_KINDS, DIGEST_EVERY_MS, type AlertKind } from './alert-kinds.ts';
import { digestContent } from './digest.ts';
import { digestMail } from './digest-mail.ts';
import { issueStopToken, stopLink } from './stop-tokens.ts';

/**
 * The digest job: mails each person of the console who picked alerts (preferences.ts) what happened in their
 * organization since their last digest (digest.ts), at most once every quarter of an hour ({@link
 * DIGEST_EVERY_MS}). It is kept in the database, and safe on any number of nodes:
 *
 * 1. a run claims the people who are due with `FOR UPDATE SKIP LOCKED`, moving their `claimed_until` on by
 *    {@link CLAIM_MS} in a statement committed at once, so no row lock is held while the SMTP server answers and
 *    no other node makes the same digest;
 * 2. it reads what happened after the person's cursor (`through`) up to a few seconds ago (`settleMs`: a
 *    submission's database transaction may commit a moment after the time it records), and mails it;
 * 3. it records the digest (`alert_digests`) and moves the cursor past what it listed, in one database
 *    transaction. Nothing happened of a kind they picked: the cursor moves, and nothing is mailed.
 *
 * Delivery is at-least-once: a send that fails leaves the cursor where it was and is tried again after
 * {@link RETRY_MS}, so nothing is lost; a node that dies after the SMTP server took the digest but before its
 * record committed leaves its claim to run out, and another node then mails the same events again. A stop or a
 * restart waits for the runs under way (`stop()`), so neither loses nor repeats anything.
 */

/** How long a claimed person belongs to the run that claimed them: far beyond the mailer's timeouts (about 50 s). */
const CLAIM_MS = 5 * 60_000;
/** How long a failed send waits before it is tried again. */
const RETRY_MS = 5 * 60_000;
/** How many people one claim takes (and mails side by side). */
const BATCH_SIZE = 10;
/** How long before a run's time what it lists must have happened: long enough for its database transaction to commit. */
const SETTLE_MS = 30_000;
/** How long past its expiry a stop link's row is kept (to say "expired" rather than "unknown" for a day). */
const EXPIRED_TOKENS_KEPT_MS = 86_400_000;

/** What a run of {@link sendDueDigests} did. */
export interface DigestCounts {
  /** Digests mailed. */
  sent: number;
  /** Events they listed. */
  events: number;
  /** People looked at with nothing new of a kind they picked. */
  nothingNew: number;
  /** Sends that failed, each tried again later. */
  failed: number;
}

/** The timing of the digests; tests shorten them rather than sleep. */
export interface DigestTiming {
  /** At most one digest per person in this time. @default DIGEST_EVERY_MS (15 minutes) */
  everyMs?: number | undefined;
  /** How long before a run's time what it lists must have happened. @default 30 s */
  settleMs?: number | undefined;
}

/** A person claimed for a digest, with the window it lists. */
interface ClaimedPerson {
  userId: string;
  organizationId: string;
  email: string;
  name: string;
  organizationName: string;
  kinds: string[];
  since: Date;
  through: Date;
  now: Date;
  claimedUntil: Date;
}

function claimDue(
  db: Database,
  now: Date | undefined,
  timing: Required<DigestTiming>,
): Promise<ClaimedPerson[]> {
  return db.query<ClaimedPerson>(
    `with clock as (select coalesce($1::timestamptz, now()) as now),
     due as (
       select p.user_id
       from alert_preferences p
       join users u on u.id = p.user_id and u.organization_id = p.organization_id
       cross join clock
       where cardinality(p.kinds) > 0 and u.deactivated_at is null
         and (p.claimed_until is null or p.claimed_until <= clock.now)
         and (p.last_sent_at is null or p.last_sent_at <= clock.now - make_interval(secs => $3::float8 / 1000))
         and p.through < clock.now - make_interval(secs => $4::float8 / 1000)
       order by p.through
       limit $2
       for update of p skip locked
     )
     update alert_preferences p
     set claimed_until = clock.now + make_interval(secs => $5::float8 / 1000)
     from due, clock, users u, organizations o
     where p.user_id = due.user_id and u.id = p.user_id and o.id = p.organization_id
     returning p.user_id as "userId", p.organization_id as "organizationId", u.email, u.name,
       o.name as "organizationName", p.kinds, p.through as since,
       clock.now - make_interval(secs => $4::float8 / 1000) as through, clock.now,
       p.claimed_until as "claimedUntil"`,
    [now ?? null, BATCH_SIZE, timing.everyMs, timing.settleMs, CLAIM_MS],
  );
}

/** Moves a person's cursor past what was looked at, and gives their claim up; with `sent`, records the digest. */
async function record(
  db: Database,
  person: ClaimedPerson,
  sent?: { events: number; messageId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    if (sent) {
      await tx.query(
        `insert into alert_digests (organization_id, user_id, since, through, events, message_id)
         values ($1, $2, $3, $4, $5, $6)`,
        [person.organizationId, person.userId, person.since, person.through, sent.events, sent.messageId],
      );
    }
    await tx.query(
      `update alert_preferences set through = greatest(through, $2),
         last_sent_at = case when $3 then greatest(last_sent_at, $4) else last_sent_at end,
         claimed_until = case when claimed_until = $5 then null else claimed_until end
       where user_id = $1`,
      [person.userId, person.through, sent !== undefined, person.now, person.claimedUntil],
    );
  });
}

/** Sends one claimed person's digest, if anything happened; says what it did. */
async function digestOf(
  db: Database,
  person: ClaimedPerson,
  options: { mailer: Mailer; transactionsUrl: string; logger?: Logger | undefined },
): Promise<'nothingNew' | 'failed' | { events: number }> {
  const kinds = ALERT_KINDS.filter((kind) => person.kinds.includes(kind)) satisfies AlertKind[];
  const content = await digestContent(db, {
    organizationId: person.organizationId,
    since: person.since,
    through: person.through,
    kinds,
  });
  if (content.length === 0) {
    await record(db, person);
    return 'nothingNew';
  }
  const events = content.reduce((sum, group) => sum + group.total, 0);
  const log = { userId: person.userId, organizationId: person.organizationId, message: 'alert_digest' };
  let messageId: string;
  try {
    const token = await issueStopToken(db, person);
    const sent = await options.mailer.send({
      ...digestMail({
        to: person.email,
        personName: person.name,
        organizationName: person.organizationName,
        content,
        through: person.through,
        transactionsUrl: options.transactionsUrl,
        stopUrl: stopLink(options.transactionsUrl, token),
      }),
      log,
    });
    messageId = sent.messageId;
  } catch (error) {
    const retryAt = new Date(person.now.getTime() + RETRY_MS);
    options.logger?.warn(
      { ...log, retryAt, reason: operatorMessage(error) },
      'alert digest not sent; trying again later',
    );
    await db.query(
      'update alert_preferences set claimed_until = $2 where user_id = $1 and claimed_until = $3',
      [person.userId, retryAt, person.claimedUntil],
    );
    return 'failed';
  }
  await record(db, person, { events, messageId });
  return { events };
}

/**
 * Mails every digest due (at `now`, else by the database's clock), batch after batch until no one is left, and
 * says what it did. Safe to run on any number of nodes at once.
 *
 * @example
 * const counts = await sendDueDigests(db, { mailer, transactionsUrl: 'https://tx.example.com' });
 * // { sent: 1, events: 40, nothingNew: 3, failed: 0 }
 */
export async function sendDueDigests(
  db: Database,
  options: {
    mailer: Mailer;
    transactionsUrl: string;
    logger?: Logger | undefined;
    now?: Date | undefined;
  } & DigestTiming,
): Promise<DigestCounts> {
  const timing = { everyMs: options.everyMs ?? DIGEST_EVERY_MS, settleMs: options.settleMs ?? SETTLE_MS };
  const counts: DigestCounts = { sent: 0, events: 0, nothingNew: 0, failed: 0 };
  await db.query(
    `delete from alert_stop_tokens
     where expires_at < coalesce($1::timestamptz, now()) - make_interval(secs => $2::float8 / 1000)`,
    [options.now ?? null, EXPIRED_TOKENS_KEPT_MS],
  );
  for (;;) {
    // Every claim moves its people's claim past `now`, so each batch holds others and the loop ends.
    const claimed = await claimDue(db, options.now, timing);
    if (claimed.length === 0) return counts;
    const results = await Promise.allSettled(claimed.map((person) => digestOf(db, person, options)));
    for (const result of results) {
      if (result.status === 'rejected') throw result.reason;
      const done = result.value;
      if (typeof done === 'object') {
        counts.sent += 1;
        counts.events += done.events;
      } else if (done === 'nothingNew') counts.nothingNew += 1;
      else counts.failed += 1;
    }
  }
}

/** The digest job in a running service: `kick()` to run soon, `runDue(now)` to run now and say what it did. */
export type AlertDigests = KickedRuns<DigestCounts>;

/** What an {@link AlertDigests} runs with. */
export interface AlertDigestsOptions extends DigestTiming {
  db: Database;
  mailer: Mailer;
  /** The Transactions service's public base address, for the links; a function when it is known later. */
  transactionsUrl: string | (() => string);
  logger?: Logger | undefined;
  /** How often due digests are looked for; 0 for never (only `kick()` and `runDue()`). @default 60000 */
  intervalMs?: number | undefined;
}

/**
 * Mails the console's alert digests every `intervalMs` (an unref'd timer: it never keeps the process alive).
 *
 * @example
 * const digests = createAlertDigests({ db, mailer, transactionsUrl: () => 'https://tx.example.com', logger });
 * // …
 * await digests.stop();
 */
export function createAlertDigests(options: AlertDigestsOptions): AlertDigests {
  const { db, mailer, logger } = options;
  const url = options.transactionsUrl;
  return createKickedRuns({
    run: (now) =>
      sendDueDigests(db, {
        mailer,
        transactionsUrl: typeof url === 'function' ? url() : url,
        logger,
        now,
        everyMs: options.everyMs,
        settleMs: options.settleMs,
      }),
    intervalMs: options.intervalMs ?? 60_000,
    onError: (error) => {
      logger?.warn({ err: error }, 'sending alert digests failed; trying again in a minute');
    },
  });
}
