import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTenant } from '../../src/db/tenants.ts';
import { apiKeys, createApiKey } from '../../src/keys/api-key-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

let test: TestDatabase;
let organizationId: string;

beforeAll(async () => {
  test = await createTestDatabase();
  organizationId = (
    await insertTenant(test.db, 'organization', { short: uniqueHandle('keys'), name: 'Keys' })
  ).id;
});
afterAll(async () => {
  await test.close();
});

const newKey = async () => (await createApiKey(test.db, { organizationId, environment: 'staging' })).record;

describe('revoking an API key', () => {
  it('revokes a key named by its id, or by its display prefix', async () => {
    const [first, second] = [await newKey(), await newKey()];
    expect(await apiKeys.revoke(test.db, { ownerId: organizationId, key: first.id })).toMatchObject({
      id: first.id,
      revokedAt: expect.any(Date),
    });
    expect(
      await apiKeys.revoke(test.db, { ownerId: organizationId, key: second.displayPrefix }),
    ).toMatchObject({
      id: second.id,
      revokedAt: expect.any(Date),
    });
  });

  it.each(['-'.repeat(36), 'f'.repeat(36), '0123456789abcdef0123456789abcdef0123'])(
    'finds no key for %j, 36 characters of an id but not a UUID, rather than failing in the database',
    async (key) => {
      await newKey();
      await expect(apiKeys.revoke(test.db, { ownerId: organizationId, key })).resolves.toBeUndefined();
    },
  );

  it('refuses a prefix that two keys share, saying to revoke by id, and revokes neither', async () => {
    const [first, second] = [await newKey(), await newKey()];
    await test.db.query('update api_keys set display_prefix = $1 where id = $2', [
      first.displayPrefix,
      second.id,
    ]);
    await expect(
      apiKeys.revoke(test.db, { ownerId: organizationId, key: first.displayPrefix }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `"${first.displayPrefix}" is the prefix of 2 keys: revoke by id`,
    });
    const listed = await apiKeys.list(test.db, organizationId);
    expect(
      listed.filter((key) => [first.id, second.id].includes(key.id)).map((key) => key.revokedAt),
    ).toEqual([null, null]);
  });
});
