// Kept as one file: the catalogue of every operation the CLI and the admin socket call by name. Each entry is a
// few lines that check its input and call one domain function; one list is what both sides type themselves from.
import { readFile } from 'node:fs/promises';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { ConfigSchema, type Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { migrationStatus } from '../db/migrate.ts';
import type { Mailer } from '../mail/mailer.ts';
import { CONSOLE_ROLES, DASHBOARD_ROLES } from '../accounts/roles.ts';
import { consolePages } from '../transactions/console/team.ts';
import { resetMemberFactors } from '../transactions/console/team-factors.ts';
import { resetFactors, type FactorReset } from '../accounts/factors/factor-reset.ts';
import { changeRole, listUsers, removeUserByEmail } from '../accounts/users.ts';
import { invitePersonByMail } from '../accounts/people-mail.ts';
import { dashboardPages } from '../portfolio/people.ts';
import { apiKeys, createApiKey, type KeyTable } from '../keys/api-key-store.ts';
import { AppError, notFound } from '../errors.ts';
import { readDateTime } from '../validation/date-time.ts';
import {
  createOrganization,
  getOrganizationByHandle,
  listOrganizations,
  type Organization,
} from '../transactions/organizations.ts';
import { importTemplateSource, listTemplates } from '../transactions/templates/templates.ts';
import { createEntity, listEntities, updateEntity } from '../transactions/entities.ts';
import { deliverKey } from '../transactions/key-delivery/deliver-key.ts';
import { setOrganizationDisclosure } from '../transactions/esign/consent.ts';
import { expireDeliveries, listDeliveries, revokeDelivery } from '../transactions/key-delivery/deliveries.ts';
import { VIEWS_REQUIRED } from '../transactions/key-delivery/views.ts';
import { verifyHistory } from '../transactions/history/chain.ts';
import { writeBackup } from './backup.ts';
import { writeEvidenceBundleFile } from './evidence-bundle.ts';
import { cleanUp } from './retention.ts';
import { readImportFile } from '../portfolio/import/files.ts';
import { RECORD_TYPES } from '../portfolio/record-types.ts';
import { importPortfolio, type ImportProgress } from '../portfolio/import/import.ts';
import {
  createEndpoint,
  deleteEndpoint,
  resendDeliveries,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
  listEndpoints,
} from '../webhooks/endpoints.ts';
import { EVENT_TYPES } from '../webhooks/event-types.ts';
import {
  createInstance,
  createPortfolioKey,
  getInstanceBySlug,
  listInstances,
  portfolioKeys,
} from '../portfolio/instances.ts';

/**
 * What a value becomes once it has crossed the admin socket as JSON: a `Date` its ISO string (whatever has a
 * `toJSON`, what that returns), arrays and objects member by member. An operation's output is typed so, as the
 * in-process path serializes its result the same way (see `run-operation.ts`) and both paths agree.
 */
export type AsJson<T> = T extends { toJSON(): infer Json }
  ? Json
  : T extends readonly (infer Item)[]
    ? AsJson<Item>[]
    : T extends object
      ? { [Key in keyof T]: AsJson<T[Key]> }
      : T;

/** What of the configuration an operation reads. */
type OperationConfig = Pick<Config, 'environment' | 'webhooksAllowInsecure' | 'dataDir'> & {
  /** The file store's bucket, when files are in S3 (`evidence.bundle` reads them). */
  s3?: Config['s3'];
};

/** What an operation may use besides the database: made by whoever runs it (the server, or the CLI). */
export interface OperationServices {
  /** Outgoing mail, as configured. */
  mailer: Mailer;
  /** The Portfolio service's public base address (no trailing slash), for links in mail. */
  portfolioUrl: string;
  /** The Transactions service's public base address (no trailing slash), for links in mail. */
  transactionsUrl: string;
}

/**
 * What an operator does from the CLI. Each operation runs against an open database: directly, or inside the
 * running `portico serve` that holds the embedded database (see `run-operation.ts`), so the two paths can
 * never behave differently.
 */
export interface Operation<Input extends TSchema, Output, Progress = never> {
  input: Input;
  /** `progress` reports how a long operation is getting on (the CLI shows it). */
  run(
    db: Database,
    input: Static<Input>,
    config: OperationConfig,
    progress: (progress: Progress) => void,
    services: OperationServices,
  ): Promise<Output>;
}

function operation<Input extends TSchema, Output, Progress = never>(
  op: Operation<Input, Output, Progress>,
): Operation<Input, Output, Progress> {
  return op;
}

/**
 * An operation on one organization's things: its input names the organization by handle (`org`, besides the
 * properties of `input`), which is found before `run`.
 */
function organizationOperation<Props extends TProperties, Output>(op: {
  input: Props;
  run: (
    db: Database,
    input: Static<TObject<Props>> & { org: string },
    organization: Organization,
    config: OperationConfig,
    services: OperationServices,
  ) => Promise<Output>;
}) {
  return operation({
    input: Type.Intersect([Type.Object({ org: Type.String() }), Type.Object(op.input)]),
    async run(db, input, config, _progress, services) {
      return op.run(db, input, await getOrganizationByHandle(db, input.org), config, services);
    },
  });
}

/** What the CLI prints of a reset of a person's factors: whose, what it removed, the sessions ended, the mail. */
function resetAnswer(reset: FactorReset) {
  return {
    email: reset.user.email,
    removed: reset.removed,
    sessionsEnded: reset.sessionsEnded,
    mail: reset.mail,
  };
}

/** The people of a customer instance, named by slug: their tenant, and how an error names it. */
async function instancePeople(db: Database, slug: string) {
  const instance = await getInstanceBySlug(db, slug);
  return {
    tenant: { kind: 'instance', id: instance.id } as const,
    tenantLabel: `instance "${instance.slug}"`,
  };
}

/**
 * `list` and `revoke` over the keys of one kind of owner, named in the input as `owner` has it: the same two
 * operations for organizations (by handle) and customer instances (by slug). `find` gives the owner's id and
 * how an error names the owner.
 */
function keyOperations<Owner extends TObject, KeyRecord extends { revokedAt: Date | null }>(
  keys: KeyTable<KeyRecord>,
  owner: Owner,
  find: (db: Database, input: Static<Owner>) => Promise<{ id: string; described: string }>,
) {
  return {
    list: operation({
      input: owner,
      async run(db, input) {
        return keys.list(db, (await find(db, input)).id);
      },
    }),
    revoke: operation({
      input: Type.Intersect([owner, Type.Object({ key: Type.String() })]),
      async run(db, input) {
        const found = await find(db, input);
        const revoked = await keys.revoke(db, { ownerId: found.id, key: input.key });
        if (!revoked) throw notFound(`key of ${found.described} named`, input.key);
        return revoked;
      },
    }),
  };
}

const organizationKeys = keyOperations(apiKeys, Type.Object({ org: Type.String() }), async (db, { org }) => ({
  id: (await getOrganizationByHandle(db, org)).id,
  described: `organization "${org}"`,
}));
const instanceKeys = keyOperations(
  portfolioKeys,
  Type.Object({ instance: Type.String() }),
  async (db, input) => ({
    id: (await getInstanceBySlug(db, input.instance)).id,
    described: `instance "${input.instance}"`,
  }),
);

/** What `portfolio import` reports while it works: each file it reads, then how far each phase is. */
export type ImportReport = { phase: 'reading'; file: string } | ImportProgress;

const Environment = ConfigSchema.properties.environment;
/** An entity's fields as `entities create` gives them (`email: null` is no address). */
const EntityFields = {
  name: Type.String(),
  email: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.Optional(Type.String()),
  settings: Type.Optional(Type.Unknown()),
};
const EventTypeInput = Type.Union(EVENT_TYPES.map((type) => Type.Literal(type)));

/** Every operation by the name the CLI and the admin socket call it by. */
export const operations = {
  // Asked of a running `portico serve` by `portico migrate --status`: the schema of the database it holds.
  'migrate.status': operation({
    input: Type.Object({}),
    run: (db) => migrationStatus(db),
  }),
  // `portico verify --transaction`: any organization's transaction, as an operator reads the whole instance.
  'history.verify': operation({
    input: Type.Object({ transaction: Type.String() }),
    run: (db, input) => verifyHistory(db, { transactionId: input.transaction }),
  }),
  // `portico evidence bundle`: any organization's, written by whoever holds the database, to an absolute path.
  'evidence.bundle': operation({
    input: Type.Object({
      transaction: Type.Optional(Type.String()),
      closing: Type.Optional(Type.String()),
      output: Type.Optional(Type.String({ minLength: 1 })),
      directory: Type.String({ minLength: 1 }),
    }),
    run: (db, input, config) => writeEvidenceBundleFile(db, config, input),
  }),
  'org.create': operation({
    input: Type.Object({
      handle: Type.String(),
      name: Type.String(),
      legalName: Type.Optional(Type.String()),
      email: Type.Optional(Type.String()),
      entityType: Type.Optional(Type.String()),
    }),
    run: (db, input) =>
      db.transaction(async (tx) => {
        const organization = await createOrganization(tx, { handle: input.handle, name: input.name });
        // The entity transactions are sent from: without one, the organization could create none.
        const senderEntity = await createEntity(tx, {
          organizationId: organization.id,
          name: input.legalName ?? input.name,
          email: input.email,
          type: input.entityType,
        });
        return { ...organization, senderEntity };
      }),
  }),
  'org.list': operation({
    input: Type.Object({}),
    run: (db) => listOrganizations(db),
  }),
  'templates.list': operation({
    input: Type.Object({ org: Type.Optional(Type.String()) }),
    async run(db, input) {
      const organization = input.org === undefined ? undefined : await getOrganizationByHandle(db, input.org);
      return listTemplates(db, { organizationId: organization?.id });
    },
  }),
  'entities.list': organizationOperation({
    input: {},
    run: (db, _input, organization) => listEntities(db, organization.id),
  }),
  'entities.create': organizationOperation({
    input: EntityFields,
    run: (db, input, organization) => createEntity(db, { ...input, organizationId: organization.id }),
  }),
  'entities.update': organizationOperation({
    // Each field is optional: what is left out stays as it is; `email: null` removes the address.
    input: { ...EntityFields, id: Type.String(), name: Type.Optional(EntityFields.name) },
    run: (db, input, organization) => updateEntity(db, { ...input, organizationId: organization.id }),
  }),
  'templates.import': organizationOperation({
    input: {
      source: Type.String(),
      filename: Type.String(),
      files: Type.Optional(
        Type.Record(Type.String(), Type.String({ contentEncoding: 'base64' }), {
          description: 'The fund PDFs the template names, by name, as base64.',
        }),
      ),
    },
    run: (db, { source, filename, files }, organization) =>
      importTemplateSource(db, {
        organizationId: organization.id,
        source,
        filename,
        files: new Map(
          Object.entries(files ?? {}).map(([name, base64]) => [name, Buffer.from(base64, 'base64')]),
        ),
      }),
  }),
  'keys.create': organizationOperation({
    input: { name: Type.Optional(Type.String()), environment: Type.Optional(Environment) },
    async run(db, input, organization, config) {
      const { key, record } = await createApiKey(db, {
        organizationId: organization.id,
        environment: input.environment ?? config.environment,
        name: input.name,
      });
      return { key, ...record, organization: organization.handle };
    },
  }),
  'keys.issue': organizationOperation({
    input: {
      environment: Environment,
      emails: Type.Array(Type.String(), { maxItems: 100 }),
      name: Type.Optional(Type.String()),
      expiresInMinutes: Type.Optional(Type.Number()),
      viewsRequired: Type.Optional(Type.Union(VIEWS_REQUIRED.map((views) => Type.Literal(views)))),
    },
    run: (db, input, organization, _config, services) => deliverKey(db, services, { ...input, organization }),
  }),
  'keys.deliveries': organizationOperation({
    input: {},
    async run(db, _input, organization) {
      await expireDeliveries(db);
      return listDeliveries(db, organization.id);
    },
  }),
  'keys.revoke-delivery': operation({
    input: Type.Object({ id: Type.String() }),
    run: (db, input) => revokeDelivery(db, input.id),
  }),
  'keys.list': organizationKeys.list,
  'keys.revoke': organizationKeys.revoke,
  'webhooks.list': organizationOperation({
    input: {},
    run: (db, _input, organization) => listEndpoints(db, { organizationId: organization.id }),
  }),
  'webhooks.create': organizationOperation({
    input: {
      url: Type.String(),
      description: Type.Optional(Type.String()),
      events: Type.Array(EventTypeInput, { minItems: 1 }),
    },
    async run(db, input, organization, config) {
      const { endpoint, secret } = await createEndpoint(db, {
        organizationId: organization.id,
        url: input.url,
        description: input.description,
        eventTypes: input.events,
        allowInsecure: config.webhooksAllowInsecure,
      });
      return { ...endpoint, secret };
    },
  }),
  'webhooks.update': organizationOperation({
    input: {
      id: Type.String(),
      url: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      events: Type.Optional(Type.Array(EventTypeInput, { minItems: 1 })),
    },
    async run(db, input, organization, config) {
      return updateEndpoint(db, {
        organizationId: organization.id,
        endpointId: input.id,
        url: input.url,
        description: input.description,
        eventTypes: input.events,
        allowInsecure: config.webhooksAllowInsecure,
      });
    },
  }),
  'webhooks.enable': organizationOperation({
    input: { id: Type.String(), enabled: Type.Boolean() },
    async run(db, input, organization) {
      return setEndpointEnabled(db, {
        organizationId: organization.id,
        endpointId: input.id,
        enabled: input.enabled,
        reason: 'disabled by an operator',
      });
    },
  }),
  'webhooks.delete': organizationOperation({
    input: { id: Type.String() },
    async run(db, input, organization) {
      await deleteEndpoint(db, { organizationId: organization.id, endpointId: input.id });
      return { id: input.id };
    },
  }),
  'webhooks.rotate': organizationOperation({
    input: { id: Type.String() },
    async run(db, input, organization) {
      const { endpoint, secret } = await rotateEndpointSecret(db, {
        organizationId: organization.id,
        endpointId: input.id,
      });
      return { ...endpoint, secret };
    },
  }),
  'webhooks.resend': organizationOperation({
    input: {
      delivery: Type.Optional(Type.String()),
      endpoint: Type.Optional(Type.String()),
      since: Type.Optional(Type.String()),
    },
    async run(db, input, organization) {
      if (input.delivery !== undefined) {
        return {
          count: await resendDeliveries(db, { organizationId: organization.id, deliveryId: input.delivery }),
        };
      }
      // A day alone means its start, in UTC; a time must exist and fall in years both databases hold.
      const since = readDateTime(
        /^\d{4}-\d{2}-\d{2}$/.test(input.since ?? '')
          ? `${input.since ?? ''}T00:00:00Z`
          : (input.since ?? ''),
      );
      if (input.endpoint === undefined || !(since instanceof Date)) {
        throw new AppError(
          'BAD_USER_INPUT',
          'give --delivery <id>, or --endpoint <id> with --since <ISO time>',
        );
      }
      return {
        count: await resendDeliveries(db, {
          organizationId: organization.id,
          endpointId: input.endpoint,
          since,
        }),
      };
    },
  }),
  'org.users.invite': organizationOperation({
    input: {
      email: Type.String(),
      role: Type.Union(CONSOLE_ROLES.map((role) => Type.Literal(role))),
      name: Type.Optional(Type.String()),
    },
    async run(db, input, organization, _config, services) {
      return invitePersonByMail(
        db,
        consolePages({ mailer: services.mailer, transactionsUrl: () => services.transactionsUrl }),
        {
          tenant: organization,
          email: input.email,
          role: input.role,
          name: input.name,
        },
      );
    },
  }),
  // The organization's disclosure about electronic records (docs/esign-consent.md); null goes back to Portico's.
  'org.disclosure': organizationOperation({
    input: { text: Type.Union([Type.String(), Type.Null()]) },
    run: (db, input, organization) =>
      setOrganizationDisclosure(db, { organizationId: organization.id, text: input.text }),
  }),
  'org.users.list': organizationOperation({
    input: {},
    run: (db, _input, organization) => listUsers(db, { kind: 'organization', id: organization.id }),
  }),
  'org.users.role': organizationOperation({
    input: { email: Type.String(), role: Type.Union(CONSOLE_ROLES.map((role) => Type.Literal(role))) },
    run: (db, input, organization) =>
      changeRole(
        db,
        { kind: 'organization', id: organization.id },
        { ...input, tenantLabel: `organization "${organization.handle}"` },
      ),
  }),
  // Break-glass: an admin locked out of their second factor (docs/operations.md), recorded as the operator's.
  'org.users.reset-factors': organizationOperation({
    input: { email: Type.String() },
    async run(db, input, organization, _config, services) {
      return resetAnswer(
        await resetMemberFactors(
          { db, mailer: services.mailer, transactionsUrl: () => services.transactionsUrl },
          { organization, person: { email: input.email }, by: 'operator' },
        ),
      );
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
  'portfolio.users.invite': operation({
    input: Type.Object({
      instance: Type.String(),
      email: Type.String(),
      role: Type.Union(DASHBOARD_ROLES.map((role) => Type.Literal(role))),
      name: Type.Optional(Type.String()),
    }),
    async run(db, input, _config, _progress, services) {
      const instance = await getInstanceBySlug(db, input.instance);
      const invited = await invitePersonByMail(db, dashboardPages(services), {
        tenant: instance,
        email: input.email,
        role: input.role,
        name: input.name,
      });
      return { instance: instance.slug, ...invited };
    },
  }),
  'portfolio.users.list': operation({
    input: Type.Object({ instance: Type.String() }),
    async run(db, input) {
      return listUsers(db, (await instancePeople(db, input.instance)).tenant);
    },
  }),
  'portfolio.users.remove': operation({
    input: Type.Object({ instance: Type.String(), email: Type.String() }),
    async run(db, input) {
      const { tenant, tenantLabel } = await instancePeople(db, input.instance);
      return removeUserByEmail(db, tenant, { email: input.email, tenantLabel });
    },
  }),
  'portfolio.users.role': operation({
    input: Type.Object({
      instance: Type.String(),
      email: Type.String(),
      role: Type.Union(DASHBOARD_ROLES.map((role) => Type.Literal(role))),
    }),
    async run(db, input) {
      const { tenant, tenantLabel } = await instancePeople(db, input.instance);
      return changeRole(db, tenant, { email: input.email, role: input.role, tenantLabel });
    },
  }),
  'portfolio.users.reset-factors': operation({
    input: Type.Object({ instance: Type.String(), email: Type.String() }),
    async run(db, input, _config, _progress, services) {
      const instance = await getInstanceBySlug(db, input.instance);
      return resetAnswer(
        await resetFactors(db, dashboardPages(services), {
          tenant: instance,
          person: { email: input.email },
          by: 'operator',
        }),
      );
    },
  }),
  'portfolio.keys.list': instanceKeys.list,
  'portfolio.keys.revoke': instanceKeys.revoke,
  'portfolio.import': operation({
    // Absolute paths: the serving process reads the files itself, however large they are.
    input: Type.Object({
      instance: Type.String(),
      files: Type.Array(Type.String(), { minItems: 1 }),
      type: Type.Optional(Type.Union(RECORD_TYPES.map((type) => Type.Literal(type)))),
    }),
    async run(db, input, _config, progress: (report: ImportReport) => void) {
      const instance = await getInstanceBySlug(db, input.instance);
      const sources = [];
      for (const file of input.files) {
        progress({ phase: 'reading', file });
        sources.push(readImportFile(file, await readFile(file, 'utf8'), { type: input.type }));
      }
      return importPortfolio(db, { instanceId: instance.id, sources, onProgress: progress });
    },
  }),
  // An absolute path: the serving process writes the archive itself, between two of its transactions.
  backup: operation({
    input: Type.Object({ path: Type.String({ minLength: 1 }) }),
    run: (db, input, config) => writeBackup(db, { dataDir: config.dataDir, path: input.path }),
  }),
  // The settings come with the input: those of the `portico cleanup` run, whoever carries it out.
  cleanup: operation({
    input: Type.Object({
      dryRun: Type.Boolean(),
      retention: ConfigSchema.properties.retention,
    }),
    run: (db, input, config) =>
      cleanUp(db, { dataDir: config.dataDir, settings: input.retention, dryRun: input.dryRun }),
  }),
};

export type OperationName = keyof typeof operations;
/** What an operation takes: the JSON its input schema checks. */
export type OperationInput<Name extends OperationName> = Static<(typeof operations)[Name]['input']>;
/** What an operation answers, as it arrives on either path: JSON (dates as ISO strings). */
export type OperationOutput<Name extends OperationName> = AsJson<
  Awaited<ReturnType<(typeof operations)[Name]['run']>>
>;
/** What an operation reports while it works (`never` for those that do not). */
export type OperationProgress<Name extends OperationName> = Parameters<
  Parameters<(typeof operations)[Name]['run']>[3]
>[0];
