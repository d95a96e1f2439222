import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.ts';

/**
 * How long a surface's sessions last without a request (each request moves it on), and at most after signing in.
 * Each signed-in surface is given its own (`SignedInSurface.sessionLimits`).
 */
export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

/** The defaults of PORTICO_SESSION_IDLE_MINUTES (2 hours) and PORTICO_SESSION_MAX_HOURS (12). */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleMs: 2 * 3600 * 1000,
  absoluteMs: 12 * 3600 * 1000,
};

/** The limits of a config's PORTICO_SESSION_IDLE_MINUTES and PORTICO_SESSION_MAX_HOURS, defaults where unset. */
export function sessionLimitsOf(config: {
  sessionIdleMinutes?: number;
  sessionMaxHours?: number;
}): SessionLimits {
  return {
    idleMs:
      config.sessionIdleMinutes === undefined
        ? DEFAULT_SESSION_LIMITS.idleMs
        : config.sessionIdleMinutes * 60_000,
    absoluteMs:
      config.sessionMaxHours === undefined
        ? DEFAULT_SESSION_LIMITS.absoluteMs
        : config.sessionMaxHours * 3600_000,
  };
}
/** How long after signing in a session's row may be created (see `sessionWriter`). */
const FRESH_SIGN_IN_MS = 60_000;

/** What a session holds, as the session middleware keeps it: its cookie, its CSRF secret and who signed in. */
export interface SessionData {
  cookie: { expires?: Date | string | null };
  /** The signed-in user, and when they signed in (ms since the epoch); absent before sign-in. */
  userId?: string;
  signedInAt?: number;
  /** `sso` when the person signed in through their identity provider, whose own factors then apply. */
  signedInThrough?: 'sso';
  /** Shown on the person's list of sessions: its public id (never its secret), browser and address at sign-in. */
  publicId?: string;
  userAgent?: string;
  ipAddress?: string;
  /** The person of a sign-in half done (a second factor still to come), who is not signed in. */
  pendingUserId?: string;
}

/** The signed-in part of a session: undefined when no one signed in, or longer ago than the absolute limit. */
export function signedInPart(
  session: { userId?: unknown; signedInAt?: unknown },
  limits: SessionLimits,
): { userId: string; signedInAt: number } | undefined {
  const { userId, signedInAt } = session;
  if (typeof userId !== 'string' || typeof signedInAt !== 'number') return undefined;
  return Date.now() - signedInAt < limits.absoluteMs ? { userId, signedInAt } : undefined;
}

/** Sessions are known by the SHA-256 of their id: the id lives only in the person's cookie. */
export const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest();

/**
 * A session by id, or undefined once past its idle expiry. One signed in longer ago than the absolute limit
 * comes back without its user (the person signs in again; its CSRF secret stays).
 */
export async function readSession(
  db: Queryable,
  sessionId: string,
  limits: SessionLimits,
): Promise<SessionData | undefined> {
  const [row] = await db.query<{ data: SessionData }>(
    'select data from user_sessions where id_hash = $1 and expires_at > clock_timestamp()',
    [hashOf(sessionId)],
  );
  if (!row) return undefined;
  if (row.data.userId !== undefined && !signedInPart(row.data, limits)) {
    const { cookie } = row.data;
    return { ...row.data, cookie, userId: undefined, signedInAt: undefined };
  }
  return row.data;
}

/**
 * Writes a session, expiring the idle limit from now. A signed-in session is
 * written anew only just after signing in; later writes update its row and never put it back, so a request
 * still running when the person's sessions were ended (a new password, a removal) cannot revive its session.
 * A half-done sign-in's row names its person too, so that what ends their sessions ends it as well. Expired rows
 * are deleted every hundredth write. Its last activity, shown on the person's list, moves at most once a minute.
 */
export function sessionWriter(
  db: Queryable,
  limits: SessionLimits,
): (sessionId: string, session: SessionData) => Promise<void> {
  let writes = 0;
  return async (sessionId, session) => {
    const expiresAt = new Date(Date.now() + limits.idleMs);
    const fresh =
      session.userId === undefined ||
      (session.signedInAt !== undefined && Date.now() - session.signedInAt < FRESH_SIGN_IN_MS);
    await db.query(
      fresh
        ? `insert into user_sessions (id_hash, user_id, data, expires_at, public_id, user_agent, ip_address)
           values ($1, $2, $3, $4, $5, $6, $7)
           on conflict (id_hash) do update set user_id = excluded.user_id, data = excluded.data,
             expires_at = excluded.expires_at, public_id = excluded.public_id,
             user_agent = excluded.user_agent, ip_address = excluded.ip_address,
             last_active_at = clock_timestamp()`
        : `update user_sessions set data = $3, expires_at = $4,
             last_active_at = case when last_active_at < clock_timestamp() - interval '1 minute'
               then clock_timestamp() else last_active_at end
           where id_hash = $1 and user_id = $2`,
      [
        hashOf(sessionId),
        session.userId ?? session.pendingUserId ?? null,
        JSON.stringify(session),
        expiresAt,
        ...(fresh ? [session.publicId ?? null, session.userAgent ?? null, session.ipAddress ?? null] : []),
      ],
    );
    writes += 1;
    if (writes % 100 === 0) await db.query('delete from user_sessions where expires_at <= clock_timestamp()');
  };
}

/** Ends one session (signing out). */
export async function deleteSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('delete from user_sessions where id_hash = $1', [hashOf(sessionId)]);
}

/** Ends every session of a user (a new password, a removal): each of their browsers must sign in again. */
export async function endSessionsOf(db: Queryable, userId: string): Promise<void> {
  await db.query('delete from user_sessions where user_id = $1', [userId]);
}

/**
 * Ends every session of these users but the one of `keptSessionId` (a password changed from a signed-in page:
 * the browser that changed it stays signed in), and answers how many ended.
 */
export async function endOtherSessionsOf(
  db: Queryable,
  userIds: readonly string[],
  keptSessionId: string,
): Promise<number> {
  // Every other row goes; only those that still signed someone in count (an expired one ended already, a
  // half-done sign-in never began).
  const [ended] = await db.query<{ live: number }>(
    `with ended as (
       delete from user_sessions where user_id = any($1::uuid[]) and id_hash <> $2
       returning expires_at > clock_timestamp() and data ? 'userId' as live)
     select count(*) filter (where live)::int as live from ended`,
    [userIds, hashOf(keptSessionId)],
  );
  return ended?.live ?? 0;
}

/** A session as something long-lived (a console's live stream) holds it: its id and whom it signed in. */
export interface HeldSession {
  sessionId: string;
  userId: string;
}

/**
 * Which of these sessions still sign their person in, by id: the session was not ended (signing out, a new
 * password, a removal), is within its idle and absolute limits, still names the same user, and that user is
 * active (not deactivated). One query by primary key for all of them, so a node checks every stream it holds
 * at once.
 */
export async function stillSignedIn(
  db: Queryable,
  sessions: readonly HeldSession[],
  limits: SessionLimits,
): Promise<Set<string>> {
  if (sessions.length === 0) return new Set();
  const byHash = new Map(sessions.map((session) => [hashOf(session.sessionId).toString('hex'), session]));
  const rows = await db.query<{ hash: string; userId: string; data: SessionData }>(
    `select encode(s.id_hash, 'hex') as hash, s.user_id as "userId", s.data
     from user_sessions s join users u on u.id = s.user_id
     where s.id_hash in (select decode(h, 'hex') from unnest($1::text[]) as h)
       and s.expires_at > clock_timestamp() and u.password_hash is not null and u.deactivated_at is null`,
    [[...byHash.keys()]],
  );
  const live = new Set<string>();
  for (const row of rows) {
    const held = byHash.get(row.hash);
    if (held && row.userId === held.userId && signedInPart(row.data, limits)?.userId === held.userId) {
      live.add(held.sessionId);
    }
  }
  return live;
}
