import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createAttemptLimits, type AttemptLimits } from '../../src/http/attempt-limits.ts';
import { useTestDatabase } from '../support/db/use-test-database.ts';
import { refusal } from '../support/refusal.ts';

const test = useTestDatabase();

/** A request from a client address: all the budgets below read of it. */
const from = (ip: string) => ({ ip }) as FastifyRequest;

/** Limits of `max` attempts a minute per client address, under a name no other test uses. */
function limits(max: number, name = randomUUID()): AttemptLimits {
  return createAttemptLimits(test.db, 'tries', [
    { name, max, windowMs: 60_000, by: (request) => request.ip },
  ]);
}

describe('attempt limits', () => {
  it('lets exactly the budget through when attempts arrive at once, and refuses the rest with RATE_LIMITED and Retry-After', async () => {
    const tries = limits(5);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => tries.reserve(from('10.1.0.1'))),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
    const refused = await refusal(tries.reserve(from('10.1.0.1')));
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      message: 'Too many tries; try again in 1 minute.',
    });
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another client address has a budget of its own.
    await expect(tries.reserve(from('10.1.0.2'))).resolves.toBeDefined();
  });

  it('takes a released attempt back, so the budget counts only the attempts that were kept', async () => {
    const tries = limits(2);
    const first = await tries.reserve(from('10.2.0.1'));
    await tries.reserve(from('10.2.0.1'));
    await first.release();
    await tries.reserve(from('10.2.0.1'));
    expect(await refusal(tries.reserve(from('10.2.0.1')))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('counts an attempt in every budget at once, and one refused by any budget in none', async () => {
    const name = randomUUID();
    const both = createAttemptLimits(test.db, 'tries', [
      { name: `${name}:narrow`, max: 1, windowMs: 60_000, by: () => 'one' },
      { name: `${name}:wide`, max: 3, windowMs: 60_000, by: (request) => request.ip },
    ]);
    await both.reserve(from('10.3.0.1'));
    for (let i = 0; i < 5; i += 1) {
      expect(await refusal(both.reserve(from('10.3.0.1')))).toMatchObject({ code: 'RATE_LIMITED' });
    }
    // The wide budget counted only the first attempt: two more fit in it.
    const wide = createAttemptLimits(test.db, 'tries', [
      { name: `${name}:wide`, max: 3, windowMs: 60_000, by: (request) => request.ip },
    ]);
    await wide.reserve(from('10.3.0.1'));
    await wide.reserve(from('10.3.0.1'));
    expect(await refusal(wide.reserve(from('10.3.0.1')))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('starts a new window once the old one has ended, and deletes ended counters', async () => {
    const name = randomUUID();
    const tries = limits(1, name);
    await tries.reserve(from('10.4.0.1'));
    await tries.reserve(from('10.4.0.2'));
    expect(await refusal(tries.reserve(from('10.4.0.1')))).toMatchObject({ code: 'RATE_LIMITED' });
    await test.db.query(
      "update attempt_counters set resets_at = clock_timestamp() - interval '1 second' where resets_at > clock_timestamp()",
    );
    await expect(tries.reserve(from('10.4.0.1'))).resolves.toBeDefined();
    // A limiter's first attempt sweeps: the ended counter of 10.4.0.2 is gone.
    await limits(1, name).reserve(from('10.4.0.3'));
    expect(
      await test.db.query('select 1 from attempt_counters where resets_at <= clock_timestamp()'),
    ).toHaveLength(0);
  });
});
