import type { IResolvers, MercuriusContext, MercuriusLoaders } from 'mercurius';
import type { Queryable } from '../../db/database.ts';
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
  findByIds,
  listByParents,
  listTransactions,
  type CreatedAtOrder,
  type ResourceName,
  type Row,
} from '../reads.ts';
import { scalars } from './scalars.ts';

/** What every resolver gets besides Mercurius' own context. */
export interface TransactionsContext {
  db: Queryable;
  caller: Caller;
  links: FileLinks;
  /** `https://host:port` as the client addressed us, for absolute links. */
  baseUrl: string;
}

declare module 'mercurius' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Mercurius' way to type the context.
  interface MercuriusContext extends TransactionsContext {}
}

type Context = MercuriusContext;
type Query = { obj: Row; params: { orderBy?: CreatedAtOrder } };
type Loader = (queries: Query[], context: Context) => Promise<unknown[]>;

const MAX_PAGE = 100;

function ordered(rows: Row[], orderBy: CreatedAtOrder | undefined): Row[] {
  return orderBy === 'CREATED_AT_DESC' ? rows.toReversed() : rows;
}

function unique(values: unknown[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string'))];
}

/** Loads a list field for every parent of one query level in one SQL statement. */
function children(resource: ResourceName, parentColumn: string): Loader {
  return async (queries, { db, caller }) => {
    const groups = await listByParents(db, resource, parentColumn, {
      parentIds: unique(queries.map((query) => query.obj.id)),
      organizationId: caller.organizationId,
    });
    return queries.map((query) => ordered(groups.get(query.obj.id) ?? [], query.params.orderBy));
  };
}

/** Like {@link children}, for a field that holds at most one child. */
function child(resource: ResourceName, parentColumn: string): Loader {
  const load = children(resource, parentColumn);
  return async (queries, context) => (await load(queries, context)).map((rows) => (rows as Row[])[0] ?? null);
}

/** Loads the row a foreign key of the parent points to, for every parent of one query level at once. */
function parent(resource: ResourceName, foreignKey: string): Loader {
  return async (queries, { db, caller }) => {
    const found = await findByIds(db, resource, {
      ids: unique(queries.map((query) => query.obj[foreignKey])),
      organizationId: caller.organizationId,
    });
    return queries.map((query) => found.get(query.obj[foreignKey] as string) ?? null);
  };
}

export const loaders: MercuriusLoaders = {
  Organization: {
    templates: children('template', 'organization_id'),
    entities: children('entity', 'organization_id'),
  },
  Transaction: {
    template: parent('template', 'templateId'),
    organization: parent('organization', 'organizationId'),
    senderEntity: parent('entity', 'senderEntityId'),
    transactionRecipients: children('recipient', 'transaction_id'),
    transactionProcesses: children('process', 'transaction_id'),
    transactionProcessRevisions: children('revision', 'transaction_id'),
    transactionItems: children('item', 'transaction_id'),
    transactionFiles: children('transactionFile', 'transaction_id'),
    transactionSignatureContainers: children('signatureContainer', 'transaction_id'),
    transactionSignatureFiles: children('signatureFile', 'transaction_id'),
    events: children('event', 'transaction_id'),
  },
  TransactionRecipient: {
    entity: parent('entity', 'entityId'),
  },
  TransactionProcess: {
    transactionProcessRevisions: children('revision', 'transaction_process_id'),
    transactionSignatureContainers: children('signatureContainer', 'transaction_process_id'),
  },
  TransactionProcessRevision: {
    transactionItems: children('item', 'transaction_process_revision_id'),
  },
  TransactionFile: {
    file: parent('file', 'fileId'),
    transactionRecipient: parent('recipient', 'transactionRecipientId'),
  },
  TransactionSignatureContainer: {
    transactionSignatures: children('signature', 'transaction_signature_container_id'),
    transactionSignatureFile: child('signatureFile', 'transaction_signature_container_id'),
  },
  TransactionSignature: {
    transactionRecipient: parent('recipient', 'transactionRecipientId'),
  },
  TransactionSignatureFile: {
    file: parent('file', 'fileId'),
    transactionSignatureContainer: parent('signatureContainer', 'transactionSignatureContainerId'),
  },
};

function byId(resource: ResourceName) {
  return (_: unknown, { id }: { id: string }, { db, caller }: Context) =>
    findById(db, resource, { id, organizationId: caller.organizationId }).then((row) => row ?? null);
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

export const resolvers: IResolvers = {
  ...scalars,
  Query: {
    viewer: async (_: unknown, __: unknown, { db, caller }: Context) => {
      const organization = await findById(db, 'organization', {
        id: caller.organizationId,
        organizationId: caller.organizationId,
      });
      if (!organization) throw new Error(`the organization of API key ${caller.apiKeyId} is gone`);
      return organization;
    },
    entity: byId('entity'),
    organization: byId('organization'),
    template: byId('template'),
    transaction: byId('transaction'),
    transactionItem: byId('item'),
    transactionFile: byId('transactionFile'),
    transactionSignatureFile: byId('signatureFile'),
    transactionRecipient: byId('recipient'),
    file: async (_: unknown, { id }: { id: string }, { db, caller }: Context) => {
      const file = await findById(db, 'file', { id, organizationId: caller.organizationId });
      if (!file) throw new AppError('NOT_FOUND', `no file with id ${id}`);
      return file;
    },
  },
  Mutation: {
    genTransactionFileLink: async (
      _: unknown,
      { input }: { input: { transactionFileId: string; expiresInSeconds?: number | null } },
      context: Context,
    ) => {
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
        (await findById(context.db, 'transactionFile', scope)) ??
        (await findById(context.db, 'signatureFile', scope));
      const file = holder
        ? await findById(context.db, 'file', {
            id: holder.fileId as string,
            organizationId: scope.organizationId,
          })
        : undefined;
      if (!file) {
        throw new AppError('NOT_FOUND', `no transaction file with id ${input.transactionFileId}`, {
          field: 'transactionFileId',
        });
      }
      return { ...signedUrl(context, file.id, seconds), file };
    },
  },
  Organization: {
    transactions: async (
      organization: Row,
      args: { first: number; after?: string | null; orderBy: CreatedAtOrder },
      { db }: Context,
    ) => {
      if (!Number.isInteger(args.first) || args.first < 1 || args.first > MAX_PAGE) {
        throw new AppError('BAD_USER_INPUT', `first must be between 1 and ${MAX_PAGE}`, { field: 'first' });
      }
      const page = await listTransactions(db, {
        organizationId: organization.id,
        first: args.first,
        after: args.after == null ? undefined : decodeCursor(args.after),
        orderBy: args.orderBy,
      });
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
  TransactionConnection: {
    totalCount: (connection: { organizationId: string }, _: unknown, { db }: Context) =>
      countTransactions(db, connection.organizationId),
  },
  File: {
    signedUrl: (file: Row, _: unknown, context: Context) =>
      signedUrl(context, file.id, DEFAULT_LINK_SECONDS).url,
  },
};
