import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import type { Environment } from '../config.ts';
import type { Database } from '../db/database.ts';
import { registerDownloadRoute } from '../files/download-route.ts';
import { createFileLinks, loadInstanceSecret } from '../files/file-links.ts';
import type { FileStore } from '../files/local-file-store.ts';
import { createBaseApp, type BaseAppOptions } from '../http/base-app.ts';
import type { RateLimitSettings } from '../http/rate-limit.ts';
import { parseApiKey } from '../keys/api-key.ts';
import { createApiKeyCache } from '../keys/api-key-cache.ts';
import type { ApiKeyRecord } from '../keys/api-key-store.ts';
import type { LookupAll } from '../webhooks/address-safety.ts';
import { authenticate, type Caller } from './authenticate.ts';
import { registerRecipientRoutes } from './recipient-routes.ts';
import { formatGraphQLErrors } from './graphql/errors.ts';
import {
  DEFAULT_GRAPHQL_LIMITS,
  checkOperationCost,
  limitRules,
  type GraphQLLimits,
} from './graphql/limits.ts';
import {
  checkGraphQLEnvelope,
  checkOperationChosen,
  finishGraphQLAnswer,
  operationNameOf,
  storableStringsRule,
} from './graphql/request-checks.ts';
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

export interface TransactionsAppDeps extends Omit<BaseAppOptions, 'rateLimit'> {
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
  /** Changes to the GraphQL operation limits. @default DEFAULT_GRAPHQL_LIMITS */
  graphqlLimits?: Partial<GraphQLLimits>;
  /** Rate limits per key and per address; none when absent. */
  rateLimit?: RateLimitSettings;
  /**
   * The service's public address, e.g. `https://api.example.com`: absolute links in answers start with it,
   * never with the request's Host header. @default https://localhost:<the port listened on>
   */
  publicUrl?: string;
}

/** The key in `Authorization: Bearer sk_…`, when it has a key's form (for rate limiting; not yet checked). */
function presentedKey(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S{1,100})\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] !== undefined && parseApiKey(match[1]).ok ? match[1] : undefined;
}

/**
 * The Transactions service: the GraphQL API at `/beta` (GraphiQL at `/graphiql`), signed file downloads at
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
  });
  const links = createFileLinks(await loadInstanceSecret(db, 'file_links'));

  const keyCache = createApiKeyCache<ApiKeyRecord>({ ttlMs: deps.apiKeyCacheMs ?? 1000 });
  app.decorateRequest('caller', null);
  app.addHook('onRoute', (route) => {
    if (route.url !== GRAPHQL_PATH) return;
    // Appended to any hooks a plugin put on the route.
    const onRequest = [route.onRequest ?? []].flat();
    route.onRequest = [
      ...onRequest,
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
    route.preValidation = [...[route.preValidation ?? []].flat(), checkGraphQLEnvelope];
    route.onSend = [
      ...[route.onSend ?? []].flat(),
      (request, reply, payload, done) => {
        done(null, finishGraphQLAnswer(request, reply, payload));
      },
    ];
  });

  // Encapsulated, so that Mercurius' error handler answers for the GraphQL routes only.
  await app.register(async (graphql) => {
    await graphql.register(mercurius, {
      schema,
      resolvers,
      path: GRAPHQL_PATH,
      graphiql: false,
      jit: 1,
      validationRules: [...limitRules(limits), storableStringsRule],
      graphql: { parseOptions: { maxTokens: limits.tokens } },
      persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(1000),
      context: (request: FastifyRequest): TransactionsContext =>
        request.caller
          ? {
              db,
              caller: request.caller,
              links,
              baseUrl: baseUrl(),
              idempotencyKey: headerValue(request.headers['idempotency-key']),
              files: deps.files,
              signatureContext: { ipAddress: request.ip, userAgent: request.headers['user-agent'] },
              webhooksAllowInsecure: deps.webhooksAllowInsecure ?? false,
              webhookLookup: deps.webhookLookup,
            }
          : // Mercurius also builds a context to report a request refused before execution (e.g. 401);
            // no resolver runs with it.
            ({} as TransactionsContext),
      errorFormatter: (execution, context) => {
        const formatted = formatGraphQLErrors(execution, context.reply.request.id, context.reply.log);
        if (formatted.retryAfterSeconds !== undefined) {
          void context.reply.header('retry-after', formatted.retryAfterSeconds);
        }
        return formatted;
      },
      errorHandler: async (error, request, reply) => {
        const { statusCode, response, retryAfterSeconds } = formatGraphQLErrors(
          { errors: [error as never] },
          request.id,
          request.log,
        );
        if (retryAfterSeconds !== undefined) void reply.header('retry-after', retryAfterSeconds);
        return reply.code(statusCode).send(response);
      },
    });
    graphql.graphql.addHook('preParsing', (_schema, source, context) => {
      const request = context.reply.request;
      if (request.method === 'GET') checkOperationChosen(source, operationNameOf(request));
    });
    graphql.graphql.addHook('preExecution', (schema, document, context, variables) => {
      checkOperationCost(
        { schema, document, variables, operationName: operationNameOf(context.reply.request) },
        limits.cost,
      );
    });
  });

  registerDownloadRoute(app, { db, links, store: deps.files });
  registerGraphiQL(app);
  registerRecipientRoutes(app, { db, files: deps.files });
  return app;
}
