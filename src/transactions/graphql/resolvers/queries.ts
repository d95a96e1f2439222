import type { GraphQLResolveInfo } from 'graphql';
import { notFound } from '../../../errors.ts';
import type { Context } from '../context.ts';
import { findById, type ResourceName, type Row } from '../read-model.ts';
import { treeOf } from '../selection.ts';

/** A root field that reads one record of the caller's organization with the relations the query selects. */
function byId(resource: ResourceName) {
  return async (_: unknown, { id }: { id: string }, { db, caller }: Context, info: GraphQLResolveInfo) =>
    (await findById(db, resource, { id, organizationId: caller.organizationId }, treeOf(resource, info))) ??
    null;
}

/** The root fields of `Query`: each reads in one statement, and only the caller's organization. */
export const queryResolvers = {
  viewer: async (
    _: unknown,
    __: unknown,
    { db, caller }: Context,
    info: GraphQLResolveInfo,
  ): Promise<Row> => {
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
  file: async (_: unknown, { id }: { id: string }, { db, caller }: Context): Promise<Row> => {
    const file = await findById(db, 'File', { id, organizationId: caller.organizationId });
    if (!file) throw notFound('file', id);
    return file;
  },
};
