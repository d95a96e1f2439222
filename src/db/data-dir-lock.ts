import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What the process holding the embedded database writes into its lock file. */
export interface LockOwner {
  pid: number;
  /** Where that process answers CLI commands (see `admin/`), when it serves. */
  adminSocket?: string;
}

/**
 * Thrown by `lockDataDir` when a live process holds the data dir already. `portico` prints its message
 * alone, without a stack.
 */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    /** The data dir (not the lock file). */
    readonly path: string,
    readonly owner: LockOwner,
  ) {
    super(`the embedded database in ${path} is in use by process ${owner.pid}`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock file of a data dir, `<data dir>/portico.lock`: a {@link LockOwner} as JSON, mode 0600. */
export function lockPath(dataDir: string): string {
  return join(dataDir, 'portico.lock');
}

/** The live process holding the data dir, or undefined (a lock left by a dead process does not count). */
export async function readLockOwner(dataDir: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(lockPath(dataDir), 'utf8')) as LockOwner;
    return isAlive(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes `owner` to a file of its own next to the lock and hands that file to `place`, so that the lock file
 * only ever appears or changes whole: a reader never sees it empty or half written.
 */
async function withOwnerFile(
  path: string,
  owner: LockOwner,
  place: (file: string) => Promise<void>,
): Promise<void> {
  const file = `${path}.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  await writeFile(file, JSON.stringify(owner), { mode: 0o600 });
  try {
    await place(file);
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * Removes a lock left by a dead process, unless another process has taken it over meanwhile: the lock is
 * first moved aside under a name of this process's own (an atomic rename), then looked at there. A live
 * owner's lock found there is put back.
 */
async function removeStaleLock(dataDir: string, path: string): Promise<void> {
  const aside = `${path}.stale.${String(process.pid)}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const owner = JSON.parse(await readFile(aside, 'utf8')) as LockOwner;
    if (isAlive(owner.pid)) {
      // Another process took the data dir between our look and our move: its lock goes back. If yet another
      // has placed one since, the next attempt finds that one.
      await link(aside, path).catch(() => undefined);
      throw new DataDirLockedError(dataDir, owner);
    }
  } catch (error) {
    if (error instanceof DataDirLockedError) throw error;
    // Unreadable: no process of ours writes a lock partly, so nothing lives behind it.
  } finally {
    await rm(aside, { force: true });
  }
}

/**
 * Takes the data dir for this process: PGlite allows one process per database directory and does not
 * check it itself. A lock left behind by a process that died is taken over. The lock file appears whole
 * (written aside, then hard-linked into place, which fails if a lock exists) and changes whole (renamed over).
 *
 * @returns a function that updates what the lock says (e.g. once the admin socket listens) and one that
 * releases it
 */
export async function lockDataDir(
  dataDir: string,
): Promise<{ update(owner: Omit<LockOwner, 'pid'>): Promise<void>; release(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await withOwnerFile(path, { pid: process.pid }, (file) => link(file, path));
      return {
        async update(owner) {
          await withOwnerFile(path, { ...owner, pid: process.pid }, (file) => rename(file, path));
        },
        async release() {
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = await readLockOwner(dataDir);
      if (owner) throw new DataDirLockedError(dataDir, owner);
      await removeStaleLock(dataDir, path);
    }
  }
  throw new Error(`could not lock ${path}`);
}
