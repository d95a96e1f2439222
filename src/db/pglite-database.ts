import { PGlite, types } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.ts';

/**
 * An embedded PGlite database (PostgreSQL compiled to WebAssembly, in this process).
 * `dataDir` undefined → in memory. PGlite does not lock its directory itself: callers that open one on disk
 * hold the data-dir lock (see `data-dir-lock.ts`).
 */
export async function createPGliteDatabase(dataDir?: string): Promise<Database> {
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    // Match node-postgres: bigint as string (money never goes through a float).
    parsers: { [types.INT8]: (value: string) => value },
  });

  const queryWith = (client: Pick<PGlite, 'query'>): Queryable['query'] =>
    async function query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await client.query<Row>(text, params as unknown[]);
      return result.rows;
    };

  return {
    kind: 'pglite',
    query: queryWith(db),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: queryWith(tx),
          exec: async (script) => {
            await tx.exec(script);
          },
        }),
      ),
    async exec(script) {
      await db.exec(script);
    },
    async close() {
      await db.close();
    },
  };
}
