// What the evidence bundle's tests share: a database, a file store and a seal of the file's own; a completed
// transaction's bundle written to a file; and a bundle's entries read back and written again, edited, as someone
// tampering with it would.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import {
  planEvidenceBundle,
  writeEvidenceBundle,
  type EvidenceScope,
} from '../../../src/transactions/evidence/bundle.ts';
import type {
  ClosingManifest,
  TransactionManifest,
} from '../../../src/transactions/evidence/bundle-manifest.ts';
import { hashOf, readBundle, writeBundle } from '../../../src/transactions/evidence/bundle-zip.ts';
import {
  loadSealCredential,
  type SealCredential,
} from '../../../src/transactions/evidence/seal-credential.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { withEvidence } from '../../support/data/sealed-documents.ts';
import { organizationStory, type OrganizationStory } from '../../support/data/stories.ts';
import { createTestFileStore } from '../../support/data/transactions.ts';
import { createTestDatabase } from '../../support/db/database.ts';

export interface BundleWorld {
  db: Database;
  files: FileStore;
  credential: SealCredential;
  /** A folder for the bundles the tests write. */
  dir: string;
}

/** The world of a test file: made before its tests, closed after them. */
export function useBundleWorld(): BundleWorld {
  return madeBeforeAll('the evidence world', async (closeAfterAll) => {
    const testDb = await createTestDatabase();
    closeAfterAll(() => testDb.close());
    const store = await createTestFileStore();
    closeAfterAll(store.cleanup);
    const dir = await mkdtemp(join(tmpdir(), 'portico-evidence-'));
    closeAfterAll(() => rm(dir, { recursive: true, force: true }));
    const credential = await loadSealCredential({ dataDir: join(dir, 'data') });
    return { db: testDb.db, files: store.files, credential, dir };
  });
}

let written = 0;

/** The bundle of `scope` written to a new file of the world's folder; answers its path. */
export async function bundleFile(world: BundleWorld, scope: EvidenceScope): Promise<string> {
  const plan = await planEvidenceBundle(world.db, scope);
  written += 1;
  const path = join(world.dir, `${String(written)}-${plan.fileName}`);
  await writeEvidenceBundle(world, plan, createWriteStream(path));
  return path;
}

/** A new organization with a completed transaction of sealed documents and a certificate, and its bundle. */
export async function completedBundle(
  world: BundleWorld,
  options: { certificate?: 'made' | 'due' | 'none' } = {},
): Promise<{ story: OrganizationStory; path: string }> {
  const story = await organizationStory(world.db, world.files, { transactions: ['complete'] });
  const transaction = { id: story.transactionId, organizationId: story.organizationId };
  await withEvidence(world.db, world.files, world.credential, transaction, {
    certificate: options.certificate ?? 'made',
  });
  const path = await bundleFile(world, {
    organizationId: story.organizationId,
    transactionId: story.transactionId,
  });
  return { story, path };
}

/** Every entry of the bundle at `path`, in its order, by name. */
export async function entriesOf(path: string): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  await readBundle(path, async (entry) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await entry.open()) chunks.push(chunk as Buffer);
    entries.set(entry.name, Buffer.concat(chunks));
  });
  return entries;
}

/** An entry read as JSON, of the type the caller names (as JSON.parse's callers do). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the JSON's type
export function jsonOf<T>(entries: Map<string, Buffer>, name: string): T {
  const bytes = entries.get(name);
  if (bytes === undefined) throw new Error(`the bundle has no ${name}`);
  return JSON.parse(bytes.toString('utf8')) as T;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * The bundle at `path` written again to a new file with `edit` applied to its entries (a Map to change); with
 * `fixManifests`, its manifests then made to match the edited files, as a careful forger would.
 */
export async function tampered(
  world: BundleWorld,
  path: string,
  edit: (entries: Map<string, Buffer>) => void,
  options: { fixManifests?: boolean } = {},
): Promise<string> {
  const entries = await entriesOf(path);
  edit(entries);
  if (options.fixManifests === true) {
    const fix = (folder: string) => {
      const name = `${folder}manifest.json`;
      const manifest = jsonOf<TransactionManifest>(entries, name);
      manifest.files = manifest.files.flatMap((file) => {
        const bytes = entries.get(`${folder}${file.name}`);
        return bytes === undefined ? [] : [{ name: file.name, size: bytes.length, sha256: sha256(bytes) }];
      });
      entries.set(name, Buffer.from(JSON.stringify(manifest)));
    };
    const top = jsonOf<TransactionManifest | ClosingManifest>(entries, 'manifest.json');
    if (top.kind === 'closing') {
      for (const listed of top.transactions) {
        fix(`${listed.folder}/`);
        const bytes = entries.get(`${listed.folder}/manifest.json`) ?? Buffer.alloc(0);
        listed.manifest = { name: 'manifest.json', size: bytes.length, sha256: sha256(bytes) };
      }
      entries.set('manifest.json', Buffer.from(JSON.stringify(top)));
    } else fix('');
  }
  written += 1;
  const out = join(world.dir, `${String(written)}-tampered.zip`);
  await writeBundle(
    createWriteStream(out),
    Readable.from([...entries].map(([name, content]) => ({ name, content }))),
  );
  return out;
}

/** The SHA-256 of an entry of the bundle at `path`, as the reader hashes it. */
export async function entryHash(path: string, name: string): Promise<string | undefined> {
  let found: string | undefined;
  await readBundle(path, async (entry) => {
    if (entry.name === name) found = (await hashOf(await entry.open(), name)).sha256;
  });
  return found;
}
