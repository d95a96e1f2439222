// Checking an evidence bundle offline (verify-bundle.ts), as a fund's counsel would with `portico verify`: a
// completed transaction's bundle holds; a byte changed, an event removed or edited, a seal broken, a history
// rewritten with its manifest to match are each named where they are; a closing names the failing transaction's
// folder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryFile, TransactionManifest } from '../../../src/transactions/evidence/bundle-manifest.ts';
import { loadSealCredential } from '../../../src/transactions/evidence/seal-credential.ts';
import { verifyBundle } from '../../../src/transactions/evidence/verify-bundle.ts';
import { chainHash } from '../../../src/transactions/history/chain.ts';
import { closingOf, withEvidence } from '../../support/data/sealed-documents.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { DIALECT } from '../../support/db/database.ts';
import { bundleFile, completedBundle, jsonOf, tampered, useBundleWorld } from './bundle-world.ts';

const world = useBundleWorld();
const W9 = 'files/W-9 (U.S. persons) or W-8BEN (others)/W-9 Investor 1.pdf';
const SIGNED = 'documents/Subscription agreement - signed.pdf';

/** A copy of `bytes` with the byte at `at` (from the end when negative) changed. */
function flipped(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  const index = at < 0 ? copy.length + at : at;
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

/** Edits `history.json` of a bundle's entries (in `folder`). */
function editHistory(entries: Map<string, Buffer>, change: (history: HistoryFile) => void, folder = '') {
  const history = jsonOf<HistoryFile>(entries, `${folder}history.json`);
  change(history);
  entries.set(`${folder}history.json`, Buffer.from(JSON.stringify(history, null, 2)));
}

describe(`checking an evidence bundle offline (${DIALECT})`, () => {
  it("holds for a completed transaction's bundle, and says what it checked", async () => {
    const { path } = await completedBundle(world);
    const check = await verifyBundle(path);
    expect(check).toMatchObject({
      ok: true,
      kind: 'transaction',
      transactions: 1,
      files: 5,
      seals: 2,
      sealedBy: [world.credential.name],
      trusted: null,
      certificates: { made: 1, due: 0, none: 0 },
    });
    expect(check.ok && check.entries).toBeGreaterThan(5);
    const trusted = await verifyBundle(path, {
      trusted: [world.credential.certificates[0] ?? new Uint8Array()],
    });
    expect(trusted).toMatchObject({ ok: true, trusted: true });
  });

  it('names the upload whose byte changed', async () => {
    const { path } = await completedBundle(world);
    const changed = await tampered(world, path, (entries) => {
      entries.set(W9, flipped(entries.get(W9) ?? Buffer.alloc(0), 200));
    });
    expect(await verifyBundle(changed)).toEqual({
      ok: false,
      problem: `${W9} does not match the manifest: its size or SHA-256 is not the one recorded`,
    });
  });

  it('names where the chain breaks when an event is removed, even with the manifest made to match', async () => {
    const { path } = await completedBundle(world);
    const removed = await tampered(
      world,
      path,
      (entries) => {
        editHistory(entries, (history) => {
          history.entries.splice(3, 1);
        });
      },
      { fixManifests: true },
    );
    expect(await verifyBundle(removed)).toEqual({
      ok: false,
      problem: 'history.json does not match its hash chain from entry 4: entry 4 is missing: it was removed',
    });
  });

  it('names the entry whose canonical text changed', async () => {
    const { path } = await completedBundle(world);
    const edited = await tampered(world, path, (entries) => {
      editHistory(entries, (history) => {
        const entry = history.entries[1];
        if (entry) entry.canonical = entry.canonical.replace('"createdAt": "', '"createdAt": "1');
      });
    });
    expect(await verifyBundle(edited)).toEqual({
      ok: false,
      problem:
        'history.json does not match its hash chain from entry 2: entry 2 was edited: its content no longer matches its hash',
    });
  });

  it('names a document whose seal no longer holds, even with the manifest made to match', async () => {
    const { path } = await completedBundle(world);
    const broken = await tampered(
      world,
      path,
      (entries) => {
        const document = entries.get(SIGNED) ?? Buffer.alloc(0);
        entries.set(SIGNED, flipped(document, document.indexOf('Producer')));
      },
      { fixManifests: true },
    );
    expect(await verifyBundle(broken)).toEqual({
      ok: false,
      problem: `${SIGNED}: the document changed after it was sealed: what the seal covers has another digest`,
    });
  });

  it('finds a history rewritten whole, hashes and head and manifest too, by the head its certificate recorded', async () => {
    const { path } = await completedBundle(world);
    const rewritten = await tampered(
      world,
      path,
      (entries) => {
        editHistory(entries, (history) => {
          const [first] = history.entries;
          if (first) first.canonical = first.canonical.replace('"system"', '"api_key"');
          let previous: Buffer = Buffer.alloc(32);
          for (const entry of history.entries) {
            entry.previous = previous.toString('hex');
            previous = chainHash(previous, entry.canonical);
            entry.hash = previous.toString('hex');
          }
          if (history.head) history.head.hash = previous.toString('hex');
        });
        const manifest = jsonOf<TransactionManifest>(entries, 'manifest.json');
        const history = jsonOf<HistoryFile>(entries, 'history.json');
        manifest.history.head = history.head;
        entries.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
      },
      { fixManifests: true },
    );
    const check = await verifyBundle(rewritten);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.problem).toMatch(
      /^certificate\.pdf certifies the history up to entry \d+ \([0-9a-f]{12}…\), which history\.json does not hold$/,
    );
  });

  it('refuses a certificate the manifest was edited to say is not made, so that its head is not checked', async () => {
    const { path } = await completedBundle(world);
    const downgraded = await tampered(world, path, (entries) => {
      const manifest = jsonOf<TransactionManifest>(entries, 'manifest.json');
      manifest.certificate = { status: 'none' };
      entries.set('manifest.json', Buffer.from(JSON.stringify(manifest)));
    });
    expect(await verifyBundle(downgraded)).toEqual({
      ok: false,
      problem: 'certificate.pdf is in the bundle, but manifest.json does not record it made',
    });
  });

  it('names a file added to the bundle and one removed from it', async () => {
    const { path } = await completedBundle(world);
    const added = await tampered(world, path, (entries) => {
      entries.set('documents/Side letter.pdf', Buffer.from('%PDF-1.7'));
    });
    expect(await verifyBundle(added)).toEqual({
      ok: false,
      problem: 'documents/Side letter.pdf is not in the manifest: it was added',
    });
    const removed = await tampered(world, path, (entries) => {
      entries.delete(W9);
    });
    expect(await verifyBundle(removed)).toEqual({
      ok: false,
      problem: `${W9} is missing: the manifest lists it`,
    });
  });

  it('refuses a seal whose certificate does not chain to the one trusted, and holds a certificate still due', async () => {
    const { path } = await completedBundle(world, { certificate: 'due' });
    expect(await verifyBundle(path)).toMatchObject({ ok: true, seals: 1, certificates: { made: 0, due: 1 } });
    const other = await loadSealCredential({ dataDir: join(world.dir, 'another-seal') });
    const check = await verifyBundle(path, { trusted: [other.certificates[0] ?? new Uint8Array()] });
    expect(check).toEqual({
      ok: false,
      problem: `${SIGNED}: the seal's certificate does not chain to a certificate you trust`,
    });
  });

  it("holds for a closing's bundle and names the failing transaction's folder", async () => {
    const story = await organizationStory(world.db, world.files, { transactions: ['complete', 'complete'] });
    for (const made of story.transactions) {
      await withEvidence(
        world.db,
        world.files,
        world.credential,
        { id: made.id, organizationId: story.organizationId },
        {
          certificate: 'made',
        },
      );
    }
    const closingId = await closingOf(
      world.db,
      story,
      story.transactions.map((made) => made.id),
    );
    const path = await bundleFile(world, { organizationId: story.organizationId, closingId });
    expect(await verifyBundle(path)).toMatchObject({
      ok: true,
      kind: 'closing',
      transactions: 2,
      files: 10,
      seals: 4,
      certificates: { made: 2, due: 0, none: 0 },
    });
    const second = `Investor 2 (${story.transactions[1]?.id.slice(0, 8) ?? ''})`;
    const w9 = `${second}/files/W-9 (U.S. persons) or W-8BEN (others)/W-9 Investor 2.pdf`;
    const changed = await tampered(world, path, (entries) => {
      entries.set(w9, flipped(entries.get(w9) ?? Buffer.alloc(0), 300));
    });
    expect(await verifyBundle(changed)).toEqual({
      ok: false,
      problem: `${w9} does not match the manifest: its size or SHA-256 is not the one recorded`,
    });
    const removed = await tampered(
      world,
      path,
      (entries) => {
        editHistory(entries, (history) => history.entries.pop(), `${second}/`);
      },
      { fixManifests: true },
    );
    const check = await verifyBundle(removed);
    expect(!check.ok && check.problem).toMatch(
      new RegExp(
        `^${second.replace(/[()]/g, '\\$&')}/history\\.json does not match its hash chain from entry \\d+: entry \\d+ is missing: it was removed$`,
      ),
    );
  });
});
