import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What the process holding the embedded database writes into its lock file. */
export interface LockOwner {
  pid: number;
  /** Where that process answers CLI commands (see `admin/`), when it serves. */
  adminSocket?: string;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
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
 * Takes the data dir for this process: PGlite allows one process per database directory and does not
 * check it itself. A lock left behind by a process that died is taken over.
 *
 * @returns a function that updates what the lock says (e.g. once the admin socket listens) and one that
 * releases it
 */
export async function lockDataDir(
  dataDir: string,
): Promise<{ update(owner: Omit<LockOwner, 'pid'>): Promise<void>; release(): Promise<void> }> {
  await mkdir(dataDir, { recursive: true });
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(JSON.stringify({ pid: process.pid }));
      await handle.close();
      return {
        async update(owner) {
          await writeFile(path, JSON.stringify({ ...owner, pid: process.pid }), { mode: 0o600 });
        },
        async release() {
          await rm(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = await readLockOwner(dataDir);
      if (owner) throw new DataDirLockedError(dataDir, owner);
      await rm(path, { force: true });
    }
  }
  throw new Error(`could not lock ${path}`);
}
