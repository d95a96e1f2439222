import { createHash, randomUUID } from 'node:crypto';
import type { Transaction } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { queueInvitation } from './notice-queue.ts';
import { DEFAULT_INVITATIONS, type TemplateDefinition } from '../templates/schema.ts';

/**
 * Transmit tokens: the secret in a recipient's link. A token is 122 random bits in UUID form (as the spec types
 * it); only its SHA-256 is stored, so a database dump opens no transaction. A link works for the template's
 * `invitations.linkValidDays` (90 by default) after its token is made.
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

/** How many days a recipient link of the template works after its token is made. */
export function linkValidDays(definition: TemplateDefinition): number {
  return definition.invitations?.linkValidDays ?? DEFAULT_INVITATIONS.linkValidDays;
}

/**
 * Replaces a transaction's transmit token: the new one is returned once, the old one stops working at once
 * (e.g. when a recipient's link was forwarded by mistake) and is remembered, so that it says it was replaced.
 * The recipient is invited again with the new link, and told that the old one stopped working
 * (recipients/notice-queue.ts).
 */
export async function resetTransmitToken(
  tx: Transaction,
  options: { organizationId: string; transactionId: string; requestId?: string | undefined },
): Promise<{ transactionId: string; transmitToken: string }> {
  const { transmitToken, hash } = newTransmitToken();
  const [row] = await tx.query<{ id: string; oldHash: Uint8Array | null; definition: TemplateDefinition }>(
    `select t.id, t.transmit_token_hash as "oldHash", tp.definition
     from transactions t join templates tp on tp.id = t.template_id
     where t.id = $1 and t.organization_id = $2 for update of t`,
    [options.transactionId, options.organizationId],
  );
  if (!row) {
    throw notFound('transaction', options.transactionId, { field: 'transactionId' });
  }
  if (row.oldHash) {
    await tx.query(
      `insert into retired_transmit_tokens (token_hash, transaction_id) values ($1, $2) on conflict do nothing`,
      [Buffer.from(row.oldHash), row.id],
    );
  }
  await tx.query(
    `update transactions set transmit_token_hash = $2, updated_at = clock_timestamp(),
       transmit_token_expires_at = clock_timestamp() + make_interval(days => $3)
     where id = $1`,
    [row.id, hash, linkValidDays(row.definition)],
  );
  // The recipient gets the new link by mail, as they got the first, told that the old one stopped working.
  await queueInvitation(tx, {
    organizationId: options.organizationId,
    transactionId: row.id,
    transmitToken,
    linkReplaced: true,
    requestId: options.requestId,
  });
  return { transactionId: row.id, transmitToken };
}
