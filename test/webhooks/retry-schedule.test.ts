import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, parseRetryAfter, retryDelay } from '../../src/webhooks/retry-schedule.ts';

describe('the retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then gives up', () => {
    const exact = (attempts: number) => retryDelay(attempts, { random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6, 7].map(exact)).toEqual(DEFAULT_RETRY_DELAYS_MS);
    expect(DEFAULT_RETRY_DELAYS_MS.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(exact(8)).toBeUndefined();
  });

  it('spreads each delay by up to 10% either way', () => {
    expect(retryDelay(2, { random: () => 0 })).toBe(270_000);
    expect(retryDelay(2, { random: () => 1 })).toBe(330_000);
  });

  it('lets Retry-After push the next attempt later but never earlier', () => {
    expect(retryDelay(1, { random: () => 0.5, retryAfterMs: 60_000 })).toBe(60_000);
    expect(retryDelay(2, { random: () => 0.5, retryAfterMs: 1000 })).toBe(300_000);
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
