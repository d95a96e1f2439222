import type { Logger } from 'pino';
import type { Database } from '../../db/database.ts';
import { operatorMessage } from '../../errors.ts';
import type { MailMessage, Mailer } from '../../mail/mailer.ts';
import { escapeHtml as html, formatWhen as when } from '../../mail/message-text.ts';
import { CONSOLE_PATH } from '../console/links.ts';

/**
 * Tells the organization that a recipient withdrew their consent to use electronic records and signatures, or
 * asked for paper (consent.ts queues it: `esign_consents.notice_due_at`): a mail to the person who looks after the
 * transaction (its assignee), or, with no one assigned, to every admin and operator of the organization. The
 * recipient notices' runs send it (recipients/notice-sender.ts), after the act committed, in the way they send
 * the recipient's own mail: a run claims due rows with `FOR UPDATE SKIP LOCKED`, moving their due time on by
 * {@link CLAIM_MS} (committed at once), mails, then records what went. A failed send is tried again after
 * {@link RETRY_MS}; a run that died leaves its claim to run out. Delivery is at-least-once: a person may get the
 * same mail twice when another's failed.
 */

/** How long a claimed notice belongs to the run that claimed it: far beyond the mailer's timeouts (about 50 s). */
const CLAIM_MS = 5 * 60_000;
/** How long a failed send waits before it is tried again. */
const RETRY_MS = 5 * 60_000;
/** How many notices one claim takes. */
const BATCH_SIZE = 10;

/** What a run of {@link sendDueEsignNotices} did. */
export interface EsignNoticeCounts {
  /** Notices whose mail went to everyone it was for. */
  sent: number;
  /** Notices whose mail failed, each tried again later. */
  failed: number;
}

interface ClaimedNotice {
  id: string;
  transactionId: string;
  act: 'withdrawn' | 'paper_requested';
  message: string | null;
  at: Date;
  requestId: string | null;
  failures: number;
  now: Date;
  investorName: string;
  templateName: string;
  organizationName: string;
  to: string[];
}

/** The mail of one notice to one person, with the link to the transaction's page in the console. */
export function esignNoticeMail(
  notice: Pick<
    ClaimedNotice,
    'act' | 'message' | 'at' | 'investorName' | 'templateName' | 'organizationName'
  >,
  options: { to: string; link: string },
): MailMessage {
  const { investorName: who, templateName: what } = notice;
  const did =
    notice.act === 'paper_requested'
      ? `${who} asked to sign on paper instead of electronically`
      : `${who} withdrew their consent to use electronic records and signatures`;
  const intro = `${did} for ${what}, on ${when(notice.at)}.`;
  const after =
    'Their link no longer takes signatures until they agree again. Contact them to go on on paper; a person of the console can then run their step on their behalf with the signed paper form.';
  const said = notice.message === null ? null : `They wrote: “${notice.message}”`;
  return {
    to: options.to,
    subject:
      notice.act === 'paper_requested'
        ? `${who} asked to sign on paper: ${what}`
        : `${who} withdrew consent to sign electronically: ${what}`,
    text:
      [intro, ...(said === null ? [] : [said]), after, `The transaction: ${options.link}`].join('\n\n') +
      '\n',
    html: [
      `<p>${html(intro)}</p>`,
      ...(said === null ? [] : [`<p>${html(said)}</p>`]),
      `<p>${html(after)}</p>`,
      `<p><a href="${html(options.link)}">Open the transaction</a> (${html(options.link)})</p>`,
    ].join('\n'),
    links: [options.link],
  };
}

/** Claims up to `limit` due notices, moving their due time on by {@link CLAIM_MS} (committed at once). */
function claimDue(db: Database, now: Date | undefined, limit: number): Promise<ClaimedNotice[]> {
  return db.query<ClaimedNotice>(
    `with clock as (select coalesce($1::timestamptz, now()) as now),
     due as (
       select c.id from esign_consents c, clock where c.notice_due_at <= clock.now
       order by c.notice_due_at limit $2 for update of c skip locked)
     update esign_consents c set notice_due_at = clock.now + make_interval(secs => $3::float8 / 1000)
     from due cross join clock, transactions t join templates tp on tp.id = t.template_id
       join organizations o on o.id = t.organization_id
     where c.id = due.id and t.id = c.transaction_id and t.organization_id = c.organization_id
     returning c.id, c.transaction_id as "transactionId", c.act, c.message, c.created_at as at,
       c.request_id as "requestId", c.notice_failures as failures, clock.now,
       coalesce(t.investor_name, t.notice_name) as "investorName", tp.name as "templateName",
       o.name as "organizationName",
       coalesce(
         (select array[u.email] from users u where u.id = t.assignee_user_id and u.organization_id = t.organization_id
            and u.deactivated_at is null),
         array(select u.email from users u where u.organization_id = t.organization_id and u.deactivated_at is null
                 and u.role in ('admin', 'operator') order by u.created_at, u.sequence)) as "to"`,
    [now ?? null, limit, CLAIM_MS],
  );
}

/**
 * Mails the organizations' notices due (at `now`, else by the database's clock), batch after batch, and records
 * each: sent (`notified_at`, and a `mail` entry in the transaction's timeline naming who got it) or failed (tried
 * again after {@link RETRY_MS}, the failure in the timeline). A notice with no one to tell (no admin or operator
 * left) is recorded as done, without a mail in the timeline: the console's page shows the act all the same.
 */
export async function sendDueEsignNotices(
  db: Database,
  options: { mailer: Mailer; transactionsUrl: string; logger?: Logger | undefined; now?: Date | undefined },
): Promise<EsignNoticeCounts> {
  const counts: EsignNoticeCounts = { sent: 0, failed: 0 };
  for (;;) {
    const claimed = await claimDue(db, options.now, BATCH_SIZE);
    if (claimed.length === 0) return counts;
    for (const notice of claimed) {
      const link = `${options.transactionsUrl}${CONSOLE_PATH}/transactions/${notice.transactionId}`;
      const message = notice.act === 'paper_requested' ? 'paper_requested' : 'consent_withdrawn';
      try {
        for (const to of notice.to) {
          await options.mailer.send({
            ...esignNoticeMail(notice, { to, link }),
            log: { requestId: notice.requestId ?? undefined, transactionId: notice.transactionId, message },
          });
        }
      } catch (error) {
        counts.failed += 1;
        const retryAt = new Date(notice.now.getTime() + RETRY_MS);
        const reason = operatorMessage(error).slice(0, 500);
        options.logger?.warn(
          { transactionId: notice.transactionId, message, retryAt, reason },
          'mail to the organization failed; trying again later',
        );
        await db.query(
          `with failed as (
             update esign_consents set notice_due_at = $2, notice_failures = notice_failures + 1 where id = $1
             returning organization_id, transaction_id)
           insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
           select organization_id, transaction_id, 'mail', 'failed', 'system', $3::jsonb from failed`,
          [
            notice.id,
            retryAt,
            JSON.stringify({
              message,
              reason: error instanceof Error ? error.message : String(error),
              retryAt,
            }),
          ],
        );
        continue;
      }
      if (notice.to.length > 0) counts.sent += 1;
      // With no one to tell, nothing went: the timeline says nothing of a mail.
      await db.query(
        `with sent as (
           update esign_consents set notice_due_at = null, notice_failures = 0, notified_at = clock_timestamp()
           where id = $1 returning organization_id, transaction_id)
         insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, details)
         select organization_id, transaction_id, 'mail', 'sent', 'system', $2::jsonb from sent where $3`,
        [notice.id, JSON.stringify({ message, to: notice.to }), notice.to.length > 0],
      );
    }
  }
}
