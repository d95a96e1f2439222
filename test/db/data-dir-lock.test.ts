import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir, lockPath, readLockOwner } from '../../src/db/data-dir-lock.ts';

let root: string;
/** The pid of a process that has exited. */
let deadPid: number;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'portico-lock-'));
  const exited = spawnSync(process.execPath, ['-e', '0']);
  deadPid = exited.pid;
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const dataDir = () => mkdtemp(join(root, 'data-'));

describe('the data-dir lock', () => {
  it('takes a free data dir with this process as owner (mode 0600), and releases it', async () => {
    const dir = await dataDir();
    const lock = await lockDataDir(dir);
    expect(await readLockOwner(dir)).toEqual({ pid: process.pid });
    expect((await stat(lockPath(dir))).mode & 0o777).toBe(0o600);
    await lock.update({ adminSocket: '/tmp/admin.sock' });
    expect(await readLockOwner(dir)).toEqual({ pid: process.pid, adminSocket: '/tmp/admin.sock' });
    await lock.release();
    expect(await readLockOwner(dir)).toBeUndefined();
    // Nothing is left beside it.
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a data dir a live process holds, naming it', async () => {
    const dir = await dataDir();
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(new DataDirLockedError(dir, { pid: process.pid }).message);
    await lock.release();
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = await dataDir();
    await writeFile(lockPath(dir), JSON.stringify({ pid: deadPid }), { mode: 0o600 });
    const lock = await lockDataDir(dir);
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toEqual({ pid: process.pid });
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("lets exactly one of two simultaneous takers have a dead process's lock", async () => {
    for (let round = 0; round < 20; round += 1) {
      const dir = await dataDir();
      await writeFile(lockPath(dir), JSON.stringify({ pid: deadPid }), { mode: 0o600 });
      const outcomes = await Promise.allSettled([lockDataDir(dir), lockDataDir(dir)]);
      const taken = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(taken, `round ${String(round)}`).toHaveLength(1);
      const [refused] = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused?.reason).toBeInstanceOf(DataDirLockedError);
      await taken[0]?.value.release();
    }
  });

  it('is never seen empty or half written while its owner updates it', async () => {
    const dir = await dataDir();
    const lock = await lockDataDir(dir);
    const state = { updating: true };
    const seen: unknown[] = [];
    const reading = (async () => {
      while (state.updating) seen.push(await readLockOwner(dir));
    })();
    for (let update = 0; update < 300; update += 1)
      await lock.update({ adminSocket: `/tmp/${String(update)}.sock` });
    state.updating = false;
    await reading;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((owner) => (owner as { pid?: number } | undefined)?.pid !== process.pid)).toEqual([]);
    await lock.release();
  });
});
