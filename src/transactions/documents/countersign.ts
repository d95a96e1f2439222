import type { Queryable, Transaction } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import {
  recipientOf,
  signDocument,
  type SignatureRequest,
  type SignatureResult,
  type Signer,
} from '../recipients/actions.ts';
import { lockOwnTransaction, type LockedTransaction } from '../transitions.ts';

/**
 * Countersigning: the organization signs a document of one of its transactions as the sender, through the API
 * (`signTransactionDocument`) or the console (console/transaction/actions.ts), in the sender role of the template
 * that signs it (e.g. the countersigner). Recipients sign with their link instead (recipients/actions.ts); both
 * make the same signature (`signDocument`).
 */

/** A countersignature asked for: a signature of a document of a transaction of the organization. */
export type Countersignature = SignatureRequest & { organizationId: string; transactionId: string };

/** The recipient through which the sender signs a document: the sender role that signs it and is present. */
async function senderSigner(tx: Queryable, subject: LockedTransaction, documentKey: string): Promise<Signer> {
  const document = subject.definition.processes
    .flatMap((p) => p.documents ?? [])
    .find((d) => d.key === documentKey);
  const senderRoles = subject.definition.recipientRoles
    .filter((role) => role.sender === true)
    .map((role) => role.key);
  for (const role of document?.signedBy.filter((r) => senderRoles.includes(r)) ?? []) {
    const signer = await recipientOf(tx, subject.id, role);
    if (signer) return signer;
  }
  throw new AppError(
    'CONFLICT',
    `the sender has no role that signs "${documentKey}" in this transaction now (recipients sign with their link)`,
  );
}

/**
 * Signs a document as the sender (the organization's countersignature), by typed name with explicit consent, in
 * the caller's database transaction: the transaction is locked (NOT_FOUND for another organization's), then
 * signed as a recipient signs.
 *
 * @example
 * await db.transaction((tx) =>
 *   signAsSender(tx, { organizationId, transactionId, documentKey: 'agreement', signedName: 'Ada Lovelace',
 *     consent: true, context: { ipAddress: '127.0.0.1', userAgent: undefined }, files }),
 * );
 */
export async function signAsSender(tx: Transaction, options: Countersignature): Promise<SignatureResult> {
  const subject = await lockOwnTransaction(tx, {
    id: options.transactionId,
    organizationId: options.organizationId,
  });
  const signer = await senderSigner(tx, subject, options.documentKey);
  return signDocument(tx, subject, { ...options, signer });
}
