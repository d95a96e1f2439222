import { notFound } from '../../../errors.ts';
import { linkExpiry, signedLink } from '../../../files/file-links.ts';
import type { Actor } from '../../actor.ts';
import type { Caller } from '../../authenticate.ts';
import { createTransaction, type CreateTransactionInput } from '../../create-transaction.ts';
import { signAsSender } from '../../documents/countersign.ts';
import { triggerTransactionEvent, type TriggeredEvent } from '../../transitions.ts';
import { resetTransmitToken } from '../../recipients/transmit-tokens.ts';
import { mutation, type Context } from '../context.ts';
import { findFileOfTransactionFile } from '../read-model.ts';

/** The API key that calls, as the actor of what it changes, with the request that changes it. */
function actorOf({ caller, requestId }: { caller: Caller; requestId: string }): Actor {
  return { type: 'api_key', id: caller.apiKeyId, requestId };
}

/**
 * After a mutation that may have queued recipient mail (an invitation, a request for changes, the signed copy
 * on completion): it goes out now rather than within the minute.
 */
const sendRecipientMail = { afterCommit: (context: Context) => context.recipientNotices?.kick() };

interface TriggerInput {
  transactionId: string;
  eventKey: string;
  message?: string | null;
  dryRun?: boolean | null;
}

/** `triggerTransactionEvent`'s payload: the transition, and a dry run's preview in the API's shape. */
function triggerPayload(triggered: TriggeredEvent) {
  const { preview } = triggered;
  const decision = preview?.decision;
  return {
    sourceStateKey: triggered.sourceStateKey,
    targetStateKey: triggered.targetStateKey,
    dryRun: triggered.dryRun,
    preview:
      preview && decision?.ok === true
        ? {
            eventKey: decision.eventKey,
            sourceStateKey: decision.source,
            targetStateKey: decision.target,
            actions: decision.actions,
            messageRequired: preview.messageRequired,
            mails: preview.mails,
            webhooks: preview.webhooks,
            completes: preview.completes,
          }
        : null,
  };
}

const runEvent = mutation<TriggerInput>(
  'triggerTransactionEvent',
  async (tx, input, context) =>
    triggerPayload(
      await triggerTransactionEvent(tx, {
        organizationId: context.caller.organizationId,
        actor: actorOf(context),
        input,
      }),
    ),
  { ...sendRecipientMail, changes: (input) => input.transactionId },
);

/** The mutations on transactions: each parses its input and calls one domain function. */
export const transactionMutations = {
  createTransaction: mutation<CreateTransactionInput, { transactionId: string; transmitToken: string }>(
    'createTransaction',
    (tx, input, context) =>
      createTransaction(tx, {
        organizationId: context.caller.organizationId,
        actor: actorOf(context),
        input,
      }),
    { ...sendRecipientMail, changes: (_input, created) => created.transactionId },
  ),
  /**
   * A dry run changes nothing, so it goes around the Idempotency-Key (nothing to replay, nothing stored) and
   * queues no mail; its database transaction only locks and reads.
   */
  triggerTransactionEvent: async (parent: unknown, args: { input: TriggerInput }, context: Context) =>
    args.input.dryRun === true
      ? triggerPayload(
          await context.db.transaction((tx) =>
            triggerTransactionEvent(tx, {
              organizationId: context.caller.organizationId,
              actor: actorOf(context),
              input: args.input,
            }),
          ),
        )
      : runEvent(parent, args, context),
  resetTransmitToken: mutation<{ transactionId: string }>(
    'resetTransmitToken',
    (tx, input, context) =>
      resetTransmitToken(tx, {
        organizationId: context.caller.organizationId,
        transactionId: input.transactionId,
        requestId: context.requestId,
      }),
    { ...sendRecipientMail, changes: (input) => input.transactionId },
  ),
  signTransactionDocument: mutation<{
    transactionId: string;
    documentKey: string;
    signedName: string;
    consent: boolean;
  }>(
    'signTransactionDocument',
    (tx, input, { caller, files, signatureContext, documentWorkers }) =>
      signAsSender(tx, {
        ...input,
        organizationId: caller.organizationId,
        context: signatureContext,
        files,
        workers: documentWorkers,
      }),
    { ...sendRecipientMail, changes: (input) => input.transactionId },
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
  genEvidenceBundleLink: mutation<{ transactionId: string; expiresInSeconds?: number | null }>(
    'genEvidenceBundleLink',
    async (tx, input, { caller, links, baseUrl }) => {
      const expiresAt = linkExpiry(input.expiresInSeconds);
      const [transaction] = await tx.query<{ certificateMade: boolean }>(
        `select exists (select 1 from transaction_certificates c
                        where c.transaction_id = t.id and c.file_id is not null) as "certificateMade"
         from transactions t where t.id = $1 and t.organization_id = $2`,
        [input.transactionId, caller.organizationId],
      );
      if (!transaction) throw notFound('transaction', input.transactionId, { field: 'transactionId' });
      return {
        url: baseUrl + links.bundlePathFor(input.transactionId, expiresAt),
        expiresAt,
        transactionId: input.transactionId,
        certificateMade: transaction.certificateMade,
      };
    },
  ),
};
