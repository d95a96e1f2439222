import type { FastifyRequest } from 'fastify';
import type { MercuriusContext } from 'mercurius';
import type { Database, Transaction } from '../../db/database.ts';
import type { FileLinks } from '../../files/file-links.ts';
import type { FileStore } from '../../files/file-store.ts';
import type { LookupAll } from '../../webhooks/address-safety.ts';
import type { Caller } from '../authenticate.ts';
import { recordActivity } from '../history/activity.ts';
import { idempotencyKeyFingerprint, idempotent } from '../idempotency.ts';
import type { SignatureContext } from '../recipients/actions.ts';
import type { RecipientNotices } from '../recipients/notice-sender.ts';
import type { DocumentWorkers } from '../documents/document-workers.ts';
import type {} from './hooks.ts';

/** What every resolver gets besides Mercurius' own context. */
export interface TransactionsContext {
  db: Database;
  caller: Caller;
  links: FileLinks;
  /** `https://host:port` as the client addressed us, for absolute links. */
  baseUrl: string;
  /** The request's `Idempotency-Key` header, for mutations. */
  idempotencyKey: string | undefined;
  /** The request's id (`x-request-id`): logged with what a mutation changes. */
  requestId: string;
  /** Where signed documents are stored. */
  files: FileStore;
  /** Recorded with a signature made through the API. */
  signatureContext: SignatureContext;
  /** Whether webhook URLs may be plain http or private addresses (development and tests). */
  webhooksAllowInsecure: boolean;
  /** How webhook URL host names resolve (tests); node:dns when undefined. */
  webhookLookup: LookupAll | undefined;
  /** Told when a mutation queued recipient mail, so that it goes out at once; none when undefined. */
  recipientNotices: Pick<RecipientNotices, 'kick'> | undefined;
  /** The threads signed copies are made in; the process's when undefined. */
  documentWorkers: DocumentWorkers | undefined;
}

declare module 'mercurius' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Mercurius' way to type the context.
  interface MercuriusContext extends TransactionsContext {}
}

/** The context a resolver receives: Mercurius' own with {@link TransactionsContext}. */
export type Context = MercuriusContext;

/**
 * A mutation: its input, run in one database transaction through `idempotent`, so that every mutation honours
 * the Idempotency-Key header the same way. `afterCommit` runs once that transaction committed (also for a
 * replayed result, which changed nothing), e.g. to send the mail it queued. A mutation that changes a
 * transaction names it (`changes`): the call then joins the transaction's timeline, with the key, the request
 * and its Idempotency-Key's fingerprint.
 */
export function mutation<Input, Result = unknown>(
  operation: string,
  work: (tx: Transaction, input: Input, context: Context) => Promise<Result>,
  options: {
    afterCommit?: (context: Context) => void;
    changes?: (input: Input, result: Result) => string;
  } = {},
) {
  return async (_: unknown, { input }: { input: Input }, context: Context) => {
    const result = await idempotent(
      context.db,
      { organizationId: context.caller.organizationId, key: context.idempotencyKey, operation, input },
      async (tx) => {
        const done = await work(tx, input, context);
        if (options.changes) {
          await recordActivity(tx, {
            organizationId: context.caller.organizationId,
            transactionId: options.changes(input, done),
            kind: 'api',
            action: operation,
            actor: { type: 'api_key', id: context.caller.apiKeyId, requestId: context.requestId },
            // A fingerprint, never the key: the key seals the stored result, and every console role reads this.
            details:
              context.idempotencyKey === undefined
                ? {}
                : { idempotencyKeySha256: idempotencyKeyFingerprint(context.idempotencyKey) },
          });
        }
        return done;
      },
    );
    options.afterCommit?.(context);
    return result;
  };
}

/**
 * Mercurius' `context` option: the resolvers' context for an authenticated request. Mercurius also builds a
 * context to report a request refused before execution (e.g. 401); no resolver runs with it, so it is empty.
 */
export function contextBuilder(deps: {
  db: Database;
  links: FileLinks;
  files: FileStore;
  baseUrl: () => string;
  webhooksAllowInsecure: boolean;
  webhookLookup: LookupAll | undefined;
  recipientNotices?: Pick<RecipientNotices, 'kick'> | undefined;
  documentWorkers?: DocumentWorkers | undefined;
}): (request: FastifyRequest) => TransactionsContext {
  return (request) =>
    request.caller
      ? {
          db: deps.db,
          caller: request.caller,
          links: deps.links,
          baseUrl: deps.baseUrl(),
          idempotencyKey: headerValue(request.headers['idempotency-key']),
          requestId: request.id,
          files: deps.files,
          signatureContext: {
            ipAddress: request.ip,
            userAgent: request.headers['user-agent'],
            requestId: request.id,
          },
          webhooksAllowInsecure: deps.webhooksAllowInsecure,
          webhookLookup: deps.webhookLookup,
          recipientNotices: deps.recipientNotices,
          documentWorkers: deps.documentWorkers,
        }
      : ({} as TransactionsContext);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
