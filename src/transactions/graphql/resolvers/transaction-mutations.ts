import { notFound } from '../../../errors.ts';
import { linkExpiry, signedLink } from '../../../files/file-links.ts';
import type { Actor } from '../../actor.ts';
import type { Caller } from '../../authenticate.ts';
import { createTransaction, type CreateTransactionInput } from '../../create-transaction.ts';
import { signAsSender } from '../../recipients/actions.ts';
import { triggerTransactionEvent } from '../../transitions.ts';
import { resetTransmitToken } from '../../recipients/transmit-tokens.ts';
import { mutation, type Context } from '../context.ts';
import { findFileOfTransactionFile } from '../read-model.ts';

function actorOf(caller: Caller): Actor {
  return { type: 'api_key', id: caller.apiKeyId };
}

/**
 * After a mutation that may have queued recipient mail (an invitation, a request for changes, the signed copy
 * on completion): it goes out now rather than within the minute.
 */
const sendRecipientMail = { afterCommit: (context: Context) => context.recipientNotices?.kick() };

/** The mutations on transactions: each parses its input and calls one domain function. */
export const transactionMutations = {
  createTransaction: mutation<CreateTransactionInput>(
    'createTransaction',
    (tx, input, { caller }) =>
      createTransaction(tx, { organizationId: caller.organizationId, actor: actorOf(caller), input }),
    sendRecipientMail,
  ),
  triggerTransactionEvent: mutation<{ transactionId: string; eventKey: string; message?: string | null }>(
    'triggerTransactionEvent',
    (tx, input, { caller }) =>
      triggerTransactionEvent(tx, { organizationId: caller.organizationId, actor: actorOf(caller), input }),
    sendRecipientMail,
  ),
  resetTransmitToken: mutation<{ transactionId: string }>(
    'resetTransmitToken',
    (tx, input, { caller }) =>
      resetTransmitToken(tx, { organizationId: caller.organizationId, transactionId: input.transactionId }),
    sendRecipientMail,
  ),
  signTransactionDocument: mutation<{
    transactionId: string;
    documentKey: string;
    signedName: string;
    consent: boolean;
  }>(
    'signTransactionDocument',
    (tx, input, { caller, files, signatureContext }) =>
      signAsSender(tx, { ...input, organizationId: caller.organizationId, context: signatureContext, files }),
    sendRecipientMail,
  ),
  genTransactionFileLink: mutation<{ transactionFileId: string; expiresInSeconds?: number | null }>(
    'genTransactionFileLink',
    async (tx, input, { caller, links, baseUrl }) => {
      // The lifetime is checked before anything is read: a bad one is wrong whatever the id.
      const expiresAt = linkExpiry(input.expiresInSeconds);
      const file = await findFileOfTransactionFile(tx, {
        id: input.transactionFileId,
        organizationId: caller.organizationId,
      });
      if (!file) {
        throw notFound('transaction file', input.transactionFileId, { field: 'transactionFileId' });
      }
      return { ...signedLink(links, { baseUrl, fileId: file.id, expiresAt }), file };
    },
  ),
};
