import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import { registerDownloadRoute } from '../files/download-route.ts';
import { createFileLinks, loadInstanceSecret } from '../files/file-links.ts';
import type { FileStore } from '../files/local-file-store.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';
import { createApiKeyCache } from '../keys/api-key-cache.ts';
import type { ApiKeyRecord } from '../keys/api-key-store.ts';
import type { LookupAll } from '../webhooks/address-safety.ts';
import { authenticate, type Caller } from './authenticate.ts';
import { registerRecipientRoutes } from './recipient-routes.ts';
import { formatGraphQLErrors } from './graphql/errors.ts';
import { registerGraphiQL } from './graphql/graphiql.ts';
import { resolvers, type TransactionsContext } from './graphql/resolvers.ts';

export const GRAPHQL_PATH = '/beta';

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
const schema = readFileSync(new URL('./graphql/schema.graphql', import.meta.url), 'utf8');

declare module 'fastify' {
  interface FastifyRequest {
    /** The organization and key behind a request to the GraphQL endpoint, once authenticated. */
    caller: Caller | null;
  }
}

export interface TransactionsAppDeps extends BaseAppOptions {
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
}

/**
 * The Transactions service: the GraphQL API at `/beta` (GraphiQL at `/graphiql`), signed file downloads at
 * `/files/:id`, health at `/healthz` and `/readyz`. Returns the app without listening.
 */
export async function buildTransactionsApp(deps: TransactionsAppDeps): Promise<FastifyInstance> {
  const { db } = deps;
  const app = createBaseApp(deps);
  const links = createFileLinks(await loadInstanceSecret(db, 'file_links'));

  const keyCache = createApiKeyCache<ApiKeyRecord>({ ttlMs: deps.apiKeyCacheMs ?? 1000 });
  app.decorateRequest('caller', null);
  app.addHook('onRoute', (route) => {
    if (route.url !== GRAPHQL_PATH) return;
    route.onRequest = [
      async (request, reply) => {
        try {
          request.caller = await authenticate(
            { db, environment: deps.environment, cache: keyCache },
            request,
          );
        } catch (error) {
          void reply.header('www-authenticate', 'Bearer realm="portico"');
          throw error;
        }
      },
    ];
  });

  // Encapsulated, so that Mercurius' error handler answers for the GraphQL routes only.
  await app.register(async (graphql) =>
    graphql.register(mercurius, {
      schema,
      resolvers,
      path: GRAPHQL_PATH,
      graphiql: false,
      jit: 1,
      queryDepth: 12,
      context: (request: FastifyRequest): TransactionsContext =>
        request.caller
          ? {
              db,
              caller: request.caller,
              links,
              baseUrl: `${request.protocol}://${request.host}`,
              idempotencyKey: headerValue(request.headers['idempotency-key']),
              files: deps.files,
              signatureContext: { ipAddress: request.ip, userAgent: request.headers['user-agent'] },
              webhooksAllowInsecure: deps.webhooksAllowInsecure ?? false,
              webhookLookup: deps.webhookLookup,
            }
          : // Mercurius also builds a context to report a request refused before execution (e.g. 401);
            // no resolver runs with it.
            ({} as TransactionsContext),
      errorFormatter: (execution, context) =>
        formatGraphQLErrors(execution, context.reply.request.id, context.reply.log),
      errorHandler: async (error, request, reply) => {
        const { statusCode, response } = formatGraphQLErrors(
          { errors: [error as never] },
          request.id,
          request.log,
        );
        return reply.code(statusCode).send(response);
      },
    }),
  );

  registerDownloadRoute(app, { db, links, store: deps.files });
  registerGraphiQL(app);
  registerRecipientRoutes(app, { db, files: deps.files });
  return app;
}
