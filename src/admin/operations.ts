import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/api-key-store.ts';
import { AppError } from '../errors.ts';
import { createOrganization, getOrganizationByHandle } from '../transactions/organizations.ts';
import { importTemplateSource } from '../transactions/templates.ts';

/**
 * What an operator does from the CLI. Each operation runs against an open database: directly, or inside the
 * running `portico serve` that holds the embedded database (see `run-operation.ts`), so the two paths can
 * never behave differently.
 */
export interface Operation<Input extends TSchema> {
  input: Input;
  run(db: Database, input: Static<Input>, config: Pick<Config, 'environment'>): Promise<unknown>;
}

function operation<Input extends TSchema>(op: Operation<Input>): Operation<Input> {
  return op;
}

const Environment = Type.Union([Type.Literal('staging'), Type.Literal('production')]);

export const operations = {
  'org.create': operation({
    input: Type.Object({ handle: Type.String(), name: Type.String() }),
    run: (db, input) => createOrganization(db, input),
  }),
  'templates.import': operation({
    input: Type.Object({ org: Type.String(), source: Type.String(), filename: Type.String() }),
    async run(db, input) {
      const organization = await getOrganizationByHandle(db, input.org);
      return importTemplateSource(db, {
        organizationId: organization.id,
        source: input.source,
        filename: input.filename,
      });
    },
  }),
  'keys.create': operation({
    input: Type.Object({
      org: Type.String(),
      name: Type.Optional(Type.String()),
      environment: Type.Optional(Environment),
    }),
    async run(db, input, config) {
      const organization = await getOrganizationByHandle(db, input.org);
      const { key, record } = await createApiKey(db, {
        organizationId: organization.id,
        environment: input.environment ?? config.environment,
        name: input.name,
      });
      return { key, ...record, organization: organization.handle };
    },
  }),
  'keys.list': operation({
    input: Type.Object({ org: Type.String() }),
    async run(db, input) {
      return listApiKeys(db, (await getOrganizationByHandle(db, input.org)).id);
    },
  }),
  'keys.revoke': operation({
    input: Type.Object({ org: Type.String(), key: Type.String() }),
    async run(db, input) {
      const organization = await getOrganizationByHandle(db, input.org);
      const revoked = await revokeApiKey(db, { organizationId: organization.id, key: input.key });
      if (!revoked) throw new AppError('NOT_FOUND', `organization "${input.org}" has no key ${input.key}`);
      return revoked;
    },
  }),
};

export type OperationName = keyof typeof operations;
export type OperationInput<Name extends OperationName> = Static<(typeof operations)[Name]['input']>;
