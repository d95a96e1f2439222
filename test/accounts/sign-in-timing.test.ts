// How long a failed sign-in takes must not tell whether its address has accounts, or how many: a sign-in checks
// one hash whatever the address (its oldest account's, or a decoy). It compares times, so it runs alone, after
// every other file (vitest.config.ts): on a loaded machine the medians of 200 moved by 11% between identical
// work.
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  checkCredentialsInAnyTenant,
  inviteUser,
  setPasswordWithLink,
  type AccountTenant,
} from '../../src/accounts/users.ts';
import { createInstance } from '../../src/portfolio/instances.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const PASSWORD = 'a long enough passphrase';
const SAMPLES = 200;
/** 600 password checks and more: a loaded machine takes a while. */
const TIMEOUT_MS = 120_000;

let test: TestDatabase;

beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(async () => {
  await test.close();
});

async function instance(): Promise<AccountTenant> {
  const created = await createInstance(test.db, { slug: uniqueHandle('timing'), name: 'Timing' });
  return { kind: 'instance', id: created.id };
}

async function activeUser(tenant: AccountTenant, email: string): Promise<void> {
  const { link } = await inviteUser(test.db, { tenant, email, role: 'member' });
  await setPasswordWithLink(test.db, {
    purpose: 'invitation',
    tenantKind: tenant.kind,
    token: link.token,
    password: PASSWORD,
  });
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

it(
  'takes as long to refuse an unknown address as one with an account, or with accounts in two instances (medians of 200 within 10%)',
  async () => {
    const [first, second] = [await instance(), await instance()];
    const addresses = {
      unknown: `${uniqueHandle('nobody')}@example.com`,
      one: `${uniqueHandle('one')}@example.com`,
      two: `${uniqueHandle('two')}@example.com`,
    };
    await activeUser(first, addresses.one);
    await activeUser(first, addresses.two);
    await activeUser(second, addresses.two);

    const times: Record<keyof typeof addresses, number[]> = { unknown: [], one: [], two: [] };
    const names = Object.keys(addresses) as (keyof typeof addresses)[];
    // Round-robin, so that whatever else the machine does falls on the three alike.
    for (let round = -5; round < SAMPLES; round += 1) {
      for (const name of names) {
        const started = performance.now();
        await expect(
          checkCredentialsInAnyTenant(test.db, 'instance', {
            email: addresses[name],
            password: 'not the password',
          }),
        ).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
        // The first rounds warm up (the decoy's hash, prepared statements) and are not counted.
        if (round >= 0) times[name].push(performance.now() - started);
      }
    }
    const medians = names.map((name) => median(times[name]));
    const spread = Math.max(...medians) / Math.min(...medians);
    expect(spread, `medians ${medians.map((ms) => ms.toFixed(2)).join(' / ')} ms`).toBeLessThanOrEqual(1.1);
  },
  TIMEOUT_MS,
);
