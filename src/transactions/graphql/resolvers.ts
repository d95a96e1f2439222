import type { GraphQLResolveInfo } from 'graphql';
import type { IResolvers, MercuriusContext } from 'mercurius';
import type { Database, Queryable, Transaction } from '../../db/database.ts';
import type { FileStore } from '../../files/local-file-store.ts';
import { AppError } from '../../errors.ts';
import {
  DEFAULT_LINK_SECONDS,
  MAX_LINK_SECONDS,
  MIN_LINK_SECONDS,
  type FileLinks,
} from '../../files/file-links.ts';
import type { Caller } from '../authenticate.ts';
import {
  countTransactions,
  findById,
  listTransactions,
  relatedKey,
  RELATIONS,
  type CreatedAtOrder,
  type ResourceName,
  type Row,
  type Tree,
} from '../reads.ts';
import { idempotent } from '../idempotency.ts';
import {
  createTransaction,
  lockOwnTransaction,
  resetTransmitToken,
  triggerTransactionEvent,
  type Actor,
  type CreateTransactionInput,
  type LockedTransaction,
} from '../lifecycle.ts';
import { recipientOf, signDocument, type SignatureContext, type Signer } from '../recipient-actions.ts';
import type { TemplateDefinition } from '../template-schema.ts';
import { allowedEvents } from '../workflow.ts';
import type { LookupAll } from '../../webhooks/address-safety.ts';
import {
  createEndpoint,
  deleteEndpoint,
  eventTypeOf,
  resendDeliveries,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
} from '../../webhooks/endpoints.ts';
import { scalars } from './scalars.ts';
import { selectionTree, subfieldNodes } from './selection.ts';

/** What every resolver gets besides Mercurius' own context. */
export interface TransactionsContext {
  db: Database;
  caller: Caller;
  links: FileLinks;
  /** `https://host:port` as the client addressed us, for absolute links. */
  baseUrl: string;
  /** The request's `Idempotency-Key` header, for mutations. */
  idempotencyKey: string | undefined;
  /** Where signed documents are stored. */
  files: FileStore;
  /** Recorded with a signature made through the API. */
  signatureContext: SignatureContext;
  /** Whether webhook URLs may be plain http or private addresses (development and tests). */
  webhooksAllowInsecure: boolean;
  /** How webhook URL host names resolve (tests); node:dns when undefined. */
  webhookLookup: LookupAll | undefined;
}

declare module 'mercurius' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Mercurius' way to type the context.
  interface MercuriusContext extends TransactionsContext {}
}

type Context = MercuriusContext;

const MAX_PAGE = 100;

function ordered(rows: Row[], orderBy: CreatedAtOrder | undefined): Row[] {
  return orderBy === 'CREATED_AT_DESC' ? rows.toReversed() : rows;
}

/**
 * Resolvers for every relation field: they read what the root field loaded with its row in one statement
 * (see `selectionTree` and `findById`), so a query costs one SQL statement per root field, whatever its depth.
 */
type RelationResolver = (parent: Row, args: { orderBy?: CreatedAtOrder }) => unknown;

function relationResolvers(): Record<string, Record<string, RelationResolver>> {
  const resolvers: Record<string, Record<string, RelationResolver>> = {};
  for (const [type, relations] of Object.entries(RELATIONS)) {
    const fields: Record<string, RelationResolver> = {};
    for (const [field, relation] of Object.entries(relations)) {
      const key = relatedKey(field);
      fields[field] = (parent, args) => {
        const value = parent[key];
        // Every row handed to GraphQL comes from a read given the query's selection tree.
        if (value === undefined) throw new Error(`${type}.${field} was not read with its ${type}`);
        return relation.kind === 'many' ? ordered(value as Row[], args.orderBy) : value;
      };
    }
    resolvers[type] = fields;
  }
  return resolvers;
}

/** A root field that reads one record of the caller's organization with the relations the query selects. */
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
 * A mutation: its input, run in one database transaction through `idempotent`, so that every mutation honours
 * the Idempotency-Key header the same way.
 */
function mutation<Input>(
  operation: string,
  work: (tx: Transaction, input: Input, context: Context) => Promise<unknown>,
) {
  return (_: unknown, { input }: { input: Input }, context: Context) =>
    idempotent(
      context.db,
      { organizationId: context.caller.organizationId, key: context.idempotencyKey, operation, input },
      (tx) => work(tx, input, context),
    );
}

function actorOf(caller: Caller): Actor {
  return { type: 'api_key', id: caller.apiKeyId };
}

function byId(resource: ResourceName) {
  return async (_: unknown, { id }: { id: string }, { db, caller }: Context, info: GraphQLResolveInfo) =>
    (await findById(db, resource, { id, organizationId: caller.organizationId }, treeOf(resource, info))) ??
    null;
}

function treeOf(resource: ResourceName, info: GraphQLResolveInfo): Tree {
  return selectionTree(resource, info.fieldNodes, info.fragments);
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
    throw new AppError('BAD_USER_INPUT', 'after: not a cursor this API returned (use pageInfo.endCursor)');
  }
  return id;
}

function signedUrl(context: Context, fileId: string, seconds: number): { url: string; expiresAt: Date } {
  const expiresAt = new Date(Date.now() + seconds * 1000);
  return { url: context.baseUrl + context.links.pathFor(fileId, expiresAt), expiresAt };
}

const relations = relationResolvers();

async function endpointOfPayload(
  payload: { webhookEndpointId: string },
  _: unknown,
  { db, caller }: Context,
  info: GraphQLResolveInfo,
): Promise<Row> {
  const endpoint = await findById(
    db,
    'WebhookEndpoint',
    { id: payload.webhookEndpointId, organizationId: caller.organizationId },
    treeOf('WebhookEndpoint', info),
  );
  if (!endpoint) throw new AppError('NOT_FOUND', `No webhook endpoint ${payload.webhookEndpointId}.`);
  return endpoint;
}

export const resolvers: IResolvers = {
  ...scalars,
  ...relations,
  Query: {
    viewer: async (_: unknown, __: unknown, { db, caller }: Context, info: GraphQLResolveInfo) => {
      const organization = await findById(
        db,
        'Organization',
        { id: caller.organizationId, organizationId: caller.organizationId },
        treeOf('Organization', info),
      );
      if (!organization) throw new Error(`the organization of API key ${caller.apiKeyId} is gone`);
      return organization;
    },
    entity: byId('Entity'),
    organization: byId('Organization'),
    template: byId('Template'),
    transaction: byId('Transaction'),
    transactionItem: byId('TransactionItem'),
    transactionFile: byId('TransactionFile'),
    transactionSignatureFile: byId('TransactionSignatureFile'),
    transactionRecipient: byId('TransactionRecipient'),
    webhookEndpoint: byId('WebhookEndpoint'),
    webhookDelivery: byId('WebhookDelivery'),
    file: async (_: unknown, { id }: { id: string }, { db, caller }: Context) => {
      const file = await findById(db, 'File', { id, organizationId: caller.organizationId });
      if (!file) throw new AppError('NOT_FOUND', `no file with id ${id}`);
      return file;
    },
  },
  Mutation: {
    createWebhookEndpoint: mutation<{ url: string; description?: string | null; eventTypes: string[] }>(
      'createWebhookEndpoint',
      async (tx, input, { caller, webhooksAllowInsecure, webhookLookup }) => {
        const { endpoint, secret } = await createEndpoint(tx, {
          lookup: webhookLookup,
          organizationId: caller.organizationId,
          url: input.url,
          description: input.description ?? undefined,
          eventTypes: input.eventTypes.map(eventTypeOf),
          allowInsecure: webhooksAllowInsecure,
        });
        return { webhookEndpointId: endpoint.id, secret };
      },
    ),
    updateWebhookEndpoint: mutation<{
      id: string;
      url?: string | null;
      description?: string | null;
      eventTypes?: string[] | null;
    }>('updateWebhookEndpoint', async (tx, input, { caller, webhooksAllowInsecure, webhookLookup }) => {
      const endpoint = await updateEndpoint(tx, {
        lookup: webhookLookup,
        organizationId: caller.organizationId,
        endpointId: input.id,
        url: input.url ?? undefined,
        description: input.description,
        eventTypes: input.eventTypes?.map(eventTypeOf),
        allowInsecure: webhooksAllowInsecure,
      });
      return { webhookEndpointId: endpoint.id };
    }),
    disableWebhookEndpoint: mutation<{ id: string }>(
      'disableWebhookEndpoint',
      async (tx, input, { caller }) => {
        const endpoint = await setEndpointEnabled(tx, {
          organizationId: caller.organizationId,
          endpointId: input.id,
          enabled: false,
          reason: 'disabled through the API',
        });
        return { webhookEndpointId: endpoint.id };
      },
    ),
    enableWebhookEndpoint: mutation<{ id: string }>(
      'enableWebhookEndpoint',
      async (tx, input, { caller }) => {
        const endpoint = await setEndpointEnabled(tx, {
          organizationId: caller.organizationId,
          endpointId: input.id,
          enabled: true,
        });
        return { webhookEndpointId: endpoint.id };
      },
    ),
    deleteWebhookEndpoint: mutation<{ id: string }>(
      'deleteWebhookEndpoint',
      async (tx, input, { caller }) => {
        await deleteEndpoint(tx, { organizationId: caller.organizationId, endpointId: input.id });
        return { deletedWebhookEndpointId: input.id };
      },
    ),
    rotateWebhookEndpointSecret: mutation<{ id: string }>(
      'rotateWebhookEndpointSecret',
      async (tx, input, { caller }) => {
        const { endpoint, secret } = await rotateEndpointSecret(tx, {
          organizationId: caller.organizationId,
          endpointId: input.id,
        });
        return { webhookEndpointId: endpoint.id, secret };
      },
    ),
    resendWebhookDelivery: mutation<{ id: string }>(
      'resendWebhookDelivery',
      async (tx, input, { caller }) => ({
        count: await resendDeliveries(tx, { organizationId: caller.organizationId, deliveryId: input.id }),
      }),
    ),
    resendFailedWebhookDeliveries: mutation<{ endpointId: string; since: Date }>(
      'resendFailedWebhookDeliveries',
      async (tx, input, { caller }) => ({
        count: await resendDeliveries(tx, {
          organizationId: caller.organizationId,
          endpointId: input.endpointId,
          since: input.since,
        }),
      }),
    ),
    createTransaction: mutation<CreateTransactionInput>('createTransaction', (tx, input, { caller }) =>
      createTransaction(tx, { organizationId: caller.organizationId, actor: actorOf(caller), input }),
    ),
    triggerTransactionEvent: mutation<{ transactionId: string; eventKey: string }>(
      'triggerTransactionEvent',
      (tx, input, { caller }) =>
        triggerTransactionEvent(tx, { organizationId: caller.organizationId, actor: actorOf(caller), input }),
    ),
    resetTransmitToken: mutation<{ transactionId: string }>('resetTransmitToken', (tx, input, { caller }) =>
      resetTransmitToken(tx, { organizationId: caller.organizationId, transactionId: input.transactionId }),
    ),
    signTransactionDocument: mutation<{
      transactionId: string;
      documentKey: string;
      signedName: string;
      consent: boolean;
    }>('signTransactionDocument', async (tx, input, { caller, files, signatureContext }) => {
      const subject = await lockOwnTransaction(tx, {
        id: input.transactionId,
        organizationId: caller.organizationId,
      });
      const signer = await senderSigner(tx, subject, input.documentKey);
      return signDocument(tx, subject, { ...input, signer, context: signatureContext, files });
    }),
    genTransactionFileLink: mutation<{ transactionFileId: string; expiresInSeconds?: number | null }>(
      'genTransactionFileLink',
      async (tx, input, context) => {
        const seconds = input.expiresInSeconds ?? DEFAULT_LINK_SECONDS;
        if (!Number.isInteger(seconds) || seconds < MIN_LINK_SECONDS || seconds > MAX_LINK_SECONDS) {
          throw new AppError(
            'BAD_USER_INPUT',
            `expiresInSeconds must be between ${MIN_LINK_SECONDS} and ${MAX_LINK_SECONDS}`,
            { field: 'expiresInSeconds' },
          );
        }
        const scope = { id: input.transactionFileId, organizationId: context.caller.organizationId };
        const holder =
          (await findById(tx, 'TransactionFile', scope)) ??
          (await findById(tx, 'TransactionSignatureFile', scope));
        const file = holder
          ? await findById(tx, 'File', { id: holder.fileId as string, organizationId: scope.organizationId })
          : undefined;
        if (!file) {
          throw new AppError('NOT_FOUND', `no transaction file with id ${input.transactionFileId}`, {
            field: 'transactionFileId',
          });
        }
        return { ...signedUrl(context, file.id, seconds), file };
      },
    ),
  },
  // Payloads carry the endpoint's id; the endpoint is read after the change, with what the query selects.
  WebhookEndpointPayload: { webhookEndpoint: endpointOfPayload },
  WebhookEndpointSecretPayload: { webhookEndpoint: endpointOfPayload },
  Organization: {
    ...relations.Organization,
    transactions: async (
      organization: Row,
      args: { first: number; after?: string | null; orderBy: CreatedAtOrder },
      { db }: Context,
      info: GraphQLResolveInfo,
    ) => {
      if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE) {
        throw new AppError('BAD_USER_INPUT', `first must be between 1 and ${MAX_PAGE}`, { field: 'first' });
      }
      const page = await listTransactions(
        db,
        {
          organizationId: organization.id,
          first: args.first,
          after: args.after == null ? undefined : decodeCursor(args.after),
          orderBy: args.orderBy,
        },
        selectionTree('Transaction', subfieldNodes(info.fieldNodes, 'nodes', info.fragments), info.fragments),
      );
      const last = page.rows.at(-1);
      return {
        nodes: page.rows,
        pageInfo: {
          hasNextPage: page.hasNextPage,
          endCursor: last ? Buffer.from(last.id).toString('base64url') : null,
        },
        organizationId: organization.id,
      };
    },
  },
  Template: {
    workflow: (template: Row) => {
      const { workflow } = template.definition as TemplateDefinition;
      return {
        initialState: workflow.initialState,
        states: workflow.states.map((state) => ({
          ...state,
          final: state.final === true,
          onEnter: state.onEnter ?? [],
        })),
        events: workflow.events,
      };
    },
  },
  Transaction: {
    ...relations.Transaction,
    availableEvents: (transaction: Row) => {
      const template = transaction[relatedKey('template')] as Row;
      const processes = transaction[relatedKey('transactionProcesses')] as Row[];
      const { workflow } = template.definition as TemplateDefinition;
      return allowedEvents(workflow, transaction.state as string, {
        allProcessesComplete: processes.every((process) => process.isComplete === true),
      });
    },
  },
  TransactionConnection: {
    totalCount: (connection: { organizationId: string }, _: unknown, { db }: Context) =>
      countTransactions(db, connection.organizationId),
  },
  File: {
    signedUrl: (file: Row, _: unknown, context: Context) =>
      signedUrl(context, file.id, DEFAULT_LINK_SECONDS).url,
  },
};
