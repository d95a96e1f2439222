import type { Readable } from 'node:stream';

/**
 * Where file contents live, under storage keys that the database keeps (`<organization id>/<uuid>.pdf`): a
 * directory of this machine (`local-file-store.ts`, the default) or an S3-compatible bucket that several nodes
 * share (`s3-file-store.ts`). The database row of a file is written after its content; when that write fails,
 * the content is deleted again, and what a killed process could not delete is swept at the next start.
 */
export interface FileStore {
  /** Stores `content` under `storageKey`, replacing what was there: whole, or not at all. */
  put(storageKey: string, content: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /**
   * The content and its size in bytes, or undefined when nothing is stored under the key. The stream holds a
   * file or a connection open until it has been read to its end or destroyed: do one or the other.
   */
  open(storageKey: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** Removes what is stored under the key; nothing stored is no error. */
  delete(storageKey: string): Promise<void>;
  /**
   * The storage keys of what was last written before `before` (a file's mtime, an object's LastModified), a
   * page at a time, for the sweep of objects that no row names (`orphan-sweep.ts`). Unfinished writes are not
   * listed.
   */
  listWrittenBefore(before: Date): AsyncIterable<string[]>;
  /**
   * Removes what writes that never finished left behind (a process killed while writing) and was last touched
   * before `before`; answers how many it removed. A store whose writes are whole or nothing leaves none.
   */
  removeUnfinishedBefore(before: Date): Promise<number>;
  /**
   * Proves at start that the store can be used (the directory can be written; the bucket can be reached with
   * the credentials at hand), or throws a `ConfigError` that tells the operator what to change (the CLI prints
   * it in one line, without a stack). Never names a secret.
   */
  check(): Promise<void>;
}
