import pg from 'pg';
import type { Database, Listener, Queryable } from './database.ts';
import { connectionNotObtained, isConnectionFailure, translateDatabaseError } from './database-errors.ts';

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
  /**
   * How many distinct statement texts are prepared (parsed and planned once per connection, then only bound and
   * run, as postgres.js and pgx do by default); the texts beyond run unprepared. 0 prepares none, e.g. behind a
   * connection pooler that cannot keep prepared statements. @default DEFAULT_PREPARED_STATEMENTS
   */
  preparedStatements?: number;
}

/**
 * The distinct statement texts a database prepares at most: well above the few hundred Portico sends, and a
 * bound on what a backend holds when queries keep changing (each GraphQL selection is a statement of its own).
 */
export const DEFAULT_PREPARED_STATEMENTS = 500;

/** PostgreSQL's refusal to run a prepared statement whose result columns changed under it (e.g. by a migration). */
function isStalePlan(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === '0A000' &&
    error.message.includes('cached plan must not change result type')
  );
}

/**
 * The name each statement text is prepared under, the same on every connection of a pool; undefined for texts
 * past the capacity and for texts whose prepared form went stale, which then run unprepared.
 */
function statementNames(capacity: number): {
  nameOf: (text: string) => string | undefined;
  forget: (text: string) => void;
} {
  const names = new Map<string, string | undefined>();
  return {
    nameOf(text) {
      if (names.has(text)) return names.get(text);
      if (names.size >= capacity) return undefined;
      const name = `portico_${names.size}`;
      names.set(text, name);
      return name;
    },
    forget(text) {
      // Kept in the map, so that it is never prepared again (a connection may still hold the old plan).
      names.set(text, undefined);
    },
  };
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
  // And every client has a listener of its own from birth: pg-pool's come and go as a client is checked out and
  // released, and a connection that dies in a gap between them (a server terminating backends again and again
  // does that) would otherwise be an uncaught 'error' event. The statement in flight fails with it anyway.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });

  /**
   * A connection of the pool. Whatever fails here, the server's answer included (a database that does not allow
   * connections now, or no longer exists), is about getting a connection, not about a statement: callers get
   * SERVICE_UNAVAILABLE. Statements therefore never go through `pool.query`, which would mix the two.
   */
  let onWait: ((seconds: number) => void) | undefined;
  const checkout = async (): Promise<pg.PoolClient> => {
    const started = onWait === undefined ? 0 : performance.now();
    try {
      const client = await pool.connect();
      onWait?.((performance.now() - started) / 1000);
      return client;
    } catch (error) {
      throw connectionNotObtained(error);
    }
  };
  /** Runs `work` on a connection of the pool, outside a transaction; one that broke is destroyed, not reused. */
  const onConnection = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await checkout();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on('error', onError);
    try {
      return await work(client);
    } catch (error) {
      if (isConnectionFailure(error)) broken ??= error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  };

  const statements = statementNames(options.preparedStatements ?? DEFAULT_PREPARED_STATEMENTS);
  const run = (client: pg.PoolClient, text: string, params: readonly unknown[]) =>
    client.query({ text, values: params as unknown[], name: statements.nameOf(text) });
  const queryWith = (client: pg.PoolClient, inTransaction: boolean): Queryable['query'] =>
    async function query<Row>(text: string, params: readonly unknown[] = []) {
      try {
        return (await run(client, text, params)).rows as Row[];
      } catch (error) {
        if (!isStalePlan(error)) throw translateDatabaseError(error);
        statements.forget(text);
        // Inside a transaction the failure aborted it: the caller's retry, if any, starts over.
        if (inTransaction) throw translateDatabaseError(error);
        try {
          return (await run(client, text, params)).rows as Row[];
        } catch (retryError) {
          throw translateDatabaseError(retryError);
        }
      }
    };

  return {
    kind: 'postgres',
    query: <Row>(text: string, params?: readonly unknown[]) =>
      onConnection((client) => queryWith(client, false)<Row>(text, params)),
    async transaction(work) {
      const client = await checkout();
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
          query: queryWith(client, true),
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
    async listen(channel, onNotify) {
      const listening = listenOn(options, channel, onNotify);
      await listening.firstTry;
      return listening;
    },
    async exec(script) {
      await onConnection(async (client) => {
        try {
          await client.query(script);
        } catch (error) {
          throw translateDatabaseError(error);
        }
      });
    },
    async close() {
      await pool.end();
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    onConnectionWait(listener) {
      onWait = listener;
    },
  };
}

/** Waits after the listening connection drops or cannot connect: doubling from the first to the last. */
const LISTEN_RETRY_MS = { first: 100, last: 30_000 };

/**
 * `LISTEN` on a connection of its own (a pooled one would be handed to others and lose it), kept up until closed:
 * a connection that fails or ends is replaced after a wait that doubles up to 30 s, and `onNotify` is called once
 * it listens again, for what was notified meanwhile. Never throws: callers poll while it is down. `firstTry`
 * settles once the first connection listens or has failed to.
 */
function listenOn(
  options: PostgresDatabaseOptions,
  channel: string,
  onNotify: (payload?: string) => void,
): Listener & { firstTry: Promise<void> } {
  let tried: () => void = () => undefined;
  const firstTry = new Promise<void>((resolve) => {
    tried = resolve;
  });
  // An object: `close()` changes it between the loop's awaits.
  const state: { closed: boolean; client?: pg.Client; retry?: NodeJS.Timeout; wake?: () => void } = {
    closed: false,
  };
  const closed = () => state.closed;
  const loop = (async () => {
    let retryMs = LISTEN_RETRY_MS.first;
    let reconnected = false;
    while (!closed()) {
      const client = new pg.Client({
        connectionString: options.connectionString,
        connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        ...(options.connectionOptions === undefined ? {} : { options: options.connectionOptions }),
      });
      state.client = client;
      const dropped = new Promise<void>((resolve) => {
        client.on('error', () => {
          resolve();
        });
        client.on('end', () => {
          resolve();
        });
      });
      client.on('notification', (message) => {
        if (message.channel === channel) onNotify(message.payload);
      });
      try {
        await client.connect();
        await client.query(`listen ${client.escapeIdentifier(channel)}`);
        retryMs = LISTEN_RETRY_MS.first;
        if (reconnected) onNotify();
        reconnected = true;
        tried();
        await dropped;
      } catch {
        // Not reachable now: try again after the wait below.
        tried();
      }
      await client.end().catch(() => undefined);
      if (closed()) break;
      reconnected = true;
      await new Promise<void>((resolve) => {
        state.wake = resolve;
        state.retry = setTimeout(resolve, retryMs);
      });
      retryMs = Math.min(retryMs * 2, LISTEN_RETRY_MS.last);
    }
  })();
  return {
    firstTry,
    async close() {
      state.closed = true;
      clearTimeout(state.retry);
      state.wake?.();
      await state.client?.end().catch(() => undefined);
      await loop;
    },
  };
}
