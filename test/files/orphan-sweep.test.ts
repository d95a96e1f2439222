import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/files/file-store.ts';
import { createLocalFileStore } from '../../src/files/local-file-store.ts';
import { ORPHAN_MIN_AGE_MS, startOrphanSweep, sweepOrphanFiles } from '../../src/files/orphan-sweep.ts';
import { createS3FileStore } from '../../src/files/s3-file-store.ts';
import { createOrganization } from '../../src/transactions/organizations.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { startS3Server, type TestS3Server } from '../support/peers/s3.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

let testDb: TestDatabase;
let s3: TestS3Server;
let organizationId: string;
const dirs: string[] = [];

beforeAll(async () => {
  [testDb, s3] = await Promise.all([createTestDatabase(), startS3Server()]);
  ({ id: organizationId } = await createOrganization(testDb.db, { handle: uniqueHandle(), name: 'Sweep' }));
});
afterAll(async () => {
  await Promise.all([testDb.close(), s3.close()]);
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const TWO_HOURS_AGO = () => new Date(Date.now() - 2 * ORPHAN_MIN_AGE_MS);
const CONTENT = Buffer.from('%PDF-1.7 test');

/** Stores `key` with a `files` row naming it, as a finished upload does. */
async function storeWithRow(store: FileStore, key: string): Promise<void> {
  await store.put(key, CONTENT);
  await testDb.db.query(
    `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
     values ($1, 'application/pdf', 'pdf', 'W-9.pdf', $2, $3, clock_timestamp())`,
    [organizationId, key, CONTENT.length],
  );
}

/** Every file under `dir`, as paths relative to it with `/`. */
async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('the sweep of files left behind by interrupted writes', () => {
  it('removes old .partial files and old objects no row names from a local store, and nothing young, named or foreign', async () => {
    const root = await mkdtemp(join(tmpdir(), 'portico-sweep-'));
    dirs.push(root);
    const store = createLocalFileStore(root);
    const named = `${organizationId}/${randomUUID()}.pdf`;
    const orphan = `uploads/${randomUUID()}.pdf`;
    const youngOrphan = `uploads/${randomUUID()}.png`;
    // Not a key Portico makes: someone else's file, never Portico's to remove.
    const foreign = 'notes/readme.txt';
    await storeWithRow(store, named);
    for (const key of [orphan, youngOrphan, foreign]) await store.put(key, CONTENT);
    // What a process killed while writing leaves beside the name it was writing.
    const partial = `uploads/.${randomUUID()}.pdf.${randomBytes(6).toString('hex')}.partial`;
    const youngPartial = `uploads/.${randomUUID()}.pdf.${randomBytes(6).toString('hex')}.partial`;
    // And what one killed during the check at start leaves.
    const probe = `.check-${randomBytes(6).toString('hex')}`;
    for (const path of [partial, youngPartial, probe]) {
      await writeFile(join(root, path), CONTENT.subarray(0, 4));
    }
    for (const path of [named, orphan, foreign, partial, probe]) {
      await utimes(join(root, path), TWO_HOURS_AGO(), TWO_HOURS_AGO());
    }

    expect(await sweepOrphanFiles({ db: testDb.db, store })).toEqual({ unfinished: 2, orphans: 1 });
    expect(await filesIn(root)).toEqual([named, foreign, youngOrphan, youngPartial].sort());
    const opened = await store.open(named);
    expect(opened?.size).toBe(CONTENT.length);
    opened?.stream.destroy();
  });

  it('logs what it removed at start as counts, naming no file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'portico-sweep-'));
    dirs.push(root);
    const store = createLocalFileStore(root);
    const orphan = `uploads/${randomUUID()}.pdf`;
    await store.put(orphan, CONTENT);
    await utimes(join(root, orphan), TWO_HOURS_AGO(), TWO_HOURS_AGO());
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });

    await startOrphanSweep({ db: testDb.db, store, logger }).finished;
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        msg: 'removed files left behind by interrupted writes',
        unfinished: 0,
        orphans: 1,
      }),
    ]);
    expect(lines.join('')).not.toContain(orphan);
  });

  it('removes old objects no row names from an S3 bucket, only under its prefix, and nothing young or named', async () => {
    const prefix = `sweep-${randomBytes(6).toString('hex')}`;
    const store = createS3FileStore(s3.storeOptions({ prefix }));
    const elsewhere = createS3FileStore(s3.storeOptions({ prefix: `${prefix}-other` }));
    const named = `${organizationId}/${randomUUID()}.pdf`;
    const orphan = `uploads/${randomUUID()}.pdf`;
    const foreign = 'notes/readme.txt';
    const otherDeployment = `uploads/${randomUUID()}.pdf`;
    await storeWithRow(store, named);
    await store.put(orphan, CONTENT);
    await store.put(foreign, CONTENT);
    await elsewhere.put(otherDeployment, CONTENT);

    // An object's LastModified cannot be set: the sweep looks from two hours later instead.
    expect(await sweepOrphanFiles({ db: testDb.db, store })).toEqual({ unfinished: 0, orphans: 0 });
    const later = new Date(Date.now() + 2 * ORPHAN_MIN_AGE_MS);
    expect(await sweepOrphanFiles({ db: testDb.db, store, now: later })).toEqual({
      unfinished: 0,
      orphans: 1,
    });

    expect(await store.open(orphan)).toBeUndefined();
    for (const [kept, key] of [
      [store, named],
      [store, foreign],
      [elsewhere, otherDeployment],
    ] as const) {
      const opened = await kept.open(key);
      expect(opened?.size, key).toBe(CONTENT.length);
      opened?.stream.destroy();
    }
  });
});
