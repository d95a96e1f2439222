// Documents sealed for the evidence tests: a folder of the file's own for their files, a one-page document sealed
// by a credential, the job of a signed document as the document workers make it, and the evidence of a completed
// transaction (its documents sealed, its certificate of completion) and a closing of transactions.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll } from 'vitest';
import type { Queryable } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import type { RenderJob } from '../../../src/transactions/documents/document-pdf.ts';
import { sealPdf } from '../../../src/transactions/evidence/pades.ts';
import type { SealCredential } from '../../../src/transactions/evidence/seal-credential.ts';

/** A folder made before the calling file's tests and removed after them: read `path()` inside tests. */
export function useTempFolder(prefix: string): { path: () => string } {
  let folder: string | undefined;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });
  return {
    path: () => {
      if (folder === undefined) throw new Error('the folder is made before the tests');
      return folder;
    },
  };
}

/** A one-page document sealed by `credential`. */
export async function sealedDocument(credential: SealCredential): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.addPage().drawText('Subscription agreement, signed', { x: 50, y: 700 });
  return sealPdf(pdf, credential, { reason: 'Completed in Portico', signingTime: new Date() });
}

/** A document signed by its investor, as the document workers are asked to make it (and seal it). */
export const signedJob: RenderJob = {
  organizationId: '00000000-0000-4000-8000-000000000002',
  transactionId: '00000000-0000-4000-8000-000000000001',
  name: 'Subscription agreement',
  preview: false,
  signedBy: ['investor'],
  signatures: [{ role: 'investor', signedName: 'Jane Q. Doe', signedAt: new Date('2026-11-28T12:00:00Z') }],
  sections: [],
};

/** Stores `pdf` as a file of the organization and answers its id and storage key. */
export async function storedPdf(
  db: Queryable,
  files: FileStore,
  organizationId: string,
  name: string,
  pdf: Uint8Array,
) {
  const storageKey = `${organizationId}/${randomUUID()}.pdf`;
  await files.put(storageKey, pdf);
  const [file] = await db.query<{ id: string }>(
    `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
     values ($1, 'application/pdf', 'pdf', $2, $3, $4, now()) returning id`,
    [organizationId, name, storageKey, pdf.byteLength],
  );
  if (file === undefined) throw new Error('no file row');
  return { id: file.id, storageKey };
}

/**
 * Gives a transaction a story made the evidence of a completed one: its signed documents replaced by sealed
 * ones (a story's document workers seal nothing), and, with `certificate`, a certificate of completion as the
 * certificates' job records one (a sealed PDF, its SHA-256 and the chain's head at that moment) or, with 'due',
 * the row that says it is still to be made.
 */
export async function withEvidence(
  db: Queryable,
  files: FileStore,
  credential: SealCredential,
  transaction: { id: string; organizationId: string },
  options: { certificate: 'made' | 'due' | 'none' },
): Promise<void> {
  const signed = await db.query<{ storageKey: string; fileId: string }>(
    `select f.storage_key as "storageKey", f.id as "fileId" from transaction_signature_files sf
     join files f on f.id = sf.file_id where sf.transaction_id = $1 and sf.organization_id = $2`,
    [transaction.id, transaction.organizationId],
  );
  for (const { storageKey, fileId } of signed) {
    const sealed = await sealedDocument(credential);
    await files.put(storageKey, sealed);
    await db.query('update files set byte_size = $2 where id = $1', [fileId, sealed.byteLength]);
  }
  if (options.certificate === 'none') return;
  if (options.certificate === 'due') {
    await db.query(
      `insert into transaction_certificates (transaction_id, organization_id) values ($1, $2)
       on conflict (transaction_id) do nothing`,
      [transaction.id, transaction.organizationId],
    );
    return;
  }
  await recordCertificate(db, files, transaction, await sealedDocument(credential));
}

/**
 * Stores `pdf` as the transaction's certificate of completion and records it made, as the certificates' job
 * does: its SHA-256 and the chain's head (its place and hash) at this moment.
 */
export async function recordCertificate(
  db: Queryable,
  files: FileStore,
  transaction: { id: string; organizationId: string },
  pdf: Uint8Array,
): Promise<void> {
  const file = await storedPdf(db, files, transaction.organizationId, 'Certificate of completion.pdf', pdf);
  await db.query(
    `insert into transaction_certificates (transaction_id, organization_id, file_id, sha256, chain_position,
       chain_head, made_at)
     select $1, $2, $3, $4, h.position, encode(h.head, 'hex'), now()
     from transaction_history_heads h where h.transaction_id = $1 and h.organization_id = $2
     on conflict (transaction_id) do update set file_id = excluded.file_id, sha256 = excluded.sha256,
       chain_position = excluded.chain_position, chain_head = excluded.chain_head, made_at = excluded.made_at`,
    [transaction.id, transaction.organizationId, file.id, createHash('sha256').update(pdf).digest('hex')],
  );
}

/** A finished closing of the story's organization whose rows made `transactionIds`, in that order. */
export async function closingOf(
  db: Queryable,
  organization: { organizationId: string; templateId: string; senderEntityId: string },
  transactionIds: readonly string[],
): Promise<string> {
  const [closing] = await db.query<{ id: string }>(
    `insert into closings (organization_id, name, template_id, sender_entity_id, status)
     values ($1, 'Fund I, first close', $2, $3, 'finished') returning id`,
    [organization.organizationId, organization.templateId, organization.senderEntityId],
  );
  if (closing === undefined) throw new Error('no closing row');
  for (const [index, transactionId] of transactionIds.entries()) {
    await db.query(
      `insert into closing_rows (organization_id, closing_id, row_number, cells, investor_name, investor_email,
         entity_type, status, transaction_id)
       select $1, $2, $3, '{}', coalesce(investor_name, notice_name), notice_email, 'individual', 'created', id
       from transactions where id = $4`,
      [organization.organizationId, closing.id, index + 2, transactionId],
    );
  }
  return closing.id;
}
