import type { GraphQLResolveInfo } from 'graphql';
import { notFound } from '../../../errors.ts';
import type { Context } from '../context.ts';
import { findById, type ResourceName, type Row } from '../read-model.ts';
import { treeOf } from '../selection.ts';

/**
 * The resolver of a mutation payload's record: the payload carries the id (under `idKey`), and the record is read
 * after the change, of the caller's organization, with what the query selects. `what` names it in NOT_FOUND.
 *
 * @example
 * const resolvers = { EntityPayload: { entity: recordOfPayload('Entity', 'entityId', 'entity') } };
 */
export function recordOfPayload<IdKey extends string>(resource: ResourceName, idKey: IdKey, what: string) {
  return async (
    payload: Record<IdKey, string>,
    _: unknown,
    { db, caller }: Context,
    info: GraphQLResolveInfo,
  ): Promise<Row> => {
    const id = payload[idKey];
    const record = await findById(
      db,
      resource,
      { id, organizationId: caller.organizationId },
      treeOf(resource, info),
    );
    if (!record) throw notFound(what, id);
    return record;
  };
}
