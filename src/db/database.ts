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
  close(): Promise<void>;
}
