import type { Queryable } from '../../db/database.ts';
import { fileErrors, listed, notFound, quote, type AppError } from '../../errors.ts';
import { isUuid } from '../../validation/uuid.ts';
import type { ItemDefinition } from '../templates/schema.ts';

/**
 * Uploads: fields of an item answered by a file (the template's `uploads`). The file's type is read from its
 * content (magic bytes), never from its name; its name is kept only as the recipient's label for it.
 */

/** An upload field of an item, with the largest file it takes here. */
export interface UploadField {
  item: ItemDefinition;
  field: string;
  accept: readonly string[];
  maxBytes: number;
}

/** What a file turned out to be, by its content. */
export interface DetectedType {
  mimeType: string;
  extension: string;
}

const MEGABYTE = 1024 * 1024;

/** The largest file a recipient may upload when the deployment does not say (PORTICO_UPLOAD_MAX_MB). */
export const DEFAULT_UPLOAD_MAX_BYTES = 25 * MEGABYTE;
/** The longest file name kept (most file systems' limit). */
const MAX_FILENAME_LENGTH = 255;
// Control characters, and the bidirectional overrides that make "invoice\u202Efdp.exe" read as "invoiceexe.pdf".
// eslint-disable-next-line no-control-regex -- control characters are what this finds.
const UNSAFE_NAME_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** The item's upload field `field`, taking at most the deployment's `maxBytes`; NOT_FOUND when it has none. */
export function uploadFieldOf(item: ItemDefinition, field: string, deploymentMaxBytes: number): UploadField {
  const upload = Object.hasOwn(item.uploads ?? {}, field) ? item.uploads?.[field] : undefined;
  if (!upload) throw notFound(`upload field ${quote(field)} in item`, item.vulcanKey);
  const fieldMax = upload.maxMegabytes === undefined ? Infinity : Math.floor(upload.maxMegabytes * MEGABYTE);
  return { item, field, accept: upload.accept, maxBytes: Math.min(fieldMax, deploymentMaxBytes) };
}

/** The upload fields of an item as the recipient's page describes them. */
export function uploadFieldsOf(
  item: ItemDefinition,
  deploymentMaxBytes: number,
): Record<string, { accept: readonly string[]; maxBytes: number }> {
  return Object.fromEntries(
    Object.keys(item.uploads ?? {}).map((field) => {
      const { accept, maxBytes } = uploadFieldOf(item, field, deploymentMaxBytes);
      return [field, { accept, maxBytes }];
    }),
  );
}

/** Sizes as people read them: "25 MB", "512 KB", "90 bytes". */
export function describeSize(bytes: number): string {
  if (bytes >= MEGABYTE) return `${String(Math.round((bytes / MEGABYTE) * 10) / 10)} MB`;
  if (bytes >= 1024) return `${String(Math.round(bytes / 1024))} KB`;
  return `${String(bytes)} bytes`;
}

/** The refusal of a file over its field's limit. */
export function fileTooLarge(target: Pick<UploadField, 'field' | 'maxBytes'>): AppError {
  return fileErrors.tooLarge(describeSize(target.maxBytes), {
    field: target.field,
    maxBytes: target.maxBytes,
  });
}

/**
 * The file name as kept (Unicode NFC, trimmed), or FILENAME_INVALID for one that is empty, too long, a path,
 * or holds control or direction-changing characters.
 */
export function checkFilename(name: string | undefined): string {
  const refuse = fileErrors.nameInvalid;
  const normalized = (name ?? '').normalize('NFC').trim();
  if (normalized === '') throw refuse('is empty');
  if (normalized.length > MAX_FILENAME_LENGTH)
    throw refuse(`is longer than ${MAX_FILENAME_LENGTH} characters`);
  if (/[/\\]/.test(normalized) || normalized === '.' || normalized === '..') throw refuse('holds a path');
  if (UNSAFE_NAME_CHARACTERS.test(normalized)) throw refuse('holds control or direction-changing characters');
  return normalized;
}

const TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/tiff': 'TIFF',
  'image/heic': 'HEIC',
  'image/webp': 'WebP',
};

/** "PDF, PNG or JPEG". */
export function describeTypes(types: readonly string[]): string {
  return listed(
    types.map((type) => TYPE_NAMES[type] ?? type),
    'or',
  );
}

/**
 * The type of a file's content, when its field takes it: FILE_EMPTY for no content, FILE_TYPE_NOT_ALLOWED
 * (with what it is) for any other type, whatever the file's name says.
 */
export async function checkContent(
  content: Uint8Array,
  target: Pick<UploadField, 'field' | 'accept'>,
): Promise<DetectedType> {
  if (content.byteLength === 0) {
    throw fileErrors.empty(target.field);
  }
  // Loaded with the first upload, not at every start.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(content);
  if (!detected || !target.accept.includes(detected.mime)) {
    throw fileErrors.typeNotAllowed(detected?.mime, describeTypes(target.accept), {
      field: target.field,
      accept: target.accept,
      detected: detected?.mime ?? null,
    });
  }
  return { mimeType: detected.mime, extension: detected.ext };
}

/** Where an upload answers in `transaction_files.vulcan_key`: `<item>.<field>`, e.g. `tax_forms.w9FileId`. */
export function uploadKey(item: ItemDefinition, field: string): string {
  return `${item.vulcanKey}.${field}`;
}

/**
 * Problems of the upload fields of item data: each value must be the id of a file uploaded to this
 * transaction for that field (`path: message`, as item problems are).
 */
export async function uploadFieldProblems(
  tx: Queryable,
  transactionId: string,
  item: ItemDefinition,
  data: unknown,
): Promise<string[]> {
  const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const given = Object.keys(item.uploads ?? {})
    .filter((field) => record[field] !== undefined && record[field] !== null)
    .map((field) => ({ field, value: record[field], key: uploadKey(item, field) }));
  if (given.length === 0) return [];
  const ids = given.map((entry) =>
    typeof entry.value === 'string' && isUuid(entry.value) ? entry.value : null,
  );
  const found = await tx.query<{ fileId: string; vulcanKey: string }>(
    `select file_id as "fileId", vulcan_key as "vulcanKey" from transaction_files
     where transaction_id = $1 and file_id = any($2::uuid[])`,
    [transactionId, ids.filter((id) => id !== null)],
  );
  return given
    .filter((entry, index) => !found.some((row) => row.fileId === ids[index] && row.vulcanKey === entry.key))
    .map((entry) => `${entry.field}: is not a file uploaded for this field`);
}
