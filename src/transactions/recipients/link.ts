import type { Transaction } from '../../db/database.ts';
import { linkErrors, linkOpensNothing } from '../../errors.ts';
import { isUuid } from '../../validation/uuid.ts';
import type { LockedTransaction } from '../transitions.ts';
import { hashTransmitToken } from './transmit-tokens.ts';

/** A transaction opened through its recipient link, and when that link stops working. */
export interface OpenedLink {
  subject: LockedTransaction;
  expiresAt: Date;
}

/**
 * Opens the transaction of a recipient link (its transmit token), locked for the rest of the database
 * transaction. A link whose transaction was voided answers TRANSACTION_VOIDED (with the organization's reason,
 * so nothing more can be saved, uploaded, signed or submitted through it), a replaced link LINK_REVOKED, an
 * expired one LINK_EXPIRED, anything else NOT_FOUND: a page can then tell the recipient what to do.
 */
export async function openRecipientLink(tx: Transaction, token: string): Promise<OpenedLink> {
  const hash = isUuid(token) ? hashTransmitToken(token) : undefined;
  if (!hash) throw linkOpensNothing();
  const [row] = await tx.query<
    LockedTransaction & {
      expiresAt: Date | null;
      expired: boolean;
      voidedAt: Date | null;
      voidReason: string | null;
      organizationName: string;
    }
  >(
    `select t.id, t.organization_id as "organizationId", t.state, t.sender_entity_id as "senderEntityId",
       coalesce(t.input_data, '{}'::jsonb) as "inputData", tp.definition,
       t.transmit_token_expires_at as "expiresAt",
       coalesce(t.transmit_token_expires_at <= clock_timestamp(), false) as expired,
       t.voided_at as "voidedAt", t.void_reason as "voidReason", o.name as "organizationName"
     from transactions t join templates tp on tp.id = t.template_id join organizations o on o.id = t.organization_id
     where t.transmit_token_hash = $1 for update of t`,
    [hash],
  );
  if (row) {
    // A void tells the recipient why whether or not the link still works: it is the end of the story.
    if (row.voidedAt !== null) {
      throw linkErrors.recipientTransactionVoided({
        organizationName: row.organizationName,
        reason: row.voidReason ?? '',
        voidedAt: row.voidedAt,
      });
    }
    if (row.expired) {
      throw linkErrors.recipientLinkExpired();
    }
    const { id, organizationId, state, senderEntityId, inputData, definition, expiresAt } = row;
    return {
      subject: { id, organizationId, state, senderEntityId, inputData, definition },
      expiresAt: expiresAt ?? new Date(8.64e15),
    };
  }
  const [retired] = await tx.query('select 1 from retired_transmit_tokens where token_hash = $1', [hash]);
  if (retired) {
    throw linkErrors.recipientLinkReplaced();
  }
  throw linkOpensNothing();
}
