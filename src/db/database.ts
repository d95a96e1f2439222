/** A connection, a pool or an open transaction: anything that runs one parameterized statement. */
export interface Queryable {
  /**
   * Runs one parameterized statement and returns its rows. `bigint` columns come back as strings,
   * `timestamptz` as `Date`, `json`/`jsonb` parsed.
   *
   * @example
   * const rows = await db.query<{ id: string }>('select id from organizations where handle = $1', [handle]);
   */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
}

/** An open database transaction. */
export interface Transaction extends Queryable {
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** The database Portico runs on: a PostgreSQL server through a `pg` pool, or an embedded PGlite. */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `work` in one database transaction: committed when it resolves, rolled back when it throws.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Calls `onNotify` with its payload for each notification on `channel` (`NOTIFY` or `pg_notify`, delivered
   * when the notifying transaction commits) until the returned listener is closed. PostgreSQL: one connection of
   * its own, outside the pool; when it drops, it reconnects with backoff and then calls `onNotify` once without a
   * payload, since notifications sent meanwhile are lost (look at everything). PGlite: its in-process `listen`.
   * Notifications are a hint to look, never the only way.
   *
   * @example
   * const listener = await db.listen('portico_outbox', () => worker.wake());
   * await listener.close();
   */
  listen(channel: string, onNotify: (payload?: string) => void): Promise<Listener>;
  close(): Promise<void>;
  /** How its connections are used now, for metrics: the `pg` pool's; PGlite's as a pool of one connection. */
  poolUse?(): PoolUse;
  /** Calls `listener` with the seconds each wait for a connection of the pool took (PostgreSQL), for metrics. */
  onConnectionWait?(listener: (seconds: number) => void): void;
}

/** The connections of a database at one moment. */
export interface PoolUse {
  /** Open connections. */
  total: number;
  /** Open connections not in use. */
  idle: number;
  /** Queries and transactions waiting for a connection. */
  waiting: number;
}

/** A `listen` in force. */
export interface Listener {
  /** Stops listening; resolves once the channel is released. */
  close(): Promise<void>;
}
