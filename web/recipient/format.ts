// How the portal writes dates, sizes and kinds of files: in the reader's language, months in words.

import { dateFormatters, locale } from '../shared/format.ts';

export { formatTime } from '../shared/format.ts';

/** `3 December 2026` and `3 December 2026, 10:42`: months in words, as the portal's sentences want. */
export const { formatDate, formatDateTime } = dateFormatters('long');

/** `840 bytes`, `312 KB`, `2.4 MB`, `31 MB` (binary units, as file managers count). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} ${bytes === 1 ? 'byte' : 'bytes'}`;
  if (bytes < 1024 * 1024) return `${String(Math.round(bytes / 1024))} KB`;
  const megabytes = bytes / (1024 * 1024);
  const shown = megabytes < 10 ? Math.round(megabytes * 10) / 10 : Math.round(megabytes);
  return `${new Intl.NumberFormat(locale).format(shown)} MB`;
}

const KINDS: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/heic': 'HEIC',
  'image/heif': 'HEIF',
  'image/tiff': 'TIFF',
  'image/webp': 'WebP',
  'image/gif': 'GIF',
  'text/plain': 'text file',
  'text/csv': 'CSV',
  'application/zip': 'ZIP archive',
  'application/msword': 'Word document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.ms-excel': 'Excel workbook',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel workbook',
};

/** What a MIME type is called: `application/pdf` → `PDF`; `image/x-foo` → `X-FOO`. */
export function kindOf(mimeType: string): string {
  return KINDS[mimeType.toLowerCase()] ?? (mimeType.split('/')[1] ?? mimeType).toUpperCase();
}

/** `PDF, PNG or JPEG`. */
export function listKinds(mimeTypes: readonly string[]): string {
  const kinds = [...new Set(mimeTypes.map(kindOf))];
  if (kinds.length <= 1) return kinds[0] ?? 'file';
  return `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1) ?? ''}`;
}

/** The usual name endings of the MIME types, for a file chooser (`.pdf,.png,.jpg,.jpeg`) next to the types. */
const EXTENSIONS: Record<string, string[]> = {
  'application/pdf': ['.pdf'],
  'image/png': ['.png'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/heic': ['.heic'],
  'image/heif': ['.heif'],
  'image/tiff': ['.tif', '.tiff'],
  'image/webp': ['.webp'],
};

/** The `accept` attribute of a file input for the MIME types. */
export function acceptAttribute(mimeTypes: readonly string[]): string {
  return [...mimeTypes, ...mimeTypes.flatMap((type) => EXTENSIONS[type.toLowerCase()] ?? [])].join(',');
}

/** The kind a file's name claims (`w9.pdf` → `PDF`) among the MIME types, if it claims one of them. */
export function claimedKind(filename: string, mimeTypes: readonly string[]): string | undefined {
  const ending = /\.[^.]+$/.exec(filename.toLowerCase())?.[0];
  if (ending === undefined) return undefined;
  const type = mimeTypes.find((each) => EXTENSIONS[each.toLowerCase()]?.includes(ending));
  return type === undefined ? undefined : kindOf(type);
}

/** `investor` → `Investor`, `countersigner` → `Countersigner` (roles are template keys). */
export function roleName(role: string): string {
  const words = role.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
