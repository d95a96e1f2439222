import { createHash, randomUUID } from 'node:crypto';
import type { Transaction } from '../db/database.ts';
import { AppError, quote } from '../errors.ts';

/**
 * Transmit tokens: the secret in a recipient's link. A token is 122 random bits in UUID form (as the spec types
 * it); only its SHA-256 is stored, so a database dump opens no transaction.
 */

/** The stored form of a transmit token. */
export function hashTransmitToken(token: string): Buffer {
  return createHash('sha256').update(token.toLowerCase()).digest();
}

/** A new transmit token, shown once, and the hash to store. */
export function newTransmitToken(): { transmitToken: string; hash: Buffer } {
  const transmitToken = randomUUID();
  return { transmitToken, hash: hashTransmitToken(transmitToken) };
}

/**
 * Replaces a transaction's transmit token: the new one is returned once, the old one stops working at once
 * (e.g. when a recipient's link was forwarded by mistake).
 */
export async function resetTransmitToken(
  tx: Transaction,
  options: { organizationId: string; transactionId: string },
): Promise<{ transactionId: string; transmitToken: string }> {
  const { transmitToken, hash } = newTransmitToken();
  const [row] = await tx.query<{ id: string }>(
    `update transactions set transmit_token_hash = $3, updated_at = clock_timestamp()
     where id = $1 and organization_id = $2 returning id`,
    [options.transactionId, options.organizationId, hash],
  );
  if (!row) {
    throw new AppError('NOT_FOUND', `no transaction with id ${quote(options.transactionId)}`, {
      field: 'transactionId',
    });
  }
  return { transactionId: row.id, transmitToken };
}
