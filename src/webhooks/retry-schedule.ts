import { DEFAULT_RETRY_DELAYS_SECONDS } from '../config.ts';

/*
 * When a failed delivery is tried again: after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (the Standard
 * Webhooks schedule, {@link DEFAULT_RETRY_DELAYS_SECONDS}, which the configuration may replace), each delay with
 * up to ±10% jitter so that a receiver that was down is not hit by every retry at once. `Retry-After` on a 429
 * or 503 pushes the next attempt later, never earlier.
 */

/** {@link DEFAULT_RETRY_DELAYS_SECONDS} in milliseconds. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = DEFAULT_RETRY_DELAYS_SECONDS.map((s) => s * 1000);

/** The delay before attempt `attempts + 1`, or undefined when the schedule is spent. */
export function retryDelay(
  attempts: number,
  options: { delaysMs?: readonly number[]; retryAfterMs?: number | undefined; random?: () => number } = {},
): number | undefined {
  const delays = options.delaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const base = delays[attempts - 1];
  if (base === undefined) return undefined;
  const jitter = 1 + ((options.random ?? Math.random)() * 2 - 1) * 0.1;
  return Math.max(Math.round(base * jitter), options.retryAfterMs ?? 0);
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds from `now`; undefined when absent or bad. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
