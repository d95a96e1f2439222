// The evidence bundle's writer (bundle.ts): a completed transaction's certificate, sealed documents, uploads,
// history with its chain, template version and manifest, in one zip streamed from the file store; a closing's, a
// folder per transaction; another organization's is not found, and a file missing from the store fails the
// bundle rather than leave it out.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { planEvidenceBundle, writeEvidenceBundle } from '../../../src/transactions/evidence/bundle.ts';
import {
  BUNDLE_FORMAT,
  UniqueNames,
  safeName,
  type ClosingManifest,
  type HistoryFile,
  type TransactionManifest,
} from '../../../src/transactions/evidence/bundle-manifest.ts';
import { verifyHistory } from '../../../src/transactions/history/chain.ts';
import { closingOf, withEvidence } from '../../support/data/sealed-documents.ts';
import { organizationStory, transactionStory } from '../../support/data/stories.ts';
import { DIALECT } from '../../support/db/database.ts';
import { bundleFile, completedBundle, entriesOf, jsonOf, useBundleWorld } from './bundle-world.ts';

const world = useBundleWorld();
const W9 = 'files/W-9 (U.S. persons) or W-8BEN (others)/W-9 Investor 1.pdf';
const SIGNED = 'documents/Subscription agreement - signed.pdf';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe(`the evidence bundle (${DIALECT})`, () => {
  it("holds a completed transaction's certificate, sealed document, upload, history, template and manifest, the manifest last", async () => {
    const { story, path } = await completedBundle(world);
    const entries = await entriesOf(path);
    expect([...entries.keys()]).toEqual([
      'certificate.pdf',
      SIGNED,
      W9,
      'history.json',
      'template.json',
      'manifest.json',
    ]);

    const manifest = jsonOf<TransactionManifest>(entries, 'manifest.json');
    const check = await verifyHistory(world.db, { transactionId: story.transactionId });
    const [certificate] = await world.db.query<{ sha256: string; position: string; head: string }>(
      `select sha256, chain_position::text as position, chain_head as head from transaction_certificates
       where transaction_id = $1`,
      [story.transactionId],
    );
    expect(manifest).toMatchObject({
      format: BUNDLE_FORMAT,
      kind: 'transaction',
      transaction: {
        id: story.transactionId,
        organizationId: story.organizationId,
        title: 'Investor 1, Fund subscription',
        state: 'completed',
      },
      template: { key: 'subscription', version: 1 },
      history: { entries: check.ok ? check.entries : -1, head: { hash: check.ok ? check.head : '' } },
      certificate: {
        status: 'made',
        path: 'certificate.pdf',
        sha256: certificate?.sha256,
        chainPosition: Number(certificate?.position),
        chainHead: certificate?.head,
      },
    });
    // Every file but the manifest, with the hash and size of what is in the zip.
    expect(manifest.files).toEqual(
      [...entries]
        .filter(([name]) => name !== 'manifest.json')
        .map(([name, bytes]) => ({ name, size: bytes.length, sha256: sha256(bytes) })),
    );
    expect(manifest.certificate.status === 'made' && manifest.certificate.sha256).toBe(
      sha256(entries.get('certificate.pdf') ?? Buffer.alloc(0)),
    );

    const history = jsonOf<HistoryFile>(entries, 'history.json');
    expect(history.entries.map((entry) => entry.position)).toEqual(
      Array.from({ length: history.entries.length }, (_, index) => index + 1),
    );
    expect(history.head?.hash).toBe(history.entries.at(-1)?.hash);
    // The canonical text as the database hashed it, byte for byte.
    const [first] = await world.db.query<{ canonical: string }>(
      `select portico_history_canonical(e) as canonical from transaction_events e
       where e.transaction_id = $1 and e.chain_position = 1`,
      [story.transactionId],
    );
    expect(history.entries[0]?.canonical).toBe(first?.canonical);
    expect(jsonOf<{ key: string; version: number }>(entries, 'template.json')).toMatchObject({
      key: 'subscription',
      version: 1,
      definition: { processes: expect.any(Array) as unknown },
    });
  });

  it('says a certificate still due, and none for a transaction not complete, without a certificate.pdf', async () => {
    const due = await completedBundle(world, { certificate: 'due' });
    const dueEntries = await entriesOf(due.path);
    expect(dueEntries.has('certificate.pdf')).toBe(false);
    expect(jsonOf<TransactionManifest>(dueEntries, 'manifest.json').certificate).toEqual({ status: 'due' });

    const sent = await organizationStory(world.db, world.files, { transactions: ['sent'] });
    const path = await bundleFile(world, {
      organizationId: sent.organizationId,
      transactionId: sent.transactionId,
    });
    const entries = await entriesOf(path);
    expect([...entries.keys()]).toEqual(['history.json', 'template.json', 'manifest.json']);
    expect(jsonOf<TransactionManifest>(entries, 'manifest.json').certificate).toEqual({ status: 'none' });
  });

  it("holds a closing's transactions in a folder each, named by investor and id, and a manifest of the folders", async () => {
    const story = await organizationStory(world.db, world.files, { transactions: ['complete', 'sent'] });
    const [complete, sent] = story.transactions;
    if (complete === undefined || sent === undefined) throw new Error('the story made two transactions');
    await withEvidence(
      world.db,
      world.files,
      world.credential,
      { id: complete.id, organizationId: story.organizationId },
      {
        certificate: 'made',
      },
    );
    const closingId = await closingOf(world.db, story, [complete.id, sent.id]);
    const plan = await planEvidenceBundle(world.db, { organizationId: story.organizationId, closingId });
    expect(plan).toMatchObject({
      kind: 'closing',
      transactionIds: [complete.id, sent.id],
      fileName: `evidence-fund-i-first-close-${closingId.slice(0, 8)}.zip`,
    });

    const path = await bundleFile(world, { organizationId: story.organizationId, closingId });
    const entries = await entriesOf(path);
    const first = `Investor 1 (${complete.id.slice(0, 8)})`;
    const second = `Investor 2 (${sent.id.slice(0, 8)})`;
    expect([...entries.keys()]).toEqual([
      `${first}/certificate.pdf`,
      `${first}/${SIGNED}`,
      `${first}/${W9}`,
      `${first}/history.json`,
      `${first}/template.json`,
      `${first}/manifest.json`,
      `${second}/history.json`,
      `${second}/template.json`,
      `${second}/manifest.json`,
      'manifest.json',
    ]);
    const top = jsonOf<ClosingManifest>(entries, 'manifest.json');
    expect(top).toMatchObject({ kind: 'closing', closing: { id: closingId, name: 'Fund I, first close' } });
    expect(top.transactions.map(({ folder, id }) => ({ folder, id }))).toEqual([
      { folder: first, id: complete.id },
      { folder: second, id: sent.id },
    ]);
    const manifest = entries.get(`${second}/manifest.json`) ?? Buffer.alloc(0);
    expect(top.transactions[1]?.manifest).toEqual({
      name: 'manifest.json',
      size: manifest.length,
      sha256: sha256(manifest),
    });
    expect(jsonOf<TransactionManifest>(entries, `${first}/manifest.json`).files[0]?.name).toBe(
      'certificate.pdf',
    );
  });

  it("answers NOT_FOUND for another organization's transaction and closing, and for one that is not there", async () => {
    const { story } = await completedBundle(world);
    const other = await organizationStory(world.db, world.files, { transactions: ['created'] });
    const closingId = await closingOf(world.db, story, [story.transactionId]);
    for (const scope of [
      { organizationId: other.organizationId, transactionId: story.transactionId },
      { organizationId: other.organizationId, closingId },
      { organizationId: story.organizationId, transactionId: '00000000-0000-4000-8000-000000000000' },
      { organizationId: story.organizationId, transactionId: 'not-an-id' },
    ]) {
      const refused = await planEvidenceBundle(world.db, scope).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({ code: 'NOT_FOUND' });
    }
    // An operator's scope reaches any organization's.
    const plan = await planEvidenceBundle(world.db, {
      organizationId: null,
      transactionId: story.transactionId,
    });
    expect(plan.organizationId).toBe(story.organizationId);
  });

  it('fails, destroying its output, when a file is missing from the store, rather than write a bundle without it', async () => {
    const story = await organizationStory(world.db, world.files, { transactions: ['complete'] });
    const [w9] = await world.db.query<{ storageKey: string }>(
      `select f.storage_key as "storageKey" from transaction_files tf join files f on f.id = tf.file_id
       where tf.transaction_id = $1`,
      [story.transactionId],
    );
    await world.files.delete(w9?.storageKey ?? '');
    const plan = await planEvidenceBundle(world.db, {
      organizationId: story.organizationId,
      transactionId: story.transactionId,
    });
    const output = createWriteStream(join(world.dir, 'missing.zip'));
    await expect(writeEvidenceBundle(world, plan, output)).rejects.toThrow(
      `W-9 Investor 1.pdf of transaction ${story.transactionId} is missing from the file store`,
    );
    expect(output.destroyed).toBe(true);
  });

  it('names files safely and once: no separator, no leading dot, a number for a name that comes again', async () => {
    expect(safeName('../../etc/passwd')).toBe('etc passwd');
    expect(safeName('..')).toBe('file');
    expect(safeName('a\\b:c*?.pdf')).toBe('a b c .pdf');
    const names = new UniqueNames();
    expect(['w9.pdf', 'W9.pdf', 'w9.pdf', 'notes'].map((name) => names.name(name))).toEqual([
      'w9.pdf',
      'W9 (2).pdf',
      'w9 (3).pdf',
      'notes',
    ]);
    // A transaction with two uploads of one name keeps both.
    const story = await organizationStory(world.db, world.files, { transactions: ['created'] });
    const made = await transactionStory(world.db, world.files, story, { state: 'submitted' });
    await world.db.query(
      `update files set original_filename = 'scan.pdf' where id in
         (select file_id from transaction_files where transaction_id = $1)`,
      [made.id],
    );
    await world.db.query(
      `insert into transaction_files (organization_id, transaction_id, file_id, vulcan_key)
       select organization_id, transaction_id, file_id, vulcan_key from transaction_files where transaction_id = $1`,
      [made.id],
    );
    const path = await bundleFile(world, { organizationId: story.organizationId, transactionId: made.id });
    const uploads = [...(await entriesOf(path)).keys()].filter((name) => name.startsWith('files/'));
    expect(uploads).toEqual([
      'files/W-9 (U.S. persons) or W-8BEN (others)/scan.pdf',
      'files/W-9 (U.S. persons) or W-8BEN (others)/scan (2).pdf',
    ]);
    expect((await stat(path)).size).toBeGreaterThan(0);
  });
});
