import { createHash } from 'node:crypto';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Entry as YauzlEntry, ZipFile as YauzlZipFile } from 'yauzl';

/**
 * The zip of an evidence bundle, written as a stream (yazl) and read back without trusting it (yauzl): a bundle is
 * a file anyone may hand to `portico verify`, so a reader bounds what it will inflate (entries, sizes, the ratio
 * of a zip bomb), refuses names that leave the bundle (absolute, `..`, backslashes) or come twice, and hashes each
 * entry as it streams, never holding a file whole unless asked to.
 */

/** One file of a bundle as it is written: its path in the bundle, and its bytes or a stream of them. */
export interface BundlePart {
  name: string;
  content: Uint8Array | Readable;
}

/** A file of a bundle as its manifest lists it. */
export interface BundleFile {
  name: string;
  size: number;
  sha256: string;
}

/** What a reader will take of a bundle: past any of these, it refuses the bundle and says which. */
export interface BundleLimits {
  /** Entries in the bundle. */
  entries: number;
  /** Bytes one entry inflates to. */
  entryBytes: number;
  /** Bytes all entries inflate to. */
  totalBytes: number;
  /** How many times its compressed size an entry may inflate to (a zip bomb inflates thousands of times). */
  ratio: number;
}

export const BUNDLE_LIMITS: BundleLimits = {
  entries: 100_000,
  entryBytes: 1024 ** 3,
  totalBytes: 8 * 1024 ** 3,
  ratio: 200,
};

/** A bundle that cannot be read, or that breaks a limit, with what is wrong in words (and the entry, if one). */
export class BundleError extends Error {
  override name = 'BundleError';

  constructor(
    message: string,
    readonly entry?: string,
  ) {
    super(message);
  }
}

/** "1.5 GB", "12 KB": a size as the messages say it. */
function shownSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${String(bytes)} bytes` : `${value.toFixed(1)} ${units[unit] ?? ''}`;
}

/**
 * Writes `parts` as a zip to `out`, in order, each hashed (SHA-256) as it streams into the zip, and answers each
 * file's name, size and hash. A part is taken from `parts` only once the one before it is in the zip, and
 * `onWritten` hears of each file then: a caller's generator knows the hashes of what it gave so far (for a
 * manifest it adds last), and holds one file open at a time, whatever the bundle's size. When a part fails (its
 * stream errs, `parts` throws) or `out` does (a download cut short), `out` and the part being read are destroyed
 * with the error: a bundle is whole or it is not written, and no file of the store is left open.
 */
export async function writeBundle(
  out: Writable,
  parts: AsyncIterable<BundlePart>,
  onWritten: (file: BundleFile) => void = () => undefined,
): Promise<BundleFile[]> {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  const written = pipeline(zip.outputStream, out);
  // Awaited at the end; until then, a failure of the output (a closed connection) ends the part being written.
  let outputFailed: (error: unknown) => void = () => undefined;
  const outputFailure = new Promise<never>((_resolve, reject) => {
    outputFailed = reject;
  });
  outputFailure.catch(() => undefined);
  written.catch(outputFailed);
  const files: BundleFile[] = [];
  // The part being written, let go of when the bundle fails (a file of the store held open otherwise).
  let writing: { counted: Transform; content: Uint8Array | Readable } | undefined;
  try {
    for await (const part of parts) {
      const hash = createHash('sha256');
      let size = 0;
      const file = new Promise<BundleFile>((resolve, reject) => {
        // Hashed as yazl pulls it through, so that nothing is read before the zip takes it.
        const counted = new Transform({
          transform(chunk: Buffer, _encoding, next) {
            hash.update(chunk);
            size += chunk.length;
            next(null, chunk);
          },
          flush(next) {
            resolve({ name: part.name, size, sha256: hash.digest('hex') });
            next();
          },
        });
        writing = { counted, content: part.content };
        zip.addReadStream(counted, part.name, { compress: !part.name.endsWith('.pdf') });
        if (part.content instanceof Uint8Array) counted.end(Buffer.from(part.content));
        else pipeline(part.content, counted).catch(reject);
      });
      const made = await Promise.race([file, outputFailure]);
      files.push(made);
      onWritten(made);
    }
  } catch (error) {
    const failed = error instanceof Error ? error : new Error(String(error));
    writing?.counted.destroy(failed);
    if (writing !== undefined && !(writing.content instanceof Uint8Array)) writing.content.destroy(failed);
    out.destroy(failed);
    await written.catch(() => undefined);
    throw error;
  }
  zip.end();
  await written;
  return files;
}

/** One entry of a bundle being read: its name, size, and its content as a stream (read it, or it is skipped). */
export interface BundleEntry {
  name: string;
  size: number;
  /** The entry's bytes, inflated and checked against its declared size. */
  open(): Promise<Readable>;
}

/**
 * Reads the bundle at `path` entry by entry, in the zip's order, calling `visit` with each; refuses it
 * (BundleError) when it is not a zip, breaks one of `limits`, or names an entry that leaves the bundle or comes
 * twice. Nothing is inflated until `open` is called, and an entry that inflates to more than it declared is
 * refused as it streams.
 */
export async function readBundle(
  path: string,
  visit: (entry: BundleEntry) => Promise<void>,
  limits: BundleLimits = BUNDLE_LIMITS,
): Promise<void> {
  const yauzl = await import('yauzl');
  const zip = await new Promise<YauzlZipFile>((resolve, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: true },
      (error, opened) => {
        if (error) reject(new BundleError(`it is not a zip file that can be read (${error.message})`));
        else resolve(opened);
      },
    );
  });
  if (zip.entryCount > limits.entries) {
    zip.close();
    throw new BundleError(
      `it holds ${String(zip.entryCount)} entries, more than the ${String(limits.entries)} a bundle may`,
    );
  }
  const seen = new Set<string>();
  let total = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (error: unknown) => {
        reject(
          error instanceof BundleError
            ? error
            : new BundleError(`it cannot be read: ${(error as Error).message}`),
        );
      };
      zip.on('error', (error: Error) => {
        // yauzl checks each name as it reads the directory: one that leaves the bundle ends the read here.
        const named = /^(?:invalid relative path|invalid characters in fileName|absolute path): (.*)$/.exec(
          error.message,
        );
        fail(
          named
            ? new BundleError(`it names an entry outside the bundle (${named[1] ?? ''})`, named[1])
            : error,
        );
      });
      zip.on('end', resolve);
      zip.on('entry', (entry: YauzlEntry) => {
        const name = entry.fileName;
        if (name.endsWith('/')) {
          zip.readEntry();
          return;
        }
        if (seen.has(name)) {
          fail(new BundleError(`it holds ${name} twice`, name));
          return;
        }
        seen.add(name);
        const size = entry.uncompressedSize;
        total += size;
        if (size > limits.entryBytes) {
          fail(
            new BundleError(
              `${name} inflates to ${shownSize(size)}, past the ${shownSize(limits.entryBytes)} a file of a bundle may`,
              name,
            ),
          );
          return;
        }
        if (total > limits.totalBytes) {
          fail(new BundleError(`its files inflate to more than ${shownSize(limits.totalBytes)}`, name));
          return;
        }
        if (size > 1024 * 1024 && size > entry.compressedSize * limits.ratio) {
          fail(
            new BundleError(
              `${name} inflates ${String(Math.round(size / Math.max(entry.compressedSize, 1)))} times its size, as a zip bomb does`,
              name,
            ),
          );
          return;
        }
        const open = () =>
          new Promise<Readable>((opened, refused) => {
            zip.openReadStream(entry, (error, stream) => {
              if (error) refused(new BundleError(`${name} cannot be read: ${error.message}`, name));
              else opened(stream);
            });
          });
        visit({ name, size, open }).then(() => {
          zip.readEntry();
        }, fail);
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

/** The SHA-256 (hex) and size of a stream of an entry, read to its end. */
export async function hashOf(stream: Readable, name: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch (error) {
    throw new BundleError(`${name} cannot be read: ${(error as Error).message}`, name);
  }
  return { sha256: hash.digest('hex'), size };
}
