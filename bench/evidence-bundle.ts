/**
 * The evidence bundle suite (issue 41): the bundle of a closing of BENCH_BUNDLE_TRANSACTIONS transactions (500 by
 * default) on PostgreSQL, each with a sealed signed document, a sealed certificate of completion (50–200 KB each,
 * as a fund's agreement with its appendix is) and an upload, written to a file by `writeEvidenceBundle` with the
 * process's peak RSS sampled while it runs; beside the floor of yazl zipping the same files, read from the same
 * file store, with no database work; then `portico verify`'s check of that bundle. Targets: the bundle under 30 s
 * with flat memory, verify under 10 s. See bench/README.md, "The evidence bundle suite".
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Database } from '../src/db/database.ts';
import { createLocalFileStore } from '../src/files/local-file-store.ts';
import type { FileStore } from '../src/files/file-store.ts';
import { createTransaction } from '../src/transactions/create-transaction.ts';
import { planEvidenceBundle, writeEvidenceBundle } from '../src/transactions/evidence/bundle.ts';
import { sealPdf } from '../src/transactions/evidence/pades.ts';
import { loadSealCredential, type SealCredential } from '../src/transactions/evidence/seal-credential.ts';
import { verifyBundle } from '../src/transactions/evidence/verify-bundle.ts';
import { recordActivities } from '../src/transactions/history/activity.ts';
import { recordCertificate, storedPdf } from '../test/support/data/sealed-documents.ts';
import { openBenchDatabase } from './database.ts';
import { seedConsoleOrganization } from './seed.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

const BUNDLE_TARGET_SECONDS = 30;
const VERIFY_TARGET_SECONDS = 10;

export interface EvidenceBundleReport {
  transactions: number;
  files: number;
  storedBytes: number;
  bundleBytes: number;
  bundleSeconds: number;
  floorSeconds: number;
  verifySeconds: number;
  /** The RSS before the bundle, and its peak while it is written, in MB. */
  rssBeforeMb: number;
  rssPeakMb: number;
  floorRssPeakMb: number;
  targets: TargetResult[];
}

/** A PDF of `bytes` of incompressible content (a scan's, an embedded font's), with a line of text. */
async function pdfOf(text: string, bytes: number): Promise<PDFDocument> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([612, 792]).drawText(text, { x: 72, y: 720, size: 12, font });
  await pdf.attach(randomBytes(bytes), 'scan.bin', { mimeType: 'application/octet-stream' });
  return pdf;
}

/**
 * One transaction of the closing: made by `createTransaction` (its history begun), ten entries of activity, an
 * upload, a sealed signed document and a sealed certificate recording the head.
 */
async function seedTransaction(
  db: Database,
  files: FileStore,
  seal: SealCredential,
  organization: Awaited<ReturnType<typeof seedConsoleOrganization>>,
  index: number,
): Promise<{ id: string; bytes: number }> {
  const { organizationId } = organization;
  const name = `Investor ${String(index + 1)}`;
  const created = await createTransaction(db, {
    organizationId,
    actor: { type: 'system', id: null },
    input: {
      templateId: organization.templateId,
      senderEntityId: organization.senderEntityId,
      noticeName: name,
      noticeEmail: `investor-${String(index)}@example.com`,
      inputData: {},
    },
  });
  const id = created.transactionId;
  await recordActivities(
    db,
    Array.from({ length: 10 }, (_, step) => ({
      organizationId,
      transactionId: id,
      kind: 'recipient' as const,
      action: step === 0 ? 'opened' : 'saved',
      actor: { type: 'system' as const, id: null },
      details: { step },
    })),
  );
  const size = () => 50_000 + Math.floor(Math.random() * 150_000);
  const upload = await (await pdfOf(`Form W-9: ${name}`, size())).save();
  const signed = await sealPdf(await pdfOf(`Subscription agreement, signed by ${name}`, size()), seal, {
    reason: 'Completed in Portico',
    signingTime: new Date(),
  });
  const certificate = await sealPdf(await pdfOf(`Certificate of completion: ${name}`, size()), seal, {
    reason: 'Completed in Portico',
    signingTime: new Date(),
  });
  const { id: uploadId } = await storedPdf(db, files, organizationId, `W-9 ${name}.pdf`, upload);
  await db.query(
    `insert into transaction_files (organization_id, transaction_id, file_id, vulcan_key)
     values ($1, $2, $3, 'tax_forms.w9FileId')`,
    [organizationId, id, uploadId],
  );
  const { id: signedId } = await storedPdf(
    db,
    files,
    organizationId,
    'Subscription agreement - signed.pdf',
    signed,
  );
  await db.query(
    `with process as (
       insert into transaction_processes (organization_id, transaction_id, key) values ($1, $2, 'subscription')
       on conflict (transaction_id, key) do update set key = excluded.key returning id),
     container as (
       insert into transaction_signature_containers
         (organization_id, transaction_id, transaction_process_id, document_key, state, completed_at)
       select $1, $2, id, 'subscription_agreement', 'completed', now() from process returning id)
     insert into transaction_signature_files (organization_id, transaction_id, transaction_signature_container_id, file_id)
     select $1, $2, id, $3 from container`,
    [organizationId, id, signedId],
  );
  await recordCertificate(db, files, { id, organizationId }, certificate);
  return { id, bytes: upload.byteLength + signed.byteLength + certificate.byteLength };
}

/** Samples the process's RSS every 10 ms while `work` runs; answers its result and the peak, in MB. */
async function withPeakRss<T>(
  work: () => Promise<T>,
): Promise<{ result: T; peakMb: number; seconds: number }> {
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  try {
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakMb: peak / 1024 / 1024, seconds };
  } finally {
    clearInterval(sampler);
  }
}

/** The floor: the same stored files zipped by yazl, read from the same store, their keys read before. */
async function floorZip(files: FileStore, keys: readonly string[], path: string): Promise<void> {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  const written = pipeline(zip.outputStream, createWriteStream(path));
  for (const [index, key] of keys.entries()) {
    const opened = await files.open(key);
    if (opened === undefined) throw new Error(`${key} is missing`);
    zip.addReadStream(opened.stream, `${String(index)}.pdf`, { compress: false });
    // One file open at a time, as the bundle does.
    await new Promise((resolve) => opened.stream.once('end', resolve));
  }
  zip.end();
  await written;
}

/** The suite: see the file's comment. */
export async function benchEvidenceBundle(transactions: number): Promise<EvidenceBundleReport> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-bundle-'));
  const bench = await openBenchDatabase('postgres');
  try {
    const { db } = bench;
    const files = createLocalFileStore(join(dir, 'files'));
    const seal = await loadSealCredential({ dataDir: dir });
    console.log(
      `\nevidence bundle on ${bench.description}: a closing of ${String(transactions)} transactions`,
    );
    const organization = await seedConsoleOrganization(db);
    const ids: string[] = [];
    let storedBytes = 0;
    for (let index = 0; index < transactions; index += 1) {
      const made = await seedTransaction(db, files, seal, organization, index);
      ids.push(made.id);
      storedBytes += made.bytes;
    }
    const [closing] = await db.query<{ id: string }>(
      `insert into closings (organization_id, name, template_id, sender_entity_id, status)
       values ($1, 'Bench Fund I, first close', $2, $3, 'finished') returning id`,
      [organization.organizationId, organization.templateId, organization.senderEntityId],
    );
    await db.query(
      `insert into closing_rows (organization_id, closing_id, row_number, cells, investor_name, investor_email,
         entity_type, status, transaction_id)
       select $1, $2, ordinality + 1, '{}', notice_name, notice_email, 'individual', 'created', id
       from unnest($3::uuid[]) with ordinality as ids(id, ordinality) join transactions using (id)`,
      [organization.organizationId, closing?.id, ids],
    );
    const keys = (
      await db.query<{ storageKey: string }>(
        `select storage_key as "storageKey" from files where organization_id = $1 order by sequence`,
        [organization.organizationId],
      )
    ).map((row) => row.storageKey);
    console.log(`seeded: ${String(keys.length)} files, ${(storedBytes / 1024 / 1024).toFixed(1)} MB`);

    // Each once before it is measured: the modules loaded, the file system's cache as warm for both.
    const bundlePath = join(dir, 'closing.zip');
    const scope = { organizationId: organization.organizationId, closingId: closing?.id ?? '' };
    await floorZip(files, keys, join(dir, 'floor.zip'));
    const rssBeforeMb = process.memoryUsage.rss() / 1024 / 1024;
    const ours = await withPeakRss(async () => {
      const plan = await planEvidenceBundle(db, scope);
      await writeEvidenceBundle({ db, files }, plan, createWriteStream(bundlePath));
    });
    const floor = await withPeakRss(() => floorZip(files, keys, join(dir, 'floor.zip')));
    const verified = await withPeakRss(() => verifyBundle(bundlePath));
    if (!verified.result.ok) throw new Error(`the bundle does not verify: ${verified.result.problem}`);
    const report = {
      transactions,
      files: keys.length,
      storedBytes,
      bundleBytes: (await stat(bundlePath)).size,
      bundleSeconds: ours.seconds,
      floorSeconds: floor.seconds,
      verifySeconds: verified.seconds,
      rssBeforeMb,
      rssPeakMb: ours.peakMb,
      floorRssPeakMb: floor.peakMb,
    };
    return {
      ...report,
      targets: [
        targetResult(
          `the bundle of a ${String(transactions)}-transaction closing under ${String(BUNDLE_TARGET_SECONDS)} s`,
          `${ours.seconds.toFixed(1)} s (floor ${floor.seconds.toFixed(1)} s, x${(ours.seconds / floor.seconds).toFixed(1)}); RSS ${rssBeforeMb.toFixed(0)} → peak ${ours.peakMb.toFixed(0)} MB`,
          BUNDLE_TARGET_SECONDS / ours.seconds,
        ),
        targetResult(
          `verify of that bundle under ${String(VERIFY_TARGET_SECONDS)} s`,
          `${verified.seconds.toFixed(1)} s`,
          VERIFY_TARGET_SECONDS / verified.seconds,
        ),
      ],
    };
  } finally {
    await bench.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The suite's table: ours, the floor, verify. */
export function printEvidenceBundleReport(report: EvidenceBundleReport): TargetResult[] {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  printMarkdownTable(
    ['run', 'transactions', 'files', 'bytes', 'seconds', 'vs floor', 'peak RSS'],
    [
      [
        'writeEvidenceBundle → file',
        String(report.transactions),
        String(report.files),
        mb(report.bundleBytes),
        report.bundleSeconds.toFixed(2),
        `x${(report.bundleSeconds / report.floorSeconds).toFixed(2)}`,
        `${report.rssPeakMb.toFixed(0)} MB (from ${report.rssBeforeMb.toFixed(0)} MB)`,
      ],
      [
        'floor: yazl, same files, no database',
        String(report.transactions),
        String(report.files),
        mb(report.storedBytes),
        report.floorSeconds.toFixed(2),
        '',
        `${report.floorRssPeakMb.toFixed(0)} MB`,
      ],
      ['verifyBundle', String(report.transactions), '', '', report.verifySeconds.toFixed(2), '', ''],
    ],
  );
  return report.targets;
}
