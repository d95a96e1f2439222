import pg from 'pg';
import type { Database, Queryable } from './database.ts';
import { isConnectionFailure, translateDatabaseError } from './database-errors.ts';

/** Which PostgreSQL server to reach, and how many connections to hold open to it. */
export interface PostgresDatabaseOptions {
  /** A `postgres://` URL, e.g. `DATABASE_URL`. */
  connectionString: string;
  /** @default 10 */
  maxConnections?: number;
  /** Extra `options` for every connection, e.g. `-c search_path=…` (used by tests). */
  connectionOptions?: string;
  /**
   * How long opening a connection, or waiting for a free one of the pool, may take before the caller gets
   * SERVICE_UNAVAILABLE, in milliseconds: while the server is down or unreachable, requests fail within this
   * instead of hanging. @default 5000
   */
  connectTimeoutMs?: number;
}

/**
 * A PostgreSQL server reached through a `pg` pool. A lost connection never crashes the process: every client
 * has an `error` listener, idle in the pool or checked out, and a broken client is destroyed rather than reused.
 * Connection failures reach callers as SERVICE_UNAVAILABLE (see `database-errors.ts`); statement errors as
 * they are. Once the server answers again, the next checkout opens a new connection: nothing to restart.
 */
export function createPostgresDatabase(options: PostgresDatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    // Probes idle connections, so that one whose peer vanished without closing it (a failover, a dropped NAT
    // or proxy entry) is found out and replaced rather than handed to a request.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.connectionOptions === undefined ? {} : { options: options.connectionOptions }),
  });
  // An idle client that loses its connection emits on the pool, which has already removed it; without a
  // listener that would crash the process.
  pool.on('error', () => undefined);

  const queryWith = (client: pg.Pool | pg.PoolClient): Queryable['query'] =>
    async function query<Row>(text: string, params: readonly unknown[] = []) {
      try {
        const result = await client.query(text, params as unknown[]);
        return result.rows as Row[];
      } catch (error) {
        throw translateDatabaseError(error);
      }
    };

  return {
    kind: 'postgres',
    query: queryWith(pool),
    async transaction(work) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw translateDatabaseError(error);
      }
      // A checked-out client has no listener of the pool's: its connection dying now (a restart, a failover,
      // pg_terminate_backend) would be an unhandled 'error' event. The statement in flight, if any, fails
      // with it; a later one fails as "not queryable".
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost ??= error;
      };
      client.on('error', onError);
      let broken: Error | undefined;
      try {
        await client.query('begin');
        const result = await work({
          query: queryWith(client),
          exec: async (script) => {
            try {
              await client.query(script);
            } catch (error) {
              throw translateDatabaseError(error);
            }
          },
        });
        await client.query('commit');
        return result;
      } catch (error) {
        if (lost !== undefined || isConnectionFailure(error)) {
          broken = lost ?? (error instanceof Error ? error : new Error(String(error)));
        } else {
          await client.query('rollback').catch((rollbackError: unknown) => {
            broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
          });
        }
        throw translateDatabaseError(error);
      } finally {
        client.removeListener('error', onError);
        // With an error, the pool destroys the client instead of handing a dead connection to the next caller.
        client.release(broken);
      }
    },
    async exec(script) {
      try {
        await pool.query(script);
      } catch (error) {
        throw translateDatabaseError(error);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
