import { AppError } from '../../../errors.ts';
import { createEntity, updateEntity } from '../../entities.ts';
import { mutation } from '../context.ts';
import { recordOfPayload } from './payload-records.ts';

/** The GraphQL enum value of an entity type (`RETIREMENT_ACCOUNT`) as stored (`retirement_account`). */
const storedType = (type: string | null | undefined) => (type ? type.toLowerCase() : undefined);

interface EntityInput {
  name?: string | null;
  email?: string | null;
  type?: string | null;
  settings?: unknown;
}

/** The mutations on an organization's entities: each parses its input and calls one domain function. */
export const entityMutations = {
  createEntity: mutation<EntityInput & { name: string }>('createEntity', async (tx, input, { caller }) => {
    const entity = await createEntity(tx, {
      organizationId: caller.organizationId,
      name: input.name,
      email: input.email,
      type: storedType(input.type),
      settings: input.settings ?? undefined,
    });
    return { entityId: entity.id };
  }),
  updateEntity: mutation<EntityInput & { id: string }>('updateEntity', async (tx, input, { caller }) => {
    if (input.name === null)
      throw new AppError('BAD_USER_INPUT', 'An entity keeps its name: leave name out.', { field: 'name' });
    const entity = await updateEntity(tx, {
      organizationId: caller.organizationId,
      id: input.id,
      name: input.name,
      email: input.email,
      type: storedType(input.type),
      settings: input.settings === null ? {} : input.settings,
    });
    return { entityId: entity.id };
  }),
};

export const entityPayloadResolvers = {
  EntityPayload: { entity: recordOfPayload('Entity', 'entityId', 'entity') },
};
