import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite, types, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Database, Queryable } from './database.ts';

const PGLITE_WASM = fileURLToPath(
  new URL('../../node_modules/@electric-sql/pglite/dist/pglite.wasm', import.meta.url),
);
let compiling: Promise<WebAssembly.Module | undefined> | undefined;

/**
 * PGlite's WebAssembly (PostgreSQL, 9 MB), compiled once per process. The first call reads it and starts V8
 * compiling it on its background threads: `portico serve` calls it first thing, so that the compilation runs
 * while the main thread loads the services' modules, instead of when the database opens, where PGlite would read
 * and compile it itself. Undefined when the file is not where it should be, or does not compile: PGlite then
 * reads its own.
 */
export function compilePGlite(): Promise<WebAssembly.Module | undefined> {
  compiling ??= (async () => {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      // Read at once (a few milliseconds): the compilation starts now, not at the event loop's next turn.
      bytes = new Uint8Array(readFileSync(PGLITE_WASM));
    } catch {
      return undefined;
    }
    // A module that does not compile is PGlite's to report, when it compiles its own.
    return WebAssembly.compile(bytes).catch(() => undefined);
  })();
  return compiling;
}

/** A PGlite database that can also write its whole data dir out as a tarball. */
export interface PGliteDatabase extends Database {
  /** The data dir as an uncompressed tarball, for `loadDataDir` of another database (a copy of this one). */
  dumpDataDir(): Promise<Blob>;
}

/**
 * How a PGlite database starts when it is not the default: tests start each file's database from one migrated
 * tarball (`loadDataDir`) rather than running initdb and the migrations again, and make that tarball small
 * (`initDbStartParams`).
 */
export type PGliteStartOptions = Pick<PGliteOptions, 'loadDataDir' | 'initDbStartParams'>;

/**
 * An embedded PGlite database (PostgreSQL compiled to WebAssembly, in this process).
 * `dataDir` undefined → in memory. PGlite does not lock its directory itself: callers that open one on disk
 * hold the data-dir lock (see `data-dir-lock.ts`).
 */
export async function createPGliteDatabase(
  dataDir?: string,
  options: PGliteStartOptions = {},
): Promise<PGliteDatabase> {
  const pgliteWasmModule = await compilePGlite();
  const db = await PGlite.create({
    ...options,
    ...(pgliteWasmModule === undefined ? {} : { pgliteWasmModule }),
    ...(dataDir === undefined ? {} : { dataDir }),
    // Trigram indexes of the console's search (migration 0016): every database, snapshots and copies too, loads
    // the extension its catalog may name.
    extensions: { pg_trgm },
    // Match node-postgres: bigint as string (money never goes through a float).
    parsers: { [types.INT8]: (value: string) => value },
  });

  const queryWith = (client: Pick<PGlite, 'query'>): Queryable['query'] =>
    async function query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await client.query<Row>(text, params as unknown[]);
      return result.rows;
    };

  // Queries and transactions begun and not yet ended: PGlite runs one at a time, and queues the others.
  let running = 0;
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
    }
  };
  const query = queryWith(db);

  return {
    kind: 'pglite',
    query: <Row>(text: string, params?: readonly unknown[]) => counted(() => query<Row>(text, params)),
    transaction: (work) =>
      counted(() =>
        db.transaction((tx) =>
          work({
            query: queryWith(tx),
            exec: async (script) => {
              await tx.exec(script);
            },
          }),
        ),
      ),
    async exec(script) {
      await db.exec(script);
    },
    async listen(channel, onNotify) {
      const unlisten = await db.listen(channel, (payload) => {
        onNotify(payload);
      });
      return {
        async close() {
          // Closing the database first has released the channel already.
          if (!db.closed) await unlisten();
        },
      };
    },
    dumpDataDir: () => db.dumpDataDir('none'),
    poolUse: () => ({ total: 1, idle: running === 0 ? 1 : 0, waiting: Math.max(running - 1, 0) }),
    async close() {
      await db.close();
    },
  };
}
