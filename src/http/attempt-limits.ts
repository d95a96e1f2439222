import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import type { Queryable } from '../db/database.ts';
import { tooManyAttempts } from '../errors.ts';

/**
 * Limits on attempts that protect credentials: failed sign-ins, mailed codes, code tries. Unlike the API's rate
 * limits (rate-limit.ts), these are counted in the database (`attempt_counters`), before the work they guard,
 * in the one statement that reads them: N attempts sent at once never do more than the limit's work, every node
 * shares the counts, and a Redis outage never lifts them.
 */

/** One budget of an action: at most `max` attempts in `windowMs`, per what `by` returns for a request. */
export interface AttemptBudget {
  /** Names the budget in its counters, e.g. `dashboard-sign-in:account`. */
  name: string;
  max: number;
  windowMs: number;
  /** What an attempt counts by: the client's address ({@link clientAddressKey}), an e-mail address typed… */
  by: (request: FastifyRequest) => string;
}

/** Attempts counted before their work: give back the ones that should not count (a sign-in that succeeded). */
export interface Reservation {
  /** Takes the attempt back from every budget it counted in, within the window it counted in. */
  release(): Promise<void>;
}

/** The budgets of one action, e.g. sign-in per account and per client. */
export interface AttemptLimits {
  /**
   * Counts an attempt in every budget, atomically, before its work. When any budget is used up, takes it back
   * from all of them and throws RATE_LIMITED with `Retry-After` ("Too many <what>; try again in n minutes.").
   */
  reserve(request: FastifyRequest): Promise<Reservation>;
}

/**
 * What limits per client count a request by (these and the API's rate limits): its address, an IPv6 one by its
 * /64 network, as one client usually holds a whole /64 and could otherwise step through its addresses to get a
 * fresh budget each time. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, as a dual-stack listener sees IPv4
 * clients) counts as its IPv4 address.
 */
export function clientAddressKey(request: FastifyRequest): string {
  const { ip } = request;
  // Node gives request.ip in a canonical form; only IPv6 addresses need to be parsed.
  if (!ip.includes(':')) return ip;
  if (!ipaddr.IPv6.isValid(ip)) return ip.toLowerCase();
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  const [a = 0, b = 0, c = 0, d = 0] = address.parts;
  return new ipaddr.IPv6([a, b, c, d, 0, 0, 0, 0]).toString();
}

/** How often a process deletes counters whose window has ended (the upsert reuses a row it finds ended). */
const SWEEP_EVERY_MS = 60_000;

interface Counted {
  bucket: Uint8Array;
  count: number;
  resetsAt: Date;
  retryAfterSeconds: number;
}

// One statement per attempt: the window starts again when it has ended, else the count goes up; row locks
// order concurrent attempts on one bucket, so each sees the counts of those before it. Windows end on a whole
// millisecond, so that a release can name its window by the Date it was given.
const RESERVE = `insert into attempt_counters as c (bucket, count, resets_at)
  select bucket, 1, date_trunc('milliseconds', clock_timestamp() + window_ms * interval '1 millisecond')
  from unnest($1::bytea[], $2::integer[]) as b (bucket, window_ms)
  on conflict (bucket) do update set
    count = case when c.resets_at <= clock_timestamp() then 1 else c.count + 1 end,
    resets_at = case when c.resets_at <= clock_timestamp() then excluded.resets_at else c.resets_at end
  returning bucket, count, resets_at as "resetsAt",
    ceil(extract(epoch from resets_at - clock_timestamp()))::integer as "retryAfterSeconds"`;

// Only within the window the attempt counted in: once a new window has started, the attempt is gone anyway.
const RELEASE = `update attempt_counters as c set count = c.count - 1
  from unnest($1::bytea[], $2::timestamptz[]) as r (bucket, resets_at)
  where c.bucket = r.bucket and c.resets_at = r.resets_at and c.count > 0`;

/**
 * The budgets of one action, counted in `db`. `what` names the attempts in the refusal.
 *
 * @example
 * const signIns = createAttemptLimits(db, 'failed sign-ins', [
 *   { name: 'sign-in:client', max: 50, windowMs: 15 * 60_000, by: clientAddressKey },
 * ]);
 * const reservation = await signIns.reserve(request); // RATE_LIMITED once 50 are counted
 * if (await passwordIsRight()) await reservation.release();
 */
export function createAttemptLimits(
  db: Queryable,
  what: string,
  budgets: readonly AttemptBudget[],
): AttemptLimits {
  let sweepAfter = 0;
  const sweep = async () => {
    if (Date.now() < sweepAfter) return;
    sweepAfter = Date.now() + SWEEP_EVERY_MS;
    await db.query('delete from attempt_counters where resets_at <= clock_timestamp()');
  };
  return {
    async reserve(request) {
      await sweep();
      const counted = new Map<string, AttemptBudget>();
      for (const budget of budgets) {
        const bucket = createHash('sha256')
          .update(`${budget.name}\n${budget.by(request)}`)
          .digest();
        counted.set(bucket.toString('hex'), budget);
      }
      // In one order, so that two attempts locking the same buckets never wait on each other in a cycle.
      const buckets = [...counted.keys()].sort();
      const rows = await db.query<Counted>(RESERVE, [
        buckets.map((hex) => Buffer.from(hex, 'hex')),
        buckets.map((hex) => counted.get(hex)?.windowMs ?? 0),
      ]);
      const release = async () => {
        await db.query(RELEASE, [
          rows.map((row) => Buffer.from(row.bucket)),
          rows.map((row) => row.resetsAt),
        ]);
      };
      const over = rows.find(
        (row) => row.count > (counted.get(Buffer.from(row.bucket).toString('hex'))?.max ?? 0),
      );
      if (over) {
        // A refused attempt does no work, so it is not counted: the counts stay the attempts that were made.
        await release();
        throw tooManyAttempts(what, over.retryAfterSeconds);
      }
      return { release };
    },
  };
}
