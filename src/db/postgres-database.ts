import pg from 'pg';
import type { Database, Queryable } from './database.ts';

export interface PostgresDatabaseOptions {
  connectionString: string;
  /** @default 10 */
  maxConnections?: number;
  /** Extra `options` for every connection, e.g. `-c search_path=…` (used by tests). */
  connectionOptions?: string;
}

/** A PostgreSQL server reached through a `pg` pool. */
export function createPostgresDatabase(options: PostgresDatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    ...(options.connectionOptions === undefined ? {} : { options: options.connectionOptions }),
  });
  // An idle client that loses its connection emits on the pool; without a listener that would crash the process.
  pool.on('error', () => undefined);

  const queryWith = (client: pg.Pool | pg.PoolClient): Queryable['query'] =>
    async function query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await client.query(text, params as unknown[]);
      return result.rows as Row[];
    };

  return {
    kind: 'postgres',
    query: queryWith(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work({
          query: queryWith(client),
          exec: async (script) => {
            await client.query(script);
          },
        });
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async exec(script) {
      await pool.query(script);
    },
    async close() {
      await pool.end();
    },
  };
}
