import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';

/**
 * A gzipped tar file of regular files (POSIX ustar, with a pax header for a name longer than 100 bytes): what
 * `tar -xzf` opens, written and read with node:zlib alone. Enough for a backup; not a general tar library.
 */

const BLOCK = 512;

/** One member of the archive. */
export interface TarEntry {
  name: string;
  data: Buffer;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, type: '0' | 'x', mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name.slice(0, 100), 0, 'utf8');
  block.write(octal(0o600, 8), 100);
  block.write(octal(0, 8), 108);
  block.write(octal(0, 8), 116);
  block.write(octal(size, 12), 124);
  block.write(octal(mtime, 12), 136);
  block.write(' '.repeat(8), 148);
  block.write(type, 156);
  block.write('ustar\0' + '00', 257, 'binary');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return block;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** A pax record `<length> path=<name>\n`, whose length counts itself. */
function paxPath(name: string): Buffer {
  const body = ` path=${name}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return Buffer.from(`${String(length)}${body}`);
}

/** Writes a `.tar.gz` at `path`, one entry at a time; `close` finishes it. */
export interface TarWriter {
  add(entry: TarEntry): Promise<void>;
  close(): Promise<void>;
}

/** Starts a `.tar.gz` at `path` (created owner-readable only: a backup holds secrets). */
export function createTarWriter(path: string): TarWriter {
  const gzip = createGzip();
  const done = pipeline(gzip, createWriteStream(path, { mode: 0o600 }));
  // Keeps a failure of the file from being unhandled before `close` awaits it.
  done.catch(() => undefined);
  const mtime = Math.floor(Date.now() / 1000);
  const write = async (chunk: Buffer) => {
    if (!gzip.write(chunk)) await Promise.race([once(gzip, 'drain'), done]);
  };
  return {
    async add({ name, data }) {
      if (Buffer.byteLength(name) > 100) {
        const pax = paxPath(name);
        await write(header('PaxHeader', pax.length, 'x', mtime));
        await write(Buffer.concat([pax, padding(pax.length)]));
      }
      await write(header(name, data.length, '0', mtime));
      await write(data);
      await write(padding(data.length));
    },
    async close() {
      gzip.end(Buffer.alloc(BLOCK * 2));
      await done;
    },
  };
}

function field(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

/** Thrown for bytes that are not a tar.gz this module wrote (or that were damaged). */
export class DamagedArchiveError extends Error {
  override name = 'DamagedArchiveError';
}

/** The regular files of the `.tar.gz` at `path`, in order, each whole. */
export async function* readTarEntries(path: string): AsyncGenerator<TarEntry> {
  const source = createReadStream(path).pipe(createGunzip());
  const chunks: Buffer[] = [];
  let buffered = 0;
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  /** The next `size` bytes, or undefined at the end of the stream. */
  const take = async (size: number): Promise<Buffer | undefined> => {
    while (buffered < size) {
      const next = await iterator.next();
      if (next.done) return undefined;
      chunks.push(next.value);
      buffered += next.value.length;
    }
    const all = Buffer.concat(chunks);
    chunks.length = 0;
    chunks.push(all.subarray(size));
    buffered = all.length - size;
    return all.subarray(0, size);
  };
  let longName: string | undefined;
  try {
    for (;;) {
      const block = await take(BLOCK);
      if (!block) throw new DamagedArchiveError('the archive ends without its end marker');
      if (block.every((byte) => byte === 0)) return;
      if (field(block, 257, 5) !== 'ustar') throw new DamagedArchiveError('not a tar archive');
      const size = parseInt(field(block, 124, 12).trim() || '0', 8);
      const type = field(block, 156, 1);
      const body = await take(size + padding(size).length);
      if (!body) throw new DamagedArchiveError('the archive ends in the middle of a file');
      const data = body.subarray(0, size);
      if (type === 'x') {
        longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1];
        continue;
      }
      const name = longName ?? field(block, 0, 100);
      longName = undefined;
      if (type === '0' || type === '') yield { name, data: Buffer.from(data) };
    }
  } finally {
    source.destroy();
  }
}
