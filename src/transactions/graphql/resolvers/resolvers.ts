import type { IResolvers } from 'mercurius';
import { computedFields } from './computed-fields.ts';
import { connectionResolvers } from './connections.ts';
import { queryResolvers } from './queries.ts';
import { relationResolvers } from './relations.ts';
import { scalars } from '../scalars.ts';
import { transactionMutations } from './transaction-mutations.ts';
import { webhookMutations, webhookPayloadResolvers } from './webhook-mutations.ts';
import { entityMutations, entityPayloadResolvers } from './entity-mutations.ts';

export type { TransactionsContext } from '../context.ts';

/**
 * Every resolver of schema.graphql, assembled by type from the files that hold each area: root queries,
 * relation fields, computed fields, connections, and the transaction and webhook mutations.
 */
export const resolvers: IResolvers = {
  ...scalars,
  ...relationResolvers,
  ...webhookPayloadResolvers,
  ...entityPayloadResolvers,
  Query: queryResolvers,
  Mutation: { ...transactionMutations, ...webhookMutations, ...entityMutations },
  Organization: { ...relationResolvers.Organization, ...connectionResolvers.Organization },
  TransactionConnection: connectionResolvers.TransactionConnection,
  Template: computedFields.Template,
  Transaction: { ...relationResolvers.Transaction, ...computedFields.Transaction },
  File: computedFields.File,
  // A result stored for an Idempotency-Key before dry runs existed has no `dryRun`: it was a real run.
  TriggerTransactionEventPayload: {
    dryRun: (payload: { dryRun?: boolean }) => payload.dryRun === true,
  },
};
