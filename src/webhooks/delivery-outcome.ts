import { retryDelay } from './retry-schedule.ts';

/** What one attempt to send a delivery brought: an HTTP answer, or an error (timeout, refused, …). */
export interface AttemptResult {
  statusCode?: number;
  responseBody?: string;
  error?: string;
  retryAfterMs?: number;
  durationMs: number;
}

/** What comes after an attempt, for the delivery and for its endpoint. */
export interface NextStep {
  /** The delivery's attempts, this one counted. */
  attempts: number;
  /** `delivered` on a 2xx; `pending` while the retry schedule lasts; `failed` when spent or on 410 Gone. */
  status: 'delivered' | 'pending' | 'failed';
  /** When the next attempt is due, for a pending delivery. */
  nextAttemptAt: Date | null;
  /** Since when the endpoint fails without a success: null after a success. */
  failingSince: Date | null;
  /** Why the endpoint is disabled now, or null when it is not. */
  disableReason: string | null;
}

const DAY_MS = 24 * 3600 * 1000;
const FIVE_DAYS_MS = 5 * DAY_MS;

/** A period in the largest unit that says it whole: `5 days`, `1 day`, `36 hours`, `90 seconds`. */
function period(ms: number): string {
  const units = [
    ['day', DAY_MS],
    ['hour', 3600 * 1000],
    ['minute', 60 * 1000],
    ['second', 1000],
  ] as const;
  const [unit, size] = units.find(([, size]) => ms % size === 0) ?? ['millisecond', 1];
  const count = ms / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/**
 * Decides what follows an attempt, without I/O: a 2xx delivers; a 410 fails the delivery and disables the
 * endpoint; anything else retries on the schedule (later still when a 429 or 503 says `Retry-After`) until it
 * is spent. An endpoint failing without a success for `disableAfterMs` is disabled.
 */
export function nextStep(
  delivery: { attempts: number; failingSince: Date | null },
  result: AttemptResult,
  options: { delaysMs?: readonly number[] | undefined; disableAfterMs?: number | undefined; now: Date },
): NextStep {
  const { now } = options;
  const status = result.statusCode;
  const succeeded = status !== undefined && status >= 200 && status < 300;
  const attempts = delivery.attempts + 1;
  const gone = status === 410;
  const honoursRetryAfter = status === 429 || status === 503;
  const delay =
    succeeded || gone
      ? undefined
      : retryDelay(attempts, {
          ...(options.delaysMs ? { delaysMs: options.delaysMs } : {}),
          retryAfterMs: honoursRetryAfter ? result.retryAfterMs : undefined,
        });
  const failingSince = succeeded ? null : (delivery.failingSince ?? now);
  const disableAfterMs = options.disableAfterMs ?? FIVE_DAYS_MS;
  const disableReason = gone
    ? 'the endpoint answered 410 Gone'
    : failingSince && now.getTime() - failingSince.getTime() >= disableAfterMs
      ? `every attempt failed for ${period(disableAfterMs)}`
      : null;
  return {
    attempts,
    status: succeeded ? 'delivered' : delay === undefined ? 'failed' : 'pending',
    nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay),
    failingSince,
    disableReason,
  };
}
