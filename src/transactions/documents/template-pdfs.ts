import type { Queryable } from '../../db/database.ts';

/** The bytes of fund PDFs kept in memory at most: a few of the largest (10 MB each), many of the usual. */
const CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Fund PDFs by organization and SHA-256, most recently used last. A PDF's content never changes under its hash,
 * so what is kept is never stale, on any node. Each is held in shared memory, so that a document worker reads
 * it where it is instead of getting a copy of up to 10 MB with each document.
 */
const cache = new Map<string, Uint8Array>();
let cachedBytes = 0;

/** A copy of `bytes` in shared memory, which workers read without a copy of their own. */
function shared(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
}

/**
 * The fund PDF an agreement names by its SHA-256, from memory or the database: a fill no longer reads up to
 * 10 MB from the database for each preview. Never to be changed by the caller.
 */
export async function templatePdf(
  tx: Queryable,
  organizationId: string,
  sha256: string,
): Promise<Uint8Array | undefined> {
  const key = `${organizationId}:${sha256}`;
  const kept = cache.get(key);
  if (kept !== undefined) {
    cache.delete(key);
    cache.set(key, kept);
    return kept;
  }
  const [stored] = await tx.query<{ content: Uint8Array }>(
    'select content from template_files where organization_id = $1 and sha256 = $2',
    [organizationId, sha256],
  );
  if (!stored) return undefined;
  // Another fill may have read it meanwhile.
  const read = cache.get(key);
  if (read !== undefined) return read;
  const bytes = shared(stored.content);
  if (bytes.byteLength > CACHE_BYTES) return bytes;
  cache.set(key, bytes);
  cachedBytes += bytes.byteLength;
  for (const [oldest, content] of cache) {
    if (cachedBytes <= CACHE_BYTES) break;
    cache.delete(oldest);
    cachedBytes -= content.byteLength;
  }
  return bytes;
}
