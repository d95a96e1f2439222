import type { Writable } from 'node:stream';
import type { Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import type { FileStore } from '../../files/file-store.ts';
import { isUuid } from '../../validation/uuid.ts';
import { transactionParts, transactionTitle } from './bundle-contents.ts';
import {
  BUNDLE_FORMAT,
  BUNDLE_PATHS,
  UniqueNames,
  safeName,
  type ClosingManifest,
} from './bundle-manifest.ts';
import { writeBundle, type BundleFile, type BundlePart } from './bundle-zip.ts';

/**
 * The evidence bundle (issue 41; docs/evidence.md, "The evidence bundle"): a zip that a fund's counsel can check
 * without Portico (`portico verify <bundle.zip>`, verify-bundle.ts). A transaction's holds its certificate of
 * completion, its sealed signed documents, its uploads, its history with its hash chain, its template version
 * and a manifest of every file's SHA-256; a closing's holds one such folder per transaction and a manifest of
 * the folders. It is streamed: one transaction read at a time, one file open at a time, whatever its size.
 */

/**
 * What a bundle is of: a transaction or a closing of an organization. `organizationId: null` is an operator's
 * (the CLI's): any organization's, as `portico verify --transaction` reads the whole instance.
 */
export type EvidenceScope =
  | { organizationId: string | null; transactionId: string }
  | { organizationId: string | null; closingId: string };

/** A bundle checked and named, ready to be written (`writeEvidenceBundle`). */
export interface EvidenceBundlePlan {
  kind: 'transaction' | 'closing';
  /** The organization that owns what the bundle is of (found, for an operator's scope). */
  organizationId: string;
  /** The zip's file name, e.g. `evidence-jane-doe-6f1c2e0a.zip`: ASCII, for a download's Content-Disposition. */
  fileName: string;
  /** The transactions in it, in the order they are written: one, or the closing's. */
  transactionIds: string[];
  /** The closing's id and name, for a closing's bundle. */
  closing?: { id: string; name: string };
}

/** `evidence-<words>-<short id>.zip`, of ASCII letters, digits and dashes. */
function fileNameOf(words: string, id: string): string {
  const slug = words
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 60)
    .replace(/-+$/, '');
  return `evidence-${slug === '' ? '' : `${slug}-`}${id.slice(0, 8)}.zip`;
}

/**
 * Checks what a bundle is of (NOT_FOUND for a transaction or closing that is not there, or is another
 * organization's), lists its transactions and names its file. A closing's transactions are those its rows
 * made, in its rows' order.
 *
 * @example
 * const plan = await planEvidenceBundle(db, { organizationId, transactionId });
 * reply.header('content-disposition', `attachment; filename="${plan.fileName}"`);
 */
export async function planEvidenceBundle(db: Queryable, scope: EvidenceScope): Promise<EvidenceBundlePlan> {
  if ('transactionId' in scope) {
    const { transactionId } = scope;
    if (!isUuid(transactionId)) throw notFound('transaction', transactionId);
    const [row] = await db.query<{ organizationId: string; investor: string }>(
      `select organization_id as "organizationId", coalesce(investor_name, notice_name) as investor
       from transactions where id = $1 and ($2::uuid is null or organization_id = $2)`,
      [transactionId, scope.organizationId],
    );
    if (row === undefined) throw notFound('transaction', transactionId);
    return {
      kind: 'transaction',
      organizationId: row.organizationId,
      fileName: fileNameOf(row.investor, transactionId),
      transactionIds: [transactionId],
    };
  }
  const { closingId } = scope;
  if (!isUuid(closingId)) throw notFound('closing', closingId);
  const [closing] = await db.query<{ organizationId: string; name: string }>(
    `select organization_id as "organizationId", name from closings
     where id = $1 and ($2::uuid is null or organization_id = $2)`,
    [closingId, scope.organizationId],
  );
  if (closing === undefined) throw notFound('closing', closingId);
  const rows = await db.query<{ transactionId: string }>(
    `select r.transaction_id as "transactionId" from closing_rows r
     join transactions t on t.id = r.transaction_id and t.organization_id = r.organization_id
     where r.closing_id = $1 and r.organization_id = $2
     order by r.row_number`,
    [closingId, closing.organizationId],
  );
  return {
    kind: 'closing',
    organizationId: closing.organizationId,
    fileName: fileNameOf(closing.name, closingId),
    transactionIds: rows.map((row) => row.transactionId),
    closing: { id: closingId, name: closing.name },
  };
}

/** The parts of the whole bundle: each transaction's (in its folder, for a closing), then a closing's manifest. */
async function* bundleParts(
  deps: { db: Queryable; files: FileStore },
  plan: EvidenceBundlePlan,
  written: readonly BundleFile[],
): AsyncGenerator<BundlePart> {
  const madeAt = new Date();
  const { organizationId } = plan;
  if (plan.kind === 'transaction' || plan.closing === undefined) {
    for (const transactionId of plan.transactionIds) {
      yield* transactionParts(deps, { organizationId, transactionId, folder: '', madeAt, written });
    }
    return;
  }
  const folders = new UniqueNames();
  const listed: ClosingManifest['transactions'] = [];
  for (const transactionId of plan.transactionIds) {
    const named = await transactionTitle(deps.db, organizationId, transactionId);
    if (named === undefined) throw new Error(`the transaction ${transactionId} is gone: no bundle was made`);
    const folder = folders.name(`${safeName(named.investor, 'Transaction')} (${transactionId.slice(0, 8)})`);
    yield* transactionParts(deps, { organizationId, transactionId, folder: `${folder}/`, madeAt, written });
    const manifest = written.at(-1);
    if (manifest?.name !== `${folder}/${BUNDLE_PATHS.manifest}`)
      throw new Error('the manifest was not written');
    listed.push({
      folder,
      id: transactionId,
      title: named.title,
      manifest: { ...manifest, name: BUNDLE_PATHS.manifest },
    });
  }
  const manifest: ClosingManifest = {
    format: BUNDLE_FORMAT,
    kind: 'closing',
    madeAt: madeAt.toISOString(),
    closing: { ...plan.closing, organizationId },
    transactions: listed,
  };
  yield {
    name: BUNDLE_PATHS.manifest,
    content: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`),
  };
}

/**
 * Writes the bundle of `plan` to `output` as a zip, streamed: memory stays flat whatever its size. Each file's
 * SHA-256 is taken as it goes into the zip, and the manifests come last from those hashes. A file the store does
 * not hold, or a read that fails, destroys `output` and rejects: a bundle is whole or not made.
 *
 * @example
 * const plan = await planEvidenceBundle(db, { organizationId, closingId });
 * await writeEvidenceBundle({ db, files }, plan, createWriteStream(plan.fileName));
 */
export async function writeEvidenceBundle(
  deps: { db: Queryable; files: FileStore },
  plan: EvidenceBundlePlan,
  output: Writable,
): Promise<void> {
  const written: BundleFile[] = [];
  await writeBundle(output, bundleParts(deps, plan, written), (file) => written.push(file));
}
