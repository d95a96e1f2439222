import { createHash, hkdfSync } from 'node:crypto';
import type { Database, Transaction } from '../db/database.ts';
import { AppError, idempotencyKeyReused } from '../errors.ts';
import { open, seal } from '../keys/sealed-box.ts';

const MAX_KEY_LENGTH = 255;

/** JSON with object keys sorted, so that the same input written in another order hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The hex digits of {@link idempotencyKeyFingerprint}: 32 bits, enough to tell a client's retries apart. */
const FINGERPRINT_DIGITS = 8;

/**
 * What the console shows of a call's Idempotency-Key: the first 8 hex digits of the SHA-256 of the key, so that
 * staff can match a call to the client's own logs (`printf %s "$KEY" | sha256sum | cut -c1-8`) without the key
 * itself, which seals the stored result, reaching every console role.
 *
 * @example
 * idempotencyKeyFingerprint('create-ada-1'); // 'c906543b'
 */
export function idempotencyKeyFingerprint(key: string): string {
  return sha256(key).toString('hex').slice(0, FINGERPRINT_DIGITS);
}

// The stored result may hold a secret (a transmit token): it is encrypted under a key derived from the
// Idempotency-Key itself, which is stored only as a hash, so the database alone cannot read it.
function cipherKey(idempotencyKey: string, organizationId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', idempotencyKey, organizationId, 'portico idempotent result', 32));
}

/**
 * Runs a mutation's `work` in one database transaction. With an Idempotency-Key, the same key and the same
 * input within 24 hours return the first result without doing the work again; the same key with other input
 * is refused (IDEMPOTENCY_KEY_REUSED). Two concurrent requests with one key do the work once: the second
 * waits on the first's key row and then returns its result. A request that fails leaves no result behind.
 */
export async function idempotent<Result>(
  db: Database,
  options: { organizationId: string; key: string | undefined; operation: string; input: unknown },
  work: (tx: Transaction) => Promise<Result>,
): Promise<Result> {
  const { organizationId, key } = options;
  if (key === undefined) return db.transaction(work);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'BAD_USER_INPUT',
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable characters without spaces (a UUID is a good choice)`,
    );
  }
  const keyHash = sha256(`${organizationId}:${key}`);
  const requestHash = sha256(canonical({ operation: options.operation, input: options.input }));
  const secret = cipherKey(key, organizationId);
  return db.transaction(async (tx) => {
    await tx.query(
      `delete from idempotency_keys where organization_id = $1 and key = $2
       and created_at < clock_timestamp() - interval '24 hours'`,
      [organizationId, keyHash.toString('hex')],
    );
    const [claimed] = await tx.query(
      `insert into idempotency_keys (organization_id, key, request_hash, response) values ($1, $2, $3, 'null')
       on conflict do nothing returning key`,
      [organizationId, keyHash.toString('hex'), requestHash],
    );
    if (!claimed) {
      const [first] = await tx.query<{ requestHash: Uint8Array; response: { sealed?: string } }>(
        `select request_hash as "requestHash", response from idempotency_keys where organization_id = $1 and key = $2`,
        [organizationId, keyHash.toString('hex')],
      );
      if (!first || !Buffer.from(first.requestHash).equals(requestHash)) {
        throw idempotencyKeyReused();
      }
      return open(Buffer.from(first.response.sealed ?? '', 'base64'), secret) as Result;
    }
    const result = await work(tx);
    await tx.query('update idempotency_keys set response = $3 where organization_id = $1 and key = $2', [
      organizationId,
      keyHash.toString('hex'),
      { sealed: seal(result, secret).toString('base64') },
    ]);
    return result;
  });
}
