import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInstanceSecret } from '../../src/db/instance-secrets.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';

describe('instance secrets', () => {
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });

  afterAll(async () => {
    await testDb.close();
  });

  it('makes a secret once and gives the same one to every later caller', async () => {
    const first = await loadInstanceSecret(testDb.db, 'test_once');
    expect(first).toHaveLength(32);
    expect(await loadInstanceSecret(testDb.db, 'test_once')).toEqual(first);
  });

  it('gives the secret another transaction made at the same moment, once that transaction commits', async () => {
    const release: { maker?: () => void } = {};
    const makerMayCommit = new Promise<void>((resolve) => {
      release.maker = resolve;
    });
    const madeBy: { maker?: (value: Buffer) => void } = {};
    const made = new Promise<Buffer>((resolve) => {
      madeBy.maker = resolve;
    });
    // The maker inserts the secret and holds its transaction open; meanwhile another caller asks for it, and
    // its insert waits on the maker's row. On PGlite (one connection) the second caller simply runs after.
    const maker = testDb.db.transaction(async (tx) => {
      madeBy.maker?.(await loadInstanceSecret(tx, 'test_race'));
      await makerMayCommit;
    });
    const secret = await made;
    const other = loadInstanceSecret(testDb.db, 'test_race');
    await new Promise((resolve) => setTimeout(resolve, 100));
    release.maker?.();
    await maker;
    expect(await other).toEqual(secret);
  });
});
