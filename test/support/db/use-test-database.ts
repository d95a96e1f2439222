import { createTestDatabase, type TestDatabase } from './database.ts';
import { madeBeforeAll } from '../made-before-all.ts';

/**
 * A database of the calling file's own (see `createTestDatabase`), made before its tests and closed after them.
 * Read its fields inside tests and hooks. (Apart from database.ts, which the global setup and the benchmarks
 * import outside a test file.)
 */
export function useTestDatabase(): TestDatabase {
  return madeBeforeAll('the test database', async (closeAfterAll) => {
    const database = await createTestDatabase();
    closeAfterAll(() => database.close());
    return database;
  });
}
