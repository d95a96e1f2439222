import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  RouteOptions,
} from 'fastify';
import type { ExecutionResult } from 'graphql';
import type { MercuriusContext } from 'mercurius';
import type { Environment } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { ApiKeyCache } from '../../keys/api-key-cache.ts';
import type { ApiKeyRecord } from '../../keys/api-key-store.ts';
import { authenticate, type Caller } from '../authenticate.ts';
import { formatGraphQLErrors } from './errors.ts';
import { checkOperationCost, type GraphQLLimits } from './limits.ts';
import {
  checkGraphQLEnvelope,
  checkOperationChosen,
  finishGraphQLAnswer,
  operationNameOf,
} from './request-checks.ts';

/**
 * The hooks around the GraphQL endpoint, by request phase: on the HTTP route (authenticate, check the
 * envelope, finish the answer), in Mercurius before parsing and before execution (operation choice, cost), and
 * the formatting of every answer that carries errors.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The organization and key behind a request to the GraphQL endpoint, once authenticated. */
    caller: Caller | null;
  }
}

/**
 * The `onRequest` hook that checks the API key of a request to the GraphQL endpoint or its schema
 * (`request.caller`); a refusal carries `WWW-Authenticate`.
 */
export function apiKeyCheck(options: {
  db: Database;
  environment: Environment;
  keyCache: ApiKeyCache<ApiKeyRecord>;
}): onRequestAsyncHookHandler {
  return async (request, reply) => {
    try {
      request.caller = await authenticate(
        { db: options.db, environment: options.environment, cache: options.keyCache },
        request,
      );
    } catch (error) {
      void reply.header('www-authenticate', 'Bearer realm="portico"');
      throw error;
    }
  };
}

/**
 * An `onRoute` hook that gives the GraphQL route at `path` its HTTP-phase checks, after any hooks a plugin put
 * on it: the API key (`request.caller`; a refusal carries `WWW-Authenticate`), the GraphQL-over-HTTP envelope,
 * the direct reads when given, and the answer's media type and size.
 */
export function graphqlRouteHooks(options: {
  path: string;
  db: Database;
  environment: Environment;
  keyCache: ApiKeyCache<ApiKeyRecord>;
  /** Run before Mercurius, in order, and each may answer itself (see direct-reads.ts, compiled-reads.ts). */
  preHandler?: ((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>)[];
}): (route: RouteOptions) => void {
  return (route) => {
    if (route.url !== options.path) return;
    // The key is checked here, so the rate limiter may count the request against it (rate-limit.ts); traces
    // and metrics name its requests by operation (observability/graphql-operation.ts).
    route.config = { ...route.config, apiKey: true, graphql: true };
    route.onRequest = [...[route.onRequest ?? []].flat(), apiKeyCheck(options)];
    route.preValidation = [...[route.preValidation ?? []].flat(), checkGraphQLEnvelope];
    if (options.preHandler) route.preHandler = [...[route.preHandler ?? []].flat(), ...options.preHandler];
    route.onSend = [
      ...[route.onSend ?? []].flat(),
      (request, reply, payload, done) => {
        done(null, finishGraphQLAnswer(request, reply, payload));
      },
    ];
  };
}

/**
 * Mercurius' hooks on an encapsulated GraphQL plugin: a GET names the operation to run before it is parsed
 * further, and no operation runs whose estimated cost passes `limits.cost`.
 */
export function addOperationHooks(graphql: FastifyInstance, limits: GraphQLLimits): void {
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
}

/** Mercurius' `errorFormatter`: every answer with errors through {@link formatGraphQLErrors}, with `Retry-After`. */
export function errorFormatter(
  execution: ExecutionResult,
  context: MercuriusContext,
): ReturnType<typeof formatGraphQLErrors> {
  const formatted = formatGraphQLErrors(execution, context.reply.request.id, context.reply.log);
  if (formatted.retryAfterSeconds !== undefined) {
    void context.reply.header('retry-after', formatted.retryAfterSeconds);
  }
  return formatted;
}

/** Mercurius' `errorHandler`, for errors outside execution (e.g. 401): the same shape, status and `Retry-After`. */
export async function errorHandler(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { statusCode, response, retryAfterSeconds } = formatGraphQLErrors(
    { errors: [error as never] },
    request.id,
    request.log,
  );
  if (retryAfterSeconds !== undefined) void reply.header('retry-after', retryAfterSeconds);
  return reply.code(statusCode).send(response);
}
