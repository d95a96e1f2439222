import { createHash, randomBytes } from 'node:crypto';
import type { Database, Queryable } from '../../../db/database.ts';
import { CONSOLE_PATH } from '../links.ts';

/**
 * The "Stop these alerts" links of the digests (RFC 8058 one-click, and a link in the body): 32 random bytes,
 * base64url, whose SHA-256 alone is stored (`alert_stop_tokens`). Each stops every alert of one person of one
 * organization, without signing in, for {@link STOP_LINK_VALID_DAYS} days; using it again says they are stopped.
 */

/** How long a digest's stop link works: long after the mail is read, as mail providers keep the header. */
export const STOP_LINK_VALID_DAYS = 90;
/** A token as {@link issueStopToken} makes them: 43 characters of base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashOf = (token: string) => createHash('sha256').update(token).digest();

/** Where a stop link is: `<transactionsUrl>/console/alerts/stop/<token>`, for GET (a page) and POST (stop). */
export function stopLink(transactionsUrl: string, token: string): string {
  return `${transactionsUrl}${CONSOLE_PATH}/alerts/stop/${token}`;
}

/** Issues a stop link's token for a person, stored as its hash; `now` is the digest job's clock. */
export async function issueStopToken(
  db: Queryable,
  person: { userId: string; organizationId: string; now?: Date | undefined },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `insert into alert_stop_tokens (token_hash, organization_id, user_id, expires_at)
     values ($1, $2, $3, coalesce($4::timestamptz, clock_timestamp()) + make_interval(days => $5))`,
    [hashOf(token), person.organizationId, person.userId, person.now ?? null, STOP_LINK_VALID_DAYS],
  );
  return token;
}

/** What a stop link is: one that works (whose person and organization it names), or why it does not. */
export type StopLinkState =
  | {
      status: 'works';
      email: string;
      organizationName: string;
      /** Whether the person gets no alerts now (stopped by this link or otherwise). */
      stopped: boolean;
    }
  | { status: 'unknown' }
  | { status: 'expired' };

/** Reads what a stop link is, changing nothing (what the page of a GET shows). */
export function readStopLink(db: Queryable, token: string): Promise<StopLinkState> {
  return stateOf(db, token, false);
}

/**
 * Stops every alert of the link's person (their picks are cleared, as if they unticked them all) and marks the
 * link used; a link used before says so again. An unknown or expired link changes nothing.
 */
export function stopAlertsByLink(db: Database, token: string): Promise<StopLinkState> {
  return db.transaction((tx) => stateOf(tx, token, true));
}

async function stateOf(db: Queryable, token: string, stop: boolean): Promise<StopLinkState> {
  if (!TOKEN_PATTERN.test(token)) return { status: 'unknown' };
  const [row] = await db.query<{
    userId: string;
    organizationId: string;
    expired: boolean;
    email: string;
    organizationName: string;
    picked: number | null;
  }>(
    `select s.user_id as "userId", s.organization_id as "organizationId",
       s.expires_at <= clock_timestamp() as expired, u.email, o.name as "organizationName",
       cardinality(p.kinds) as picked
     from alert_stop_tokens s
     join users u on u.id = s.user_id and u.organization_id = s.organization_id
     join organizations o on o.id = s.organization_id
     left join alert_preferences p on p.user_id = s.user_id and p.organization_id = s.organization_id
     where s.token_hash = $1
     ${stop ? 'for update of s' : ''}`,
    [hashOf(token)],
  );
  if (!row) return { status: 'unknown' };
  if (row.expired) return { status: 'expired' };
  const works = { status: 'works' as const, email: row.email, organizationName: row.organizationName };
  if (!stop) return { ...works, stopped: (row.picked ?? 0) === 0 };
  await db.query(
    `update alert_preferences set kinds = '{}', updated_at = clock_timestamp()
     where user_id = $1 and organization_id = $2`,
    [row.userId, row.organizationId],
  );
  await db.query(
    'update alert_stop_tokens set used_at = coalesce(used_at, clock_timestamp()) where token_hash = $1',
    [hashOf(token)],
  );
  return { ...works, stopped: true };
}
