import type { Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { TENANT_TABLES } from './tenant-tables.ts';
import { hashOf, type SessionLimits } from './sessions.ts';

/** One of a person's sessions as their "Sessions" page shows it. */
export interface SessionSummary {
  /** A random id naming the session to its person: never its secret, nor the hash it is kept under. */
  id: string;
  browser: string;
  ipAddress: string | null;
  startedAt: string;
  lastActiveAt: string;
  current: boolean;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
  [/curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Windows/, 'Windows'],
  [/Linux/, 'Linux'],
];

/**
 * A User-Agent in a few words, e.g. "Chrome on macOS": enough for a person to know their own browsers, not a
 * full parser (the order matters: Edge and Opera also say Chrome, Chrome also says Safari).
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown browser';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? 'Unknown browser';
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  return system ? `${browser} on ${system}` : browser;
}

/** The live sessions of a person, this one (`currentSessionId`) first, then the most recently active. */
export async function sessionsOf(
  db: Queryable,
  userId: string,
  currentSessionId: string,
  limits: SessionLimits,
): Promise<SessionSummary[]> {
  const rows = await db.query<{
    id: string;
    userAgent: string | null;
    ipAddress: string | null;
    startedAt: Date;
    lastActiveAt: Date;
    current: boolean;
  }>(
    `select public_id as id, user_agent as "userAgent", ip_address as "ipAddress", created_at as "startedAt",
            last_active_at as "lastActiveAt", id_hash = $2 as current
     from user_sessions
     where user_id = $1 and public_id is not null and expires_at > clock_timestamp()
       and (data->>'signedInAt')::bigint > $3
     order by id_hash = $2 desc, last_active_at desc`,
    [userId, hashOf(currentSessionId), Date.now() - limits.absoluteMs],
  );
  return rows.map((row) => ({
    id: row.id,
    browser: describeUserAgent(row.userAgent),
    ipAddress: row.ipAddress,
    startedAt: row.startedAt.toISOString(),
    lastActiveAt: row.lastActiveAt.toISOString(),
    current: row.current,
  }));
}

/** Ends one session of a person by its public id; answers whether it was theirs (and not ended already). */
export async function endSessionOf(db: Queryable, userId: string, publicId: string): Promise<boolean> {
  const ended = await db.query(
    'delete from user_sessions where user_id = $1 and public_id = $2 returning 1',
    [userId, publicId],
  );
  return ended.length > 0;
}

/**
 * Ends every session of a colleague, by an admin of the same tenant (NOT_FOUND for a person of another tenant, as
 * for one who does not exist); answers how many live ones ended.
 */
export async function endSessionsOfColleague(
  db: Queryable,
  tenant: { kind: keyof typeof TENANT_TABLES; id: string },
  userId: string,
): Promise<number> {
  const [ended] = await db.query<{ found: boolean; live: number }>(
    `with person as (select id from users where id = $1 and ${TENANT_TABLES[tenant.kind].column} = $2),
     ended as (
       delete from user_sessions where user_id in (select id from person)
       returning expires_at > clock_timestamp() and data ? 'userId' as live)
     select exists (select 1 from person) as found,
            (select count(*) filter (where live)::int from ended) as live`,
    [userId, tenant.id],
  );
  if (!ended?.found) throw notFound('person', userId);
  return ended.live;
}
