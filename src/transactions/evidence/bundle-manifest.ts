import type { BundleFile } from './bundle-zip.ts';
import type { ChainEntry, ChainHead } from '../history/chain.ts';

/**
 * What an evidence bundle's JSON files hold (docs/evidence.md, "The evidence bundle"): the writer (bundle.ts)
 * makes them and the verifier (verify-bundle.ts) reads them, from this one description. A bundle of one
 * transaction holds its files at the top; a closing's holds a folder per transaction, each with its own
 * manifest, and a manifest at the top that lists the folders.
 */

/** The bundle's format, in every manifest: a verifier refuses one it does not know. */
export const BUNDLE_FORMAT = 'portico-evidence-bundle/1';

/** Where each file of a transaction's evidence is, from the transaction's folder. */
export const BUNDLE_PATHS = {
  manifest: 'manifest.json',
  history: 'history.json',
  template: 'template.json',
  certificate: 'certificate.pdf',
  documents: 'documents',
  uploads: 'files',
} as const;

/** The transaction's certificate of completion as its manifest records it. */
export type ManifestCertificate =
  /** Made: its file in the bundle, and what the database recorded when it was made. */
  | {
      status: 'made';
      path: string;
      sha256: string;
      /** The place and hash of the last entry of the history it certifies. */
      chainPosition: number;
      chainHead: string;
      madeAt: string;
    }
  /** The transaction is complete but its certificate is not made yet. */
  | { status: 'due' }
  /** The transaction is not complete: it has none. */
  | { status: 'none' };

/** `manifest.json` of a transaction: what it is, its history's head, its certificate, and each file's hash. */
export interface TransactionManifest {
  format: typeof BUNDLE_FORMAT;
  kind: 'transaction';
  madeAt: string;
  transaction: {
    id: string;
    organizationId: string;
    title: string;
    state: string;
    createdAt: string;
    completedAt: string | null;
  };
  template: { key: string; version: number };
  history: { entries: number; head: ChainHead };
  certificate: ManifestCertificate;
  /** Every other file of the transaction's folder, its path from the folder. */
  files: BundleFile[];
}

/** `manifest.json` at the top of a closing's bundle: its transactions' folders and their manifests' hashes. */
export interface ClosingManifest {
  format: typeof BUNDLE_FORMAT;
  kind: 'closing';
  madeAt: string;
  closing: { id: string; organizationId: string; name: string };
  transactions: { folder: string; id: string; title: string; manifest: BundleFile }[];
}

/** `history.json`: each entry of the transaction's chain as stored, with the text that was hashed, and the head. */
export interface HistoryFile {
  transactionId: string;
  /** How an entry's hash is made, for a reader without Portico. */
  hashing: string;
  head: ChainHead;
  entries: ChainEntry[];
}

/** The sentence `history.json` carries on how each hash is made. */
export const HASHING =
  "hash = SHA-256(previous, as 32 bytes, followed by the UTF-8 bytes of canonical); the first entry follows 32 zero bytes; the head is the last entry's hash";

/** The longest name a file or folder of a bundle gets (its extension kept). */
const NAME_LENGTH = 120;

/**
 * A name safe as one segment of a path in a zip, on every system that unzips it: no separator (`/`, `\`), no
 * control character, none of Windows' reserved characters, no leading dot (`..`, hidden files), at most
 * {@link NAME_LENGTH} characters with its extension kept; `fallback` for a name left empty.
 */
export function safeName(name: string, fallback = 'file'): string {
  const cleaned = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '');
  if (cleaned === '') return fallback;
  if (cleaned.length <= NAME_LENGTH) return cleaned;
  const extension = /\.[A-Za-z0-9]{1,8}$/.exec(cleaned)?.[0] ?? '';
  return `${cleaned.slice(0, NAME_LENGTH - extension.length).trimEnd()}${extension}`;
}

/**
 * The names given in one folder of a bundle, so that none comes twice: a name already given (in any case, as
 * a case-insensitive file system would see it) becomes `name (2).pdf`, `name (3).pdf`, ….
 */
export class UniqueNames {
  private readonly taken = new Set<string>();

  /** `name` made safe ({@link safeName}) and unique among those this has given. */
  name(name: string, fallback?: string): string {
    const safe = safeName(name, fallback);
    const dot = safe.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ''];
    let candidate = safe;
    for (let number = 2; this.taken.has(candidate.toLowerCase()); number += 1) {
      candidate = `${stem} (${String(number)})${extension}`;
    }
    this.taken.add(candidate.toLowerCase());
    return candidate;
  }
}
