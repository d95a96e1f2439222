// The zip of an evidence bundle (bundle-zip.ts): written as a stream with each file's hash, and read back from a
// file anyone may have made, refusing a zip bomb, a name that leaves the bundle and a file that is not a zip.
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BundleError,
  hashOf,
  readBundle,
  writeBundle,
  type BundlePart,
} from '../../../src/transactions/evidence/bundle-zip.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'portico-bundle-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The parts as the bundle's writer takes them: one at a time, as a transaction's files are read. */
function partsOf(...parts: BundlePart[]): AsyncIterable<BundlePart> {
  return Readable.from(parts);
}

/** A bundle written to a file of the test's folder. */
async function written(name: string, ...parts: BundlePart[]) {
  const path = join(dir, name);
  const files = await writeBundle(createWriteStream(path), partsOf(...parts));
  return { path, files };
}

/** What reading a bundle gives: each entry's hash, or the refusal's message. */
async function readBack(path: string): Promise<Record<string, string> | string> {
  const seen: Record<string, string> = {};
  try {
    await readBundle(path, async (entry) => {
      seen[entry.name] = (await hashOf(await entry.open(), entry.name)).sha256;
    });
    return seen;
  } catch (error) {
    if (error instanceof BundleError) return error.message;
    throw error;
  }
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');

describe("an evidence bundle's zip", () => {
  it('writes each part, from bytes or a stream, and reads each back with the hash it was written with', async () => {
    const events = JSON.stringify([{ position: 1, action: 'opened' }]);
    const { path, files } = await written(
      'round-trip.zip',
      { name: 'events.json', content: new TextEncoder().encode(events) },
      { name: 'files/w9.pdf', content: Readable.from([Buffer.from('%PDF-1.7 a W-9')]) },
    );
    expect(files).toEqual([
      { name: 'events.json', size: events.length, sha256: sha256(events) },
      { name: 'files/w9.pdf', size: 14, sha256: sha256('%PDF-1.7 a W-9') },
    ]);
    expect(await readBack(path)).toEqual({
      'events.json': sha256(events),
      'files/w9.pdf': sha256('%PDF-1.7 a W-9'),
    });
  });

  it('destroys its output and lets go of the file it was reading when the output fails, as a download cut short', async () => {
    // A file of the store, endless: only a failure ends it.
    const reading = new Readable({
      read() {
        this.push(Buffer.alloc(64 * 1024, 1));
      },
    });
    let taken = 0;
    const out = new Writable({
      write(chunk: Buffer, _encoding, next) {
        taken += chunk.length;
        next(taken > 256 * 1024 ? new Error('the client went away') : null);
      },
    });
    await expect(
      writeBundle(out, partsOf({ name: 'documents/large.pdf', content: reading })),
    ).rejects.toThrow('the client went away');
    expect(out.destroyed).toBe(true);
    expect(reading.destroyed).toBe(true);
  });

  it('refuses a zip bomb before inflating it, naming the entry', async () => {
    const { path } = await written('bomb.zip', {
      name: 'files/zeros.bin',
      content: new Uint8Array(50 * 1024 * 1024),
    });
    expect(await readBack(path)).toMatch(
      /^files\/zeros\.bin inflates \d+ times its size, as a zip bomb does$/,
    );
  });

  it('refuses an entry whose name leaves the bundle, and an absolute one', async () => {
    const { path } = await written('escape.zip', {
      name: 'aa/evil.txt',
      content: new TextEncoder().encode('x'),
    });
    const bytes = Buffer.from(await readFile(path));
    // The same name, written `../evil.txt` in both its local header and the central directory.
    let at = bytes.indexOf('aa/evil.txt');
    while (at !== -1) {
      bytes.write('..', at, 'latin1');
      at = bytes.indexOf('aa/evil.txt', at + 1);
    }
    await writeFile(path, bytes);
    expect(await readBack(path)).toBe('it names an entry outside the bundle (../evil.txt)');

    const absolute = await written('absolute.zip', {
      name: 'xetc/passwd',
      content: new TextEncoder().encode('x'),
    });
    const again = Buffer.from(await readFile(absolute.path));
    let first = again.indexOf('xetc/passwd');
    while (first !== -1) {
      again.write('/', first, 'latin1');
      first = again.indexOf('xetc/passwd', first + 1);
    }
    await writeFile(absolute.path, again);
    expect(await readBack(absolute.path)).toBe('it names an entry outside the bundle (/etc/passwd)');
  });

  it('refuses a file of 2 GB that is not a zip, without reading it through', async () => {
    const path = join(dir, 'large.bin');
    const file = await open(path, 'w');
    await file.truncate(2 * 1024 ** 3);
    await file.close();
    // A sparse file: only its end is read, where a zip keeps its directory.
    expect(await readBack(path)).toMatch(/^it is not a zip file that can be read \(/);
  });
});
