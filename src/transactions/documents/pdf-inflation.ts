import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createInflate } from 'node:zlib';

/**
 * The most a fund's PDF may inflate to, all its Flate streams together: a PDF of 10 MB on disk may hold a
 * compression bomb of gigabytes, which every fill would inflate again. Honest fund PDFs (text, forms, JPEG
 * scans) inflate to a few megabytes, tens at most.
 */
export const MAX_INFLATED_MEGABYTES = 64;

/** Layers of Flate inside Flate that are counted too (`/Filter [/FlateDecode /FlateDecode]`). */
const NESTED_LAYERS = 2;

/** A zlib header: deflate method, and a check that the two bytes make a multiple of 31. */
function looksLikeZlib(bytes: Uint8Array, at = 0): boolean {
  const first = bytes[at];
  const second = bytes[at + 1];
  return (
    first !== undefined && second !== undefined && (first & 0x0f) === 8 && (first * 256 + second) % 31 === 0
  );
}

/** Counts what passes, and stops the flow once more than `tally.cap` bytes passed in all. */
async function* counted(
  chunks: AsyncIterable<Uint8Array>,
  tally: { bytes: number; cap: number },
): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    tally.bytes += chunk.byteLength;
    yield chunk;
    if (tally.bytes > tally.cap) return;
  }
}

/**
 * What a zlib stream inflates to, chunk by chunk, never held whole. It ends where the stream ends (bytes after
 * it are ignored) or where it breaks: what was inflated before a damaged part is counted, as a reader would
 * have inflated it too.
 */
async function* inflated(
  source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const inflater = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
  pipeline(Readable.from(source), inflater).catch(() => undefined);
  try {
    for await (const chunk of inflater as AsyncIterable<Uint8Array>) yield chunk;
  } catch {
    // A damaged stream ends where it breaks.
  } finally {
    inflater.destroy();
  }
}

/** Counts one stream's inflated bytes into `tally`, and those of the Flate layers inside it. */
async function countStream(
  source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  tally: { bytes: number; cap: number },
  layer: number,
): Promise<void> {
  const out = counted(inflated(source), tally);
  const first = await out.next();
  if (first.done === true) return;
  const all = (async function* () {
    yield first.value;
    yield* out;
  })();
  if (layer < NESTED_LAYERS && looksLikeZlib(first.value)) return countStream(all, tally, layer + 1);
  // Drained: each chunk is counted as it passes.
  while ((await all.next()).done !== true);
}

const STREAM = Buffer.from('stream', 'latin1');
const END = Buffer.from('end', 'latin1');

/**
 * How many bytes the Flate streams of a PDF inflate to, counted up to just past `capBytes` (a bomb stops the
 * count there, having inflated no more than that). Every stream is found by its `stream` keyword and inflated
 * from the data that follows, which a zlib stream ends by itself: no dictionary, `/Length` or cross-reference
 * table has to be believed, and streams inside object streams, which pdf-lib inflates as it parses, are counted
 * before it does. A `stream` keyword inside binary data only adds a count when a zlib stream happens to follow,
 * which makes the count larger, never smaller.
 */
export async function inflatedSize(bytes: Uint8Array, capBytes: number): Promise<number> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tally = { bytes: 0, cap: capBytes };
  for (let at = buffer.indexOf(STREAM); at !== -1; at = buffer.indexOf(STREAM, at + STREAM.length)) {
    if (at >= END.length && buffer.subarray(at - END.length, at).equals(END)) continue;
    // The data starts after the end of the keyword's line: CR LF or LF (a lone CR in damaged files).
    let start = at + STREAM.length;
    if (buffer[start] === 0x0d) start += 1;
    if (buffer[start] === 0x0a) start += 1;
    if (!looksLikeZlib(buffer, start)) continue;
    await countStream([buffer.subarray(start)], tally, 0);
    if (tally.bytes > capBytes) break;
  }
  return tally.bytes;
}
