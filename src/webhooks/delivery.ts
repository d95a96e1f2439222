import { Webhook } from 'standardwebhooks';
import { request, type Dispatcher } from 'undici';
import type { Database, Queryable } from '../db/database.ts';
import { safeDispatcher } from './safe-dispatcher.ts';
import { openSecret, secretsKey } from './endpoints.ts';
import { nextStep, type AttemptResult, type NextStep } from './delivery-outcome.ts';
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
}

const RESPONSE_BODY_LIMIT = 4096;

const defaultDispatchers = new Map<boolean, Dispatcher>();
/** One safe dispatcher (and its connection pool) per process and setting. */
function dispatcherFor(options: DeliveryOptions): Dispatcher {
  if (options.dispatcher) return options.dispatcher;
  const allowPrivate = options.allowInsecure ?? false;
  let dispatcher = defaultDispatchers.get(allowPrivate);
  if (!dispatcher) {
    dispatcher = safeDispatcher({ allowPrivate });
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
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 15_000;
  if (!(options.allowInsecure ?? false) && !claimed.url.startsWith('https:')) {
    return { error: 'refused: webhooks go over https only', durationMs: 0 };
  }
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
      dispatcher: dispatcherFor(options),
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

/**
 * Writes an attempt and the step decided after it (see `nextStep`) in one statement, atomic on its own: one round
 * trip and one commit per attempt.
 */
async function recordAttempt(
  db: Queryable,
  claimed: Claimed,
  result: AttemptResult,
  step: NextStep,
  now: Date,
): Promise<void> {
  await db.query(
    `with attempt as (
       insert into webhook_attempts
         (organization_id, delivery_id, attempted_at, duration_ms, status_code, response_body, error)
       values ($1, $2, $3::timestamptz, $4, $5, $6, $7)
     ), delivery as (
       update webhook_deliveries set attempts = $8, last_attempt_at = $3::timestamptz, claimed_until = null,
         status = $9, delivered_at = $10::timestamptz, next_attempt_at = coalesce($11::timestamptz, next_attempt_at)
       where id = $2
     )
     update webhook_endpoints set failing_since = $13::timestamptz,
       disabled_at = case when $14::text is null then disabled_at else coalesce(disabled_at, $3::timestamptz) end,
       disabled_reason = coalesce($14::text, disabled_reason)
     -- Only when something changes: a success to a healthy endpoint must not queue behind its row lock.
     where id = $12 and (failing_since is distinct from $13::timestamptz or $14::text is not null)`,
    [
      claimed.organizationId,
      claimed.id,
      now,
      result.durationMs,
      result.statusCode ?? null,
      result.responseBody ?? null,
      result.error ?? null,
      step.attempts,
      step.status,
      step.status === 'delivered' ? now : null,
      step.nextAttemptAt,
      claimed.endpointId,
      step.failingSince,
      step.disableReason,
    ],
  );
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
       e.failing_since as "failingSince"`,
    [options.batchSize ?? 10, leaseMs],
  );
  if (claimed.length === 0) return 0;
  const key = await secretsKey(db);
  // Every send finishes (and is recorded) before this returns, even when one of them fails.
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
      await recordAttempt(db, delivery, result, step, attemptedAt);
    }),
  );
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
