import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import { loadInstanceSecret } from '../db/instance-secrets.ts';
import { registerDownloadRoute } from '../files/download-route.ts';
import { registerEvidenceLinkRoute } from './evidence/bundle-route.ts';
import { createFileLinks } from '../files/file-links.ts';
import type { FileStore } from '../files/file-store.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';
import type { RateLimitSettings } from '../http/rate-limit.ts';
import type { MetricsSettings } from '../observability/request-metrics.ts';
import { parseApiKey } from '../keys/api-key.ts';
import { createApiKeyCache } from '../keys/api-key-cache.ts';
import type { ApiKeyRecord } from '../keys/api-key-store.ts';
import type { LookupAll } from '../webhooks/address-safety.ts';
import type { RecipientNotices } from './recipients/notice-sender.ts';
import type { DocumentWorkers } from './documents/document-workers.ts';
import { registerRecipientRoutes } from './recipients/routes.ts';
import { contextBuilder } from './graphql/context.ts';
import { createCompiledReads } from './graphql/compiled-reads.ts';
import { createDirectReads } from './graphql/direct-reads.ts';
import { registerGraphiQL } from './graphql/graphiql.ts';
import { registerKeyDelivery, type KeyDeliveryDeps } from './key-delivery/routes.ts';
import { registerConsole } from './console/console.ts';
import type { ConsoleDeps } from './console/deps.ts';
import { registerRecipientPage } from './recipients/page-route.ts';
import {
  addOperationHooks,
  apiKeyCheck,
  errorFormatter,
  errorHandler,
  graphqlRouteHooks,
} from './graphql/hooks.ts';
import { registerSchemaRoute } from './graphql/schema-route.ts';
import { TRANSACTIONS_SCHEMA_SOURCE } from './graphql/sdl.ts';
import { DEFAULT_GRAPHQL_LIMITS, limitRules, type GraphQLLimits } from './graphql/limits.ts';
import { storableStringsRule } from './graphql/request-checks.ts';
import { graphqlOperationOf } from '../observability/graphql-operation.ts';
import { resolvers } from './graphql/resolvers/resolvers.ts';

/** Where the GraphQL API answers. */
export const GRAPHQL_PATH = '/beta';

/** What the Transactions service is built from; options carry their defaults. */
export interface TransactionsAppDeps extends Omit<BaseAppOptions, 'rateLimit' | 'metrics'> {
  db: Database;
  /** Which keys this deployment accepts. */
  environment: Environment;
  files: FileStore;
  /**
   * How long a valid key lookup is reused, in milliseconds: a key revoked elsewhere keeps working here for at
   * most this long. 0 looks every key up on every request. @default 1000
   */
  apiKeyCacheMs?: number;
  /** Whether webhook URLs may be plain http or private addresses (development and tests). @default false */
  webhooksAllowInsecure?: boolean;
  /** How webhook URL host names resolve when an endpoint is saved (tests). @default node:dns */
  webhookLookup?: LookupAll;
  /**
   * Whether queries that only read rows by id are answered by one prepared statement without GraphQL's execution
   * (direct-reads.ts; the same answers, faster). Tests turn it off to compare. @default true
   */
  directReads?: boolean;
  /**
   * Whether a query posted again runs its graphql-jit code before Mercurius, which answers the rest
   * (compiled-reads.ts; the same answers, without Mercurius' round of hooks and checks). Tests turn it off to
   * compare. @default true
   */
  compiledReads?: boolean;
  /** Changes to the GraphQL operation limits. @default DEFAULT_GRAPHQL_LIMITS */
  graphqlLimits?: Partial<GraphQLLimits>;
  /** Rate limits per key and per address; none when absent. */
  rateLimit?: RateLimitSettings;
  /**
   * The service's public address, e.g. `https://api.example.com`: absolute links in answers start with it,
   * never with the request's Host header. @default https://localhost:<the port listened on>
   */
  publicUrl?: string;
  /** The largest file a recipient may upload (PORTICO_UPLOAD_MAX_MB). @default DEFAULT_UPLOAD_MAX_BYTES */
  uploadMaxBytes?: number | undefined;
  /** The organization console at `/console`, with the mail its invitations go out by; none when absent. */
  console?: Omit<ConsoleDeps, 'db' | 'distDir' | 'links' | 'files' | 'recipientNotices' | 'documentWorkers'>;
  /** The key-delivery page at `/key-delivery`, with the mail its codes go out by; none when absent. */
  keyDelivery?: Omit<KeyDeliveryDeps, 'db'>;
  /** The built front end the people's pages are served from. @default the key-delivery page's, else web/dist */
  webDistDir?: string | undefined;
  /**
   * The sender of recipients' mail (recipients/notice-sender.ts), kicked after a mutation or recipient action that may
   * have queued some. Without it, queued mail waits for whatever runs `sendDueNotices`.
   */
  recipientNotices?: Pick<RecipientNotices, 'kick'>;
  /** The process's metrics, and the token of `GET /metrics`; none when absent. */
  metrics?: MetricsSettings | undefined;
  /**
   * The threads documents are made in (previews, signed copies, countersignatures); tests give a pool of their
   * own to shorten its time limit. @default the process's (documents/document-workers.ts)
   */
  documentWorkers?: DocumentWorkers | undefined;
}

/** The key in `Authorization: Bearer sk_…`, when it has a key's form (for rate limiting; not yet checked). */
function presentedKey(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S{1,100})\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] !== undefined && parseApiKey(match[1]).ok ? match[1] : undefined;
}

/**
 * The Transactions service: the GraphQL API at `/beta` (its SDL at `/beta/schema.graphql`, GraphiQL at `/graphiql`), signed file downloads at
 * `/files/:id`, health at `/healthz` and `/readyz`. Returns the app without listening.
 */
export async function buildTransactionsApp(deps: TransactionsAppDeps): Promise<FastifyInstance> {
  const { db } = deps;
  const limits = { ...DEFAULT_GRAPHQL_LIMITS, ...deps.graphqlLimits };
  // Without a configured address, links name localhost and the port actually listened on (never the Host
  // header, which the client controls).
  let listeningUrl: string | undefined;
  const baseUrl = (): string => {
    if (deps.publicUrl !== undefined) return deps.publicUrl;
    if (listeningUrl !== undefined) return listeningUrl;
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) return 'https://localhost';
    listeningUrl = `https://localhost:${address.port}`;
    return listeningUrl;
  };
  const app = await createBaseApp({
    ...deps,
    rateLimit: deps.rateLimit && { ...deps.rateLimit, service: 'transactions', presentedKey },
    metrics: deps.metrics && {
      ...deps.metrics,
      service: 'transactions',
      // Named as its trace is (observability/graphql-operation.ts).
      graphql: { path: GRAPHQL_PATH, operationName: (request) => graphqlOperationOf(request)?.name },
    },
  });
  const links = createFileLinks(await loadInstanceSecret(db, 'file_links'));

  const keyCache = createApiKeyCache<ApiKeyRecord>({ ttlMs: deps.apiKeyCacheMs ?? 1000 });
  const validationRules = [...limitRules(limits), storableStringsRule];
  const reads = deps.metrics?.metrics.graphqlReads;
  const readRules = { validationRules, maxTokens: limits.tokens, costLimit: limits.cost };
  const directReads =
    deps.directReads === false
      ? undefined
      : createDirectReads({ ...readRules, db, answered: reads?.labels('direct') });
  const context = contextBuilder({
    db,
    links,
    files: deps.files,
    baseUrl,
    webhooksAllowInsecure: deps.webhooksAllowInsecure ?? false,
    webhookLookup: deps.webhookLookup,
    recipientNotices: deps.recipientNotices,
    documentWorkers: deps.documentWorkers,
  });
  const compiledReads =
    deps.compiledReads === false
      ? undefined
      : createCompiledReads({ ...readRules, context, answered: reads?.labels('compiled') });
  const preHandlers = [directReads?.preHandler, compiledReads?.preHandler].filter(
    (handler) => handler !== undefined,
  );
  app.decorateRequest('caller', null);
  app.addHook(
    'onRoute',
    graphqlRouteHooks({
      path: GRAPHQL_PATH,
      db,
      environment: deps.environment,
      keyCache,
      ...(preHandlers.length > 0 ? { preHandler: preHandlers } : {}),
    }),
  );

  // Encapsulated, so that Mercurius' error handler answers for the GraphQL routes only.
  await app.register(async (graphql) => {
    await graphql.register(mercurius, {
      schema: TRANSACTIONS_SCHEMA_SOURCE,
      resolvers,
      path: GRAPHQL_PATH,
      graphiql: false,
      jit: 1,
      validationRules,
      graphql: { parseOptions: { maxTokens: limits.tokens } },
      persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(1000),
      context,
      errorFormatter,
      errorHandler,
    });
    addOperationHooks(graphql, limits);
    directReads?.useSchema(graphql.graphql.schema);
    compiledReads?.useSchema(graphql.graphql.schema);
    await registerSchemaRoute(graphql, {
      schema: graphql.graphql.schema,
      authenticate: apiKeyCheck({ db, environment: deps.environment, keyCache }),
      errorHandler,
    });
  });

  registerDownloadRoute(app, { db, links, store: deps.files });
  registerEvidenceLinkRoute(app, { db, links, files: deps.files });
  registerGraphiQL(app);
  await registerRecipientRoutes(app, {
    db,
    files: deps.files,
    links,
    uploadMaxBytes: deps.uploadMaxBytes,
    recipientNotices: deps.recipientNotices,
    documentWorkers: deps.documentWorkers,
  });
  if (deps.keyDelivery) await registerKeyDelivery(app, { ...deps.keyDelivery, db });
  if (deps.console) {
    await registerConsole(app, {
      ...deps.console,
      db,
      links,
      files: deps.files,
      uploadMaxBytes: deps.uploadMaxBytes,
      recipientNotices: deps.recipientNotices,
      documentWorkers: deps.documentWorkers,
      distDir: deps.webDistDir ?? deps.keyDelivery?.distDir,
    });
  }
  registerRecipientPage(app, { distDir: deps.webDistDir ?? deps.keyDelivery?.distDir });
  return app;
}
