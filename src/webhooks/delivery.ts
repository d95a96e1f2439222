import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Dispatcher } from 'undici';
import type { Database, Queryable } from '../db/database.ts';
import { openSecret, secretsKey } from './endpoints.ts';
import { nextStep, type AttemptResult, type NextStep } from './delivery-outcome.ts';
import { logAttempt } from './delivery-log.ts';
import { OUTBOX_CHANNEL } from './outbox.ts';
import { parseRetryAfter } from './retry-schedule.ts';

/**
 * Webhook delivery from the transactional outbox, in two steps any number of workers can run side by side on
 * one PostgreSQL:
 *
 * 1. `fanOutEvents` turns undispatched outbox events into one delivery per endpoint that wants them, and marks
 *    the events dispatched, in one statement: an event is never lost and never fanned out twice.
 * 2. `deliverDue` claims due deliveries with a lease (`FOR UPDATE SKIP LOCKED`, committed at once), sends each
 *    signed as Standard Webhooks has it, decides what comes next (`nextStep`, delivery-outcome.ts) and records
 *    the attempt with it. A worker that dies mid-send leaves its claim to run out; then any worker sends again
 *    (at-least-once).
 */

export interface DeliveryOptions {
  /** A 2xx within this long is a success. @default 15000 */
  timeoutMs?: number;
  /** Retry delays; see retry-schedule.ts. */
  delaysMs?: readonly number[];
  /** An endpoint failing without a success for this long is disabled. @default 5 days */
  disableAfterMs?: number;
  /**
   * Where connections go. @default a dispatcher that refuses private, loopback, link-local and metadata
   * addresses at connect time (unless `allowInsecure`), so DNS rebinding after the save-time check gets nowhere
   */
  dispatcher?: Dispatcher;
  /** How many deliveries one call claims. @default 10 */
  batchSize?: number;
  /** Plain http and private or loopback addresses allowed (development and tests). @default false */
  allowInsecure?: boolean;
  /** Told of each attempt made, with the step decided after it (metrics). */
  onAttempt?: (result: AttemptResult, step: NextStep) => void;
  /**
   * Where attempts are logged: a failed one at warn, a delivered one at debug (see delivery-log.ts).
   * @default none
   */
  logger?: Pick<Logger, 'warn' | 'debug'> | undefined;
}

const RESPONSE_BODY_LIMIT = 4096;

const defaultDispatchers = new Map<boolean, Promise<Dispatcher>>();
/**
 * One safe dispatcher (and its connection pool) per process and setting. It and undici are loaded on the first
 * delivery, not when a process that may never send one starts (about a hundred modules).
 */
function dispatcherFor(options: DeliveryOptions): Promise<Dispatcher> {
  if (options.dispatcher) return Promise.resolve(options.dispatcher);
  const allowPrivate = options.allowInsecure ?? false;
  let dispatcher = defaultDispatchers.get(allowPrivate);
  if (!dispatcher) {
    dispatcher = import('./safe-dispatcher.ts').then(({ safeDispatcher }) =>
      safeDispatcher({ allowPrivate }),
    );
    defaultDispatchers.set(allowPrivate, dispatcher);
  }
  return dispatcher;
}

/** Fans out up to `limit` outbox events; returns how many were dispatched. */
export async function fanOutEvents(db: Queryable, options: { limit?: number } = {}): Promise<number> {
  const rows = await db.query(
    `with events as (
       select id, organization_id, type, payload, created_at from outbox_events
       where dispatched_at is null order by sequence limit $1 for update skip locked
     ), fanned as (
       insert into webhook_deliveries (organization_id, endpoint_id, event_id, message_id, event_type, body)
       select e.organization_id, w.id, e.id, 'msg_' || replace(e.id::text, '-', ''), e.type,
         jsonb_build_object(
           'id', 'msg_' || replace(e.id::text, '-', ''),
           'type', e.type,
           'timestamp', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', e.payload
         )::text
       from events e
       join webhook_endpoints w on w.organization_id = e.organization_id and w.disabled_at is null
         and e.type = any (w.event_types)
       on conflict (endpoint_id, event_id) do nothing
     )
     update outbox_events set dispatched_at = clock_timestamp()
     where id in (select id from events)
     returning id`,
    [options.limit ?? 100],
  );
  return rows.length;
}

interface Claimed {
  id: string;
  organizationId: string;
  endpointId: string;
  messageId: string;
  body: string;
  attempts: number;
  url: string;
  secret: Uint8Array;
  previousSecret: Uint8Array | null;
  previousSecretExpiresAt: Date | null;
  endpointDisabled: boolean;
  failingSince: Date | null;
  /** The transaction of the event, and the request that made the change (null when none did). */
  transactionId: string | null;
  requestId: string | null;
}

async function send(
  claimed: Claimed,
  key: Buffer,
  options: DeliveryOptions,
  now: Date,
): Promise<AttemptResult> {
  const secrets = [openSecret(claimed.secret, key)];
  if (claimed.previousSecret && claimed.previousSecretExpiresAt && claimed.previousSecretExpiresAt > now) {
    secrets.push(openSecret(claimed.previousSecret, key));
  }
  const signature = secrets
    .map((secret) => new Webhook(secret).sign(claimed.messageId, now, claimed.body))
    .join(' ');
  if (!(options.allowInsecure ?? false) && !claimed.url.startsWith('https:')) {
    return { error: 'refused: webhooks go over https only', durationMs: 0 };
  }
  const [{ request }, dispatcher] = await Promise.all([import('undici'), dispatcherFor(options)]);
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  try {
    const response = await request(claimed.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Portico-Webhooks/1',
        'webhook-id': claimed.messageId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: claimed.body,
      signal: AbortSignal.timeout(timeoutMs),
      dispatcher,
    });
    let text = '';
    for await (const chunk of response.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length >= RESPONSE_BODY_LIMIT) break;
    }
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      responseBody: text.slice(0, RESPONSE_BODY_LIMIT),
      retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now.getTime()),
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return {
      error: timedOut
        ? `no answer within ${timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

/** An attempt made, and the step decided after it (see `nextStep`). */
interface Attempted {
  claimed: Claimed;
  result: AttemptResult;
  step: NextStep;
  attemptedAt: Date;
}

/**
 * Writes the attempts of a batch and the steps decided after them in one statement, atomic on its own: one round
 * trip and one commit per batch. An endpoint attempted more than once ends as its latest attempt left it, and is
 * disabled when any attempt disabled it (as one statement per attempt, in order, would leave it).
 */
async function recordAttempts(db: Queryable, attempts: readonly Attempted[]): Promise<void> {
  const column = <T>(value: (attempt: Attempted) => T): T[] => attempts.map(value);
  await db.query(
    `with input as (
       select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::int[], $6::int[],
         $7::text[], $8::text[], $9::int[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::text[])
         with ordinality as i(organization_id, delivery_id, endpoint_id, attempted_at, duration_ms, status_code,
           response_body, error, attempts, status, next_attempt_at, failing_since, disable_reason, n)
     ), attempt as (
       insert into webhook_attempts
         (organization_id, delivery_id, attempted_at, duration_ms, status_code, response_body, error)
       select organization_id, delivery_id, attempted_at, duration_ms, status_code, response_body, error
       from input order by n
     ), delivery as (
       update webhook_deliveries d set attempts = i.attempts, last_attempt_at = i.attempted_at, claimed_until = null,
         status = i.status, delivered_at = case when i.status = 'delivered' then i.attempted_at end,
         next_attempt_at = coalesce(i.next_attempt_at, d.next_attempt_at)
       from input i where d.id = i.delivery_id
     ), endpoint as (
       select endpoint_id,
         (array_agg(failing_since order by attempted_at desc, n desc))[1] as failing_since,
         (array_agg(disable_reason order by attempted_at, n) filter (where disable_reason is not null))[1]
           as disable_reason,
         min(attempted_at) filter (where disable_reason is not null) as disabled_at
       from input group by endpoint_id
     )
     update webhook_endpoints e set failing_since = x.failing_since,
       disabled_at = case when x.disable_reason is null then e.disabled_at else coalesce(e.disabled_at, x.disabled_at) end,
       disabled_reason = coalesce(x.disable_reason, e.disabled_reason)
     from endpoint x
     -- Only when something changes: a success to a healthy endpoint must not queue behind its row lock.
     where e.id = x.endpoint_id and (e.failing_since is distinct from x.failing_since or x.disable_reason is not null)`,
    [
      column((a) => a.claimed.organizationId),
      column((a) => a.claimed.id),
      column((a) => a.claimed.endpointId),
      column((a) => a.attemptedAt),
      column((a) => a.result.durationMs),
      column((a) => a.result.statusCode ?? null),
      column((a) => a.result.responseBody ?? null),
      column((a) => a.result.error ?? null),
      column((a) => a.step.attempts),
      column((a) => a.step.status),
      column((a) => a.step.nextAttemptAt),
      column((a) => a.step.failingSince),
      column((a) => a.step.disableReason),
    ],
  );
}

/**
 * Seconds the longest-waiting due delivery has waited past its due time, 0 when none is due (for metrics): the
 * first row of the due index. Deliveries being sent count until they are recorded.
 */
export async function overdueSeconds(db: Queryable): Promise<number> {
  const [row] = await db.query<{ seconds: number | null }>(
    `select extract(epoch from now() - min(next_attempt_at))::float8 as seconds from webhook_deliveries
     where status = 'pending' and next_attempt_at <= now()`,
  );
  return Math.max(row?.seconds ?? 0, 0);
}

/**
 * Claims up to `batchSize` due deliveries and attempts them, side by side. Returns how many were attempted.
 */
export async function deliverDue(db: Database, options: DeliveryOptions = {}): Promise<number> {
  const leaseMs = (options.timeoutMs ?? 15_000) + 15_000;
  const claimed = await db.query<Claimed>(
    `update webhook_deliveries d set claimed_until = clock_timestamp() + make_interval(secs => $2::float8 / 1000)
     from webhook_endpoints e
     where e.id = d.endpoint_id and d.id in (
       select id from webhook_deliveries
       where status = 'pending' and next_attempt_at <= clock_timestamp()
         and (claimed_until is null or claimed_until <= clock_timestamp())
       order by next_attempt_at limit $1 for update skip locked
     )
     returning d.id, d.organization_id as "organizationId", d.endpoint_id as "endpointId",
       d.message_id as "messageId", d.body, d.attempts, e.url, e.secret, e.previous_secret as "previousSecret",
       e.previous_secret_expires_at as "previousSecretExpiresAt", e.disabled_at is not null as "endpointDisabled",
       e.failing_since as "failingSince",
       (select o.transaction_id from outbox_events o where o.id = d.event_id) as "transactionId",
       (select o.request_id from outbox_events o where o.id = d.event_id) as "requestId"`,
    [options.batchSize ?? 10, leaseMs],
  );
  if (claimed.length === 0) return 0;
  const key = await secretsKey(db);
  // Every send finishes before this returns, even when one of them fails; then what they did is recorded at once.
  const attempted: Attempted[] = [];
  const results = await Promise.allSettled(
    claimed.map(async (delivery) => {
      const now = new Date();
      if (delivery.endpointDisabled) {
        // Not sent, and the attempt log says why (one statement, atomic on its own).
        await db.query(
          `with failed as (
             update webhook_deliveries set status = 'failed', claimed_until = null where id = $2
           )
           insert into webhook_attempts (organization_id, delivery_id, attempted_at, duration_ms, error)
           values ($1, $2, $3, 0, 'not sent: the endpoint is disabled')`,
          [delivery.organizationId, delivery.id, now],
        );
        return;
      }
      const result = await send(delivery, key, options, now);
      const attemptedAt = new Date();
      const step = nextStep(delivery, result, {
        delaysMs: options.delaysMs,
        disableAfterMs: options.disableAfterMs,
        now: attemptedAt,
      });
      const attempt = { claimed: delivery, result, step, attemptedAt };
      attempted.push(attempt);
      options.onAttempt?.(result, step);
      if (options.logger) logAttempt(options.logger, { ...delivery, result, step });
    }),
  );
  if (attempted.length > 0) await recordAttempts(db, attempted);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return claimed.length;
}

/**
 * Runs fan-out and delivery until stopped: as fast as there is work; when there is none, it sleeps until a commit
 * that wrote the outbox notifies `OUTBOX_CHANNEL` (see outbox.ts) or `pollMs` has passed. Notifications arriving
 * while it works are coalesced into one more round; `pollMs` remains for what no notification announces (retries
 * that come due, a claim whose lease ran out, anything written while the listening connection was down). While
 * its steps fail (the database is down or restarting), it waits twice as long after each failure in a row, from
 * `pollMs` up to `maxBackoffMs`, and starts again from `pollMs` after a success. `onError` hears of the first
 * failure of such a run, then of one every five minutes while it lasts, rather than of every attempt.
 */
export function startWebhookWorker(
  db: Database,
  options: DeliveryOptions & {
    /** How long an idle worker sleeps when nothing notifies it. @default 1000 */
    pollMs?: number;
    /** The longest wait between attempts while the steps keep failing. @default 30000 */
    maxBackoffMs?: number;
    onError?: (error: unknown) => void;
  } = {},
): { stop(): Promise<void> } {
  const pollMs = options.pollMs ?? 1000;
  const maxBackoffMs = Math.max(pollMs, options.maxBackoffMs ?? 30_000);
  // While the steps keep failing, how often `onError` hears again after the first failure.
  const repeatReportMs = 5 * 60 * 1000;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // A reporter that fails must not stop deliveries.
    }
  };
  // An object: notifications and `stop()` change it between the loop's awaits. `notified`: something was
  // committed since the current round began, so the loop looks again rather than sleeping.
  const state: { stopped: boolean; notified: boolean; wake?: () => void; timer?: NodeJS.Timeout } = {
    stopped: false,
    notified: false,
  };
  const stopped = () => state.stopped;
  const notified = () => state.notified;
  const listening = db
    .listen(OUTBOX_CHANNEL, () => {
      state.notified = true;
      state.wake?.();
    })
    .catch((error: unknown) => {
      // Polling alone still delivers, only later.
      report(error);
      return undefined;
    });
  const loop = (async () => {
    // Listening before the first look: a commit after that look always wakes the worker.
    await listening;
    let failures = 0;
    let reportedAt = 0;
    while (!stopped()) {
      let worked = 0;
      let waitMs = pollMs;
      state.notified = false;
      try {
        worked = (await fanOutEvents(db)) + (await deliverDue(db, options));
        failures = 0;
      } catch (error) {
        failures += 1;
        waitMs = Math.min(pollMs * 2 ** Math.min(failures - 1, 20), maxBackoffMs);
        const now = Date.now();
        if (failures === 1 || now - reportedAt >= repeatReportMs) {
          reportedAt = now;
          report(error);
        }
      }
      if (worked === 0 && !stopped() && (failures > 0 || !notified())) {
        await new Promise<void>((resolve) => {
          state.wake = resolve;
          state.timer = setTimeout(resolve, waitMs);
        });
        clearTimeout(state.timer);
        state.wake = undefined;
      }
    }
  })();
  return {
    async stop() {
      state.stopped = true;
      clearTimeout(state.timer);
      state.wake?.();
      await loop;
      await (await listening)?.close();
    },
  };
}
