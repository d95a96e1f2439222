import { checkChain, type ChainEntry, type ChainHead } from '../history/chain.ts';
import {
  BUNDLE_FORMAT,
  BUNDLE_PATHS,
  type ClosingManifest,
  type TransactionManifest,
} from './bundle-manifest.ts';
import { BUNDLE_LIMITS, BundleError, readBundle, type BundleLimits } from './bundle-zip.ts';
import { verifySeal, type SealCheck } from './verify-seal.ts';

/**
 * Checks an evidence bundle (bundle.ts) offline, without Portico's database, as a fund's counsel would: its zip
 * read without trusting it (bundle-zip.ts's limits), then for each transaction that its manifest lists exactly
 * the files present, that its history's hash chain holds (`checkChain`, the database's own walk), that every
 * file has the size and SHA-256 the manifest says, that the manifest's head is the chain's, that the history its
 * certificate of completion certifies is the start of this one, and that each sealed PDF's seal holds
 * (verify-seal.ts). The first thing that does not hold is named in words, with the file it is in.
 */

/** What a bundle's check found. */
export type BundleCheck =
  | {
      ok: true;
      kind: 'transaction' | 'closing';
      transactions: number;
      files: number;
      entries: number;
      seals: number;
      /** The names of the seals' certificates, each once. */
      sealedBy: string[];
      /** Whether the seals' certificates chain to those trusted; null when none were given. */
      trusted: boolean | null;
      /** The transactions by their certificate of completion: made (and checked), due, none (not complete). */
      certificates: { made: number; due: number; none: number };
    }
  | { ok: false; problem: string };

/** The largest manifest, history or sealed PDF the check reads whole (a PDF is let go once its seal is checked). */
const MAX_READ_BYTES = 256 * 1024 * 1024;

/** What the check keeps of each entry as the zip is read: its hash, and for some their content or seal. */
interface ReadEntry {
  size: number;
  sha256: string;
  json?: unknown;
  seal?: SealCheck;
}

/** Whether the bundle's file at `path` (from its transaction's folder) is one Portico sealed. */
function isSealed(path: string): boolean {
  return (
    path === BUNDLE_PATHS.certificate ||
    (path.startsWith(`${BUNDLE_PATHS.documents}/`) && path.toLowerCase().endsWith('.pdf'))
  );
}

/** The path of an entry from its transaction's folder: the bundle's top, or one folder down for a closing. */
function inFolder(name: string): string {
  if (name.startsWith(`${BUNDLE_PATHS.documents}/`) || !name.includes('/')) return name;
  const rest = name.slice(name.indexOf('/') + 1);
  return rest;
}

/** Reads every entry of the bundle at `path`, hashing each, keeping its JSON files and its seals' checks. */
async function readEntries(
  path: string,
  trusted: readonly Uint8Array[] | undefined,
  limits: BundleLimits,
): Promise<Map<string, ReadEntry>> {
  const { createHash } = await import('node:crypto');
  const entries = new Map<string, ReadEntry>();
  await readBundle(
    path,
    async (entry) => {
      const base = entry.name.slice(entry.name.lastIndexOf('/') + 1);
      const json = base === BUNDLE_PATHS.manifest || base === BUNDLE_PATHS.history;
      const keep = json || isSealed(inFolder(entry.name));
      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of await entry.open()) {
          const bytes = chunk as Buffer;
          hash.update(bytes);
          size += bytes.length;
          if (keep && size <= MAX_READ_BYTES) chunks.push(bytes);
        }
      } catch (error) {
        if (error instanceof BundleError) throw error;
        throw new BundleError(`${entry.name} cannot be read: ${(error as Error).message}`, entry.name);
      }
      const read: ReadEntry = { size, sha256: hash.digest('hex') };
      if (keep && size <= MAX_READ_BYTES) {
        const content = Buffer.concat(chunks);
        if (json) {
          try {
            read.json = JSON.parse(content.toString('utf8')) as unknown;
          } catch {
            read.json = undefined;
          }
        } else read.seal = await verifySeal(content, { trusted });
      }
      entries.set(entry.name, read);
    },
    limits,
  );
  return entries;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` has a transaction manifest's shape, so that reading it cannot throw. */
function isTransactionManifest(value: unknown): value is TransactionManifest {
  if (!isObject(value) || value.format !== BUNDLE_FORMAT || value.kind !== 'transaction') return false;
  const { transaction, history, certificate, files } = value;
  return (
    isObject(transaction) &&
    typeof transaction.id === 'string' &&
    isObject(history) &&
    typeof history.entries === 'number' &&
    (history.head === null || (isObject(history.head) && typeof history.head.hash === 'string')) &&
    isObject(certificate) &&
    (certificate.status === 'due' ||
      certificate.status === 'none' ||
      (certificate.status === 'made' &&
        typeof certificate.path === 'string' &&
        typeof certificate.sha256 === 'string' &&
        typeof certificate.chainPosition === 'number' &&
        typeof certificate.chainHead === 'string')) &&
    Array.isArray(files) &&
    files.every(
      (file) =>
        isObject(file) &&
        typeof file.name === 'string' &&
        typeof file.size === 'number' &&
        typeof file.sha256 === 'string',
    )
  );
}

/** A history's entries and head, when `value` has the shape of `history.json`. */
function chainOf(
  value: unknown,
): { transactionId: string; entries: ChainEntry[]; head: ChainHead } | undefined {
  if (!isObject(value) || typeof value.transactionId !== 'string' || !Array.isArray(value.entries))
    return undefined;
  const { head } = value;
  if (
    head !== null &&
    !(isObject(head) && typeof head.position === 'number' && typeof head.hash === 'string')
  )
    return undefined;
  const entries = value.entries as unknown[];
  const wellFormed = entries.every(
    (entry) =>
      isObject(entry) &&
      typeof entry.position === 'number' &&
      typeof entry.previous === 'string' &&
      typeof entry.hash === 'string' &&
      typeof entry.canonical === 'string',
  );
  if (!wellFormed) return undefined;
  return { transactionId: value.transactionId, entries: entries as ChainEntry[], head: head as ChainHead };
}

/** The first problem of one transaction's folder (`folder` is '' or `Jane Doe (6f1c2e0a)/`), or its counts. */
function checkTransaction(
  entries: Map<string, ReadEntry>,
  folder: string,
):
  | { problem: string }
  | {
      files: number;
      entries: number;
      seals: SealCheck[];
      certificate: TransactionManifest['certificate']['status'];
    } {
  const manifestName = `${folder}${BUNDLE_PATHS.manifest}`;
  const manifest = entries.get(manifestName)?.json;
  if (!entries.has(manifestName)) return { problem: `${manifestName} is missing` };
  if (!isTransactionManifest(manifest))
    return { problem: `${manifestName} is not the manifest of a transaction's evidence (${BUNDLE_FORMAT})` };

  // Exactly the files listed, no more and no fewer.
  const listed = new Map(manifest.files.map((file) => [`${folder}${file.name}`, file]));
  for (const name of listed.keys()) {
    if (!entries.has(name)) return { problem: `${name} is missing: the manifest lists it` };
  }
  for (const name of entries.keys()) {
    if (name.startsWith(folder) && name !== manifestName && !listed.has(name))
      return { problem: `${name} is not in the manifest: it was added` };
  }

  // The chain first: an entry removed or edited is named by its place, which says more than the file's hash.
  const historyName = `${folder}${BUNDLE_PATHS.history}`;
  if (!listed.has(historyName)) return { problem: `${manifestName} lists no ${BUNDLE_PATHS.history}` };
  const history = chainOf(entries.get(historyName)?.json);
  if (history?.transactionId !== manifest.transaction.id)
    return { problem: `${historyName} is not the history of transaction ${manifest.transaction.id}` };
  const check = checkChain(history.entries, history.head);
  if (!check.ok)
    return {
      problem: `${historyName} does not match its hash chain from entry ${String(check.position)}: ${check.reason}`,
    };

  for (const [name, file] of listed) {
    const read = entries.get(name);
    if (read?.size !== file.size || read.sha256 !== file.sha256)
      return { problem: `${name} does not match the manifest: its size or SHA-256 is not the one recorded` };
  }
  if (manifest.history.entries !== check.entries || (manifest.history.head?.hash ?? null) !== check.head)
    return { problem: `${manifestName} records another head of the history than ${historyName} ends with` };

  const certificate = manifest.certificate;
  if (certificate.status !== 'made' && listed.has(`${folder}${BUNDLE_PATHS.certificate}`))
    return {
      problem: `${folder}${BUNDLE_PATHS.certificate} is in the bundle, but ${manifestName} does not record it made`,
    };
  if (certificate.status === 'made') {
    const certificateName = `${folder}${certificate.path}`;
    const certified = history.entries.find((entry) => entry.position === certificate.chainPosition);
    if (entries.get(certificateName)?.sha256 !== certificate.sha256 || !isSealed(certificate.path))
      return {
        problem: `${certificateName} is not the certificate of completion that was made: its SHA-256 differs`,
      };
    if (certified?.hash !== certificate.chainHead)
      return {
        problem: `${certificateName} certifies the history up to entry ${String(certificate.chainPosition)} (${certificate.chainHead.slice(0, 12)}…), which ${historyName} does not hold`,
      };
  }

  const seals: SealCheck[] = [];
  for (const name of listed.keys()) {
    const seal = entries.get(name)?.seal;
    if (!isSealed(name.slice(folder.length))) continue;
    if (seal === undefined) return { problem: `${name} is too large to check its seal` };
    if (!seal.ok) return { problem: `${name}: ${seal.problem}` };
    seals.push(seal);
  }
  return { files: listed.size, entries: check.entries, seals, certificate: certificate.status };
}

/**
 * Checks the evidence bundle at `path` (see the file's comment): what holds, or the first thing that does not.
 * `trusted` are the certificates (DER) the seals must chain to; without them, seals are checked but not their
 * certificates' chain. Throws BundleError for a file that cannot be read as a bundle (not a zip, a zip bomb, a
 * name that leaves the bundle).
 *
 * @example
 * const check = await verifyBundle('evidence.zip', { trusted: [caDer] });
 * if (!check.ok) console.log(check.problem);
 */
export async function verifyBundle(
  path: string,
  options: { trusted?: readonly Uint8Array[] | undefined; limits?: BundleLimits } = {},
): Promise<BundleCheck> {
  const entries = await readEntries(path, options.trusted, options.limits ?? BUNDLE_LIMITS);
  const top = entries.get(BUNDLE_PATHS.manifest)?.json as
    Partial<TransactionManifest> | Partial<ClosingManifest> | undefined;
  if (top?.format !== BUNDLE_FORMAT || (top.kind !== 'closing' && top.kind !== 'transaction'))
    return {
      ok: false,
      problem: `it holds no ${BUNDLE_PATHS.manifest} of an evidence bundle (${BUNDLE_FORMAT}): it is not one Portico made`,
    };
  const folders: string[] = [];
  if (top.kind === 'closing') {
    const listedFolders = top.transactions;
    const wellFormed =
      Array.isArray(listedFolders) &&
      listedFolders.every(
        (listed: unknown) =>
          isObject(listed) &&
          typeof listed.folder === 'string' &&
          !listed.folder.includes('/') &&
          isObject(listed.manifest) &&
          typeof listed.manifest.sha256 === 'string',
      );
    if (!wellFormed)
      return { ok: false, problem: `${BUNDLE_PATHS.manifest} does not list the closing's transactions` };
    for (const listed of listedFolders) {
      const name = `${listed.folder}/${BUNDLE_PATHS.manifest}`;
      const read = entries.get(name);
      if (read === undefined)
        return { ok: false, problem: `${name} is missing: the bundle's manifest lists it` };
      if (read.size !== listed.manifest.size || read.sha256 !== listed.manifest.sha256)
        return {
          ok: false,
          problem: `${name} does not match the bundle's manifest: its SHA-256 is not the one recorded`,
        };
      folders.push(`${listed.folder}/`);
    }
    for (const name of entries.keys()) {
      if (name !== BUNDLE_PATHS.manifest && !folders.some((folder) => name.startsWith(folder)))
        return { ok: false, problem: `${name} is not in the bundle's manifest: it was added` };
    }
  } else folders.push('');

  const summary = { files: 0, entries: 0, seals: 0, certificates: { made: 0, due: 0, none: 0 } };
  const sealedBy = new Set<string>();
  for (const folder of folders) {
    const checked = checkTransaction(entries, folder);
    if ('problem' in checked) return { ok: false, problem: checked.problem };
    summary.files += checked.files;
    summary.entries += checked.entries;
    summary.seals += checked.seals.length;
    summary.certificates[checked.certificate] += 1;
    for (const seal of checked.seals) if (seal.ok) sealedBy.add(seal.signer);
  }
  return {
    ok: true,
    kind: top.kind,
    transactions: folders.length,
    ...summary,
    sealedBy: [...sealedBy],
    // Given certificates to trust, a seal that did not chain to one has already failed the check.
    trusted: options.trusted === undefined ? null : true,
  };
}
