import { afterAll, beforeAll } from 'vitest';

/** Registers something `make` opened, to be closed after the file's tests (in the reverse order of opening). */
export type CloseAfterAll = (close: () => Promise<void> | void) => void;

/**
 * Registers the hooks of a `use…` helper: `make` runs in `beforeAll`, and what it registered with
 * `closeAfterAll` is closed in `afterAll`, last opened first closed (also when `make` failed half-way). Returns a
 * stand-in for what `make` makes: reading any field of it before `beforeAll` has run throws, saying that `what`
 * is made in `beforeAll`, so a field read at the top of a file fails loudly instead of reading undefined.
 *
 * @example
 * export function useDatabase(): { db: Database } {
 *   return madeBeforeAll('the database', async (closeAfterAll) => {
 *     const testDb = await createTestDatabase();
 *     closeAfterAll(() => testDb.close());
 *     return { db: testDb.db };
 *   });
 * }
 */
export function madeBeforeAll<T extends object>(
  what: string,
  make: (closeAfterAll: CloseAfterAll) => Promise<T>,
): T {
  let value: T | undefined;
  const closes: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    value = await make((close) => closes.push(close));
  });
  afterAll(async () => {
    for (const close of closes.splice(0).reverse()) await close();
  });
  return new Proxy({} as T, {
    get(_target, field) {
      if (value === undefined)
        throw new Error(`${what} is made in beforeAll: read it inside tests and hooks`);
      return Reflect.get(value, field) as unknown;
    },
  });
}
