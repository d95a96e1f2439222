import type { Transaction } from '../../db/database.ts';
import type { LockedTransaction } from '../transitions.ts';
import { latestOpenRevision, primaryRecipient, processOfItem, saveItem } from './actions.ts';
import { uploadKey, type DetectedType } from './uploads.ts';

/** A file the portal received for an item's upload field, already checked and stored under `storageKey`. */
export interface ReceivedUpload {
  vulcanKey: string;
  field: string;
  filename: string;
  type: DetectedType;
  storageKey: string;
  byteSize: number;
}

/**
 * Makes a stored file the answer of an item's upload field, in the latest open revision: the file's row, its
 * link to the transaction and the primary recipient, and the item's data pointing at it (the item's other
 * answers kept). REVISION_SUBMITTED once the revision was submitted; the caller removes the stored object when
 * this throws, so that nothing is half-written.
 */
export async function attachUpload(tx: Transaction, subject: LockedTransaction, upload: ReceivedUpload) {
  const { process, item } = processOfItem(subject, upload.vulcanKey);
  const revision = await latestOpenRevision(tx, subject.id, process.key);
  const recipient = await primaryRecipient(tx, subject);
  const [file] = await tx.query<{ id: string; uploadedAt: Date }>(
    `insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
     values ($1, $2, $3, $4, $5, $6, clock_timestamp()) returning id, uploaded_at as "uploadedAt"`,
    [
      subject.organizationId,
      upload.type.mimeType,
      upload.type.extension,
      upload.filename,
      upload.storageKey,
      upload.byteSize,
    ],
  );
  if (!file) throw new Error('no file row');
  await tx.query(
    `insert into transaction_files (organization_id, transaction_id, file_id, transaction_recipient_id, vulcan_key)
     values ($1, $2, $3, $4, $5)`,
    [subject.organizationId, subject.id, file.id, recipient.recipientId, uploadKey(item, upload.field)],
  );
  const [current] = await tx.query<{ data: Record<string, unknown> | null }>(
    `select data from transaction_items where transaction_process_revision_id = $1 and vulcan_key = $2`,
    [revision.revisionId, item.vulcanKey],
  );
  const saved = await saveItem(tx, subject, {
    vulcanKey: upload.vulcanKey,
    data: { ...(current?.data ?? {}), [upload.field]: file.id },
  });
  return {
    file: {
      id: file.id,
      field: upload.field,
      originalFilename: upload.filename,
      mimeType: upload.type.mimeType,
      byteSize: upload.byteSize,
      uploadedAt: file.uploadedAt,
    },
    item: saved,
  };
}
