import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../config.ts';
import type { FileStore } from './file-store.ts';
import { assertStorageKey } from './storage-key.ts';

/** Whether a failed file operation means that nothing is stored there (`a/b` when `a` is a file: ENOTDIR). */
function isAbsent(error: unknown): boolean {
  const { code } = error as NodeJS.ErrnoException;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** How many keys `listWrittenBefore` answers at a time. */
const PAGE_SIZE = 1000;

/**
 * What this store writes besides the files themselves, by name: a file being written (`.<name>.<random>.partial`,
 * renamed over its name once whole) and the probe of `check` (`.check-<random>`). Left behind only by a process
 * that was killed between writing one and renaming or removing it.
 */
function isTemporary(name: string): boolean {
  return name.startsWith('.') && (name.endsWith('.partial') || name.startsWith('.check-'));
}

/** Every regular file under `dir`, depth first; nothing for a directory that does not exist. */
async function* filesUnder(dir: string): AsyncGenerator<{ path: string; name: string }> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield { path, name: entry.name };
  }
}

/** When the file was last written, or undefined when it went away meanwhile. */
async function modifiedAt(path: string): Promise<Date | undefined> {
  try {
    return (await stat(path)).mtime;
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}

/**
 * Files kept under one directory (`<data dir>/files`), readable by their owner only (files 0600, directories
 * 0700). Each is written to a temporary file beside it, flushed to disk and renamed over its name, so a reader
 * or a crash sees the whole old content or the whole new one, never part of a file.
 *
 * @example
 * const files = createLocalFileStore('/var/lib/portico/files');
 * await files.put('org/agreement.pdf', pdf);
 */
export function createLocalFileStore(root: string): FileStore {
  const base = resolve(root);
  const pathOf = (storageKey: string): string => {
    assertStorageKey(storageKey);
    const path = resolve(base, storageKey);
    // The key rule above already keeps keys inside; this says so of the path itself.
    if (!path.startsWith(base + sep)) throw new Error(`storage key escapes the store: ${storageKey}`);
    return path;
  };
  return {
    async put(storageKey, content) {
      const path = pathOf(storageKey);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
      try {
        const handle = await open(temporary, 'wx', 0o600);
        try {
          await handle.writeFile(content);
          // On disk before the rename: after a power cut the name holds the old content or all of the new.
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async open(storageKey) {
      const path = pathOf(storageKey);
      let handle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
      try {
        // The size of the very file that is read: a put that renames a new file over the name meanwhile
        // changes neither.
        const stats = await handle.stat();
        if (!stats.isFile()) {
          await handle.close();
          return undefined;
        }
        // The stream closes the file once it has been read, or destroyed.
        return { stream: handle.createReadStream(), size: stats.size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async delete(storageKey) {
      const path = pathOf(storageKey);
      try {
        await unlink(path);
      } catch (error) {
        if (!isAbsent(error)) throw error;
      }
    },
    async *listWrittenBefore(before) {
      let page: string[] = [];
      for await (const { path, name } of filesUnder(base)) {
        if (name.startsWith('.')) continue;
        const written = await modifiedAt(path);
        if (written === undefined || written >= before) continue;
        page.push(relative(base, path).split(sep).join('/'));
        if (page.length === PAGE_SIZE) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    },
    async removeUnfinishedBefore(before) {
      let removed = 0;
      for await (const { path, name } of filesUnder(base)) {
        if (!isTemporary(name)) continue;
        const written = await modifiedAt(path);
        if (written === undefined || written >= before) continue;
        await rm(path, { force: true });
        removed += 1;
      }
      return removed;
    },
    async check() {
      const probe = join(base, `.check-${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(base, { recursive: true, mode: 0o700 });
        await writeFile(probe, '', { flag: 'wx', mode: 0o600 });
        await rm(probe, { force: true });
      } catch (error) {
        throw new ConfigError(
          `cannot store files in ${base}: ${(error as Error).message}. Make it a directory that the user ` +
            'running Portico can write, choose another data dir (PORTICO_DATA_DIR), or store files in S3 ' +
            '(PORTICO_S3_BUCKET)',
          { cause: error },
        );
      }
    },
  };
}
