import type { Logger } from 'pino';
import type { Queryable } from '../db/database.ts';
import type { FileStore } from './file-store.ts';
import { isPorticoStorageKey } from './storage-key.ts';

/**
 * A file's content is stored before its `files` row and deleted again when the row cannot be written; a process
 * killed between the two (or a delete that failed) leaves an object that no row names, and a local write cut
 * off leaves its `.partial` file. Nothing reads them; this removes them, at start.
 */

/**
 * Only what was last written longer ago than this is removed: an upload in flight on another node has stored
 * its object but not yet committed its row, and takes seconds, not an hour.
 */
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;

/** What a sweep removed. */
export interface SweepResult {
  /** Leftovers of writes that never finished (the local store's `.partial` files). */
  unfinished: number;
  /** Stored objects that no `files` row names. */
  orphans: number;
}

export interface SweepOptions {
  db: Queryable;
  store: FileStore;
  /** @default the current time */
  now?: Date;
  /** @default ORPHAN_MIN_AGE_MS */
  minAgeMs?: number;
  /** Stops the sweep between pages (the process is closing). */
  signal?: AbortSignal;
}

/**
 * Removes from `store` the leftovers of unfinished writes and the objects of Portico's key shape that no `files`
 * row names, of those last written more than an hour ago. An object a row names is never removed, however old.
 *
 * @example
 * const { unfinished, orphans } = await sweepOrphanFiles({ db, store: files });
 */
export async function sweepOrphanFiles(options: SweepOptions): Promise<SweepResult> {
  const { db, store, signal } = options;
  const before = new Date((options.now ?? new Date()).getTime() - (options.minAgeMs ?? ORPHAN_MIN_AGE_MS));
  const result: SweepResult = { unfinished: await store.removeUnfinishedBefore(before), orphans: 0 };
  for await (const page of store.listWrittenBefore(before)) {
    if (signal?.aborted === true) break;
    const candidates = page.filter(isPorticoStorageKey);
    if (candidates.length === 0) continue;
    const named = await db.query<{ storageKey: string }>(
      'select storage_key as "storageKey" from files where storage_key = any($1::text[])',
      [candidates],
    );
    const kept = new Set(named.map((row) => row.storageKey));
    for (const key of candidates) {
      if (kept.has(key)) continue;
      await store.delete(key);
      result.orphans += 1;
    }
  }
  return result;
}

/**
 * Runs the sweep in the background of a start, logging what it removed (counts only) or why it failed; the
 * start does not wait for it. `finished` settles when it is over (never rejects); `stop()` ends it between
 * pages and resolves once it has.
 */
export function startOrphanSweep(options: SweepOptions & { logger: Logger }): {
  finished: Promise<void>;
  stop(): Promise<void>;
} {
  const controller = new AbortController();
  const { logger } = options;
  const running = sweepOrphanFiles({ ...options, signal: controller.signal }).then(
    ({ unfinished, orphans }) => {
      if (unfinished + orphans > 0) {
        logger.info({ unfinished, orphans }, 'removed files left behind by interrupted writes');
      }
    },
    (error: unknown) => {
      // Nothing depends on it: the next start tries again.
      logger.warn({ err: error }, 'could not sweep files left behind by interrupted writes');
    },
  );
  return {
    finished: running,
    async stop() {
      controller.abort();
      await running;
    },
  };
}
