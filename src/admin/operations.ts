import { readFile } from 'node:fs/promises';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { apiKeys, createApiKey } from '../keys/api-key-store.ts';
import { AppError } from '../errors.ts';
import { createOrganization, getOrganizationByHandle } from '../transactions/organizations.ts';
import { importTemplateSource } from '../transactions/templates.ts';
import { readImportFile, RECORD_TYPES } from '../portfolio/import-files.ts';
import { importPortfolio } from '../portfolio/import.ts';
import {
  createInstance,
  createPortfolioKey,
  getInstanceBySlug,
  listInstances,
  portfolioKeys,
} from '../portfolio/instances.ts';

/**
 * What an operator does from the CLI. Each operation runs against an open database: directly, or inside the
 * running `portico serve` that holds the embedded database (see `run-operation.ts`), so the two paths can
 * never behave differently.
 */
export interface Operation<Input extends TSchema> {
  input: Input;
  /** `progress` reports how a long operation is getting on (the CLI shows it). */
  run(
    db: Database,
    input: Static<Input>,
    config: Pick<Config, 'environment'>,
    progress: (progress: unknown) => void,
  ): Promise<unknown>;
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
      return apiKeys.list(db, (await getOrganizationByHandle(db, input.org)).id);
    },
  }),
  'keys.revoke': operation({
    input: Type.Object({ org: Type.String(), key: Type.String() }),
    async run(db, input) {
      const organization = await getOrganizationByHandle(db, input.org);
      const revoked = await apiKeys.revoke(db, { ownerId: organization.id, key: input.key });
      if (!revoked) throw new AppError('NOT_FOUND', `organization "${input.org}" has no key ${input.key}`);
      return revoked;
    },
  }),
  'portfolio.instances.create': operation({
    input: Type.Object({ slug: Type.String(), name: Type.String() }),
    run: (db, input) => createInstance(db, input),
  }),
  'portfolio.instances.list': operation({
    input: Type.Object({}),
    run: (db) => listInstances(db),
  }),
  'portfolio.keys.create': operation({
    input: Type.Object({ instance: Type.String(), name: Type.String() }),
    async run(db, input) {
      const instance = await getInstanceBySlug(db, input.instance);
      const { key, record } = await createPortfolioKey(db, { instanceId: instance.id, name: input.name });
      return { key, ...record, instance: instance.slug };
    },
  }),
  'portfolio.keys.list': operation({
    input: Type.Object({ instance: Type.String() }),
    async run(db, input) {
      return portfolioKeys.list(db, (await getInstanceBySlug(db, input.instance)).id);
    },
  }),
  'portfolio.keys.revoke': operation({
    input: Type.Object({ instance: Type.String(), key: Type.String() }),
    async run(db, input) {
      const instance = await getInstanceBySlug(db, input.instance);
      const revoked = await portfolioKeys.revoke(db, { ownerId: instance.id, key: input.key });
      if (!revoked) throw new AppError('NOT_FOUND', `instance "${input.instance}" has no key ${input.key}`);
      return revoked;
    },
  }),
  'portfolio.import': operation({
    // Absolute paths: the serving process reads the files itself, however large they are.
    input: Type.Object({
      instance: Type.String(),
      files: Type.Array(Type.String(), { minItems: 1 }),
      type: Type.Optional(Type.Union(RECORD_TYPES.map((type) => Type.Literal(type)))),
    }),
    async run(db, input, _config, progress) {
      const instance = await getInstanceBySlug(db, input.instance);
      const sources = [];
      for (const file of input.files) {
        progress({ phase: 'reading', file });
        sources.push(readImportFile(file, await readFile(file, 'utf8'), { type: input.type }));
      }
      return importPortfolio(db, { instanceId: instance.id, sources, onProgress: progress });
    },
  }),
};

export type OperationName = keyof typeof operations;
export type OperationInput<Name extends OperationName> = Static<(typeof operations)[Name]['input']>;
