import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Observe } from './bound-histogram.ts';
import type { Metrics } from './metrics.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The process's metrics when it reports them, else null: what routes and hooks count in (rate-limit
     * refusals, sign-in failures, console streams). Set by {@link instrumentApp}.
     */
    metrics: Metrics | null;
  }
  interface FastifyContextConfig {
    /**
     * The route answers with a stream that lasts as long as the client keeps it open (server-sent events): its
     * duration says nothing of latency, so it is left out of `portico_http_request_duration_seconds`.
     */
    stream?: boolean;
  }
}

/** The path the service ports answer metrics on, when `PORTICO_METRICS_TOKEN` is set. */
export const METRICS_PATH = '/metrics';

/** What a deployment gives both services' apps: the process's metrics, and the token of `GET /metrics`. */
export interface MetricsSettings {
  metrics: Metrics;
  /**
   * `GET /metrics` on the service's port answers the process's metrics to `Authorization: Bearer <token>`, and
   * 404 to anything else, as a path that does not exist. @default undefined: no `/metrics` on the service ports
   */
  token?: string | undefined;
}

/** What `createBaseApp` instruments an app with; each service adds its name (and GraphQL operations). */
export interface RequestMetricsOptions extends MetricsSettings {
  /** The `service` label: `transactions` or `portfolio`. */
  service: string;
  /** The GraphQL endpoint, whose answers are labelled with their operation's name. */
  graphql?: { path: string; operationName: (request: FastifyRequest) => string | undefined };
}

/** The `route` label of requests that matched no route: their paths never become labels. */
const UNMATCHED = 'unmatched';

/** Equal in constant time: both sides hashed first, so neither their contents nor their lengths leak. */
function sameToken(given: string, expectedHash: Buffer): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), expectedHash);
}

/**
 * The observer of each label set one route has answered with, by method, status and GraphQL operation (all
 * bounded: HTTP's methods, the statuses the app sends, {@link Metrics.operationLabel}'s names), bound at its
 * first answer: the answers after it take three map lookups and no labels object.
 */
function routeObservers(
  metrics: Metrics,
  service: string,
  route: string,
): (method: string, status: number, operation: string) => Observe {
  const byMethod = new Map<string, Map<number, Map<string, Observe>>>();
  return (method, status, operation) => {
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map<number, Map<string, Observe>>()));
    let byOperation = byStatus.get(status);
    if (byOperation === undefined) byStatus.set(status, (byOperation = new Map<string, Observe>()));
    let observe = byOperation.get(operation);
    if (observe === undefined) {
      observe = metrics.requestDuration.bind({ service, method, route, status, operation });
      byOperation.set(operation, observe);
    }
    return observe;
  };
}

/**
 * Decorates `app.metrics` (null without metrics) and, with metrics, times every answer into
 * `portico_http_request_duration_seconds`: per route, with the route's template as its label (a hook added as
 * each route is registered, so nothing is looked up per request), and once for whatever matched no route (label
 * `unmatched`). The time is Fastify's own (`reply.elapsedTime`, taken for every request anyway), counted through
 * an observer bound once per label set. With a token, also answers `GET /metrics`.
 */
export function instrumentApp(app: FastifyInstance, options: RequestMetricsOptions | undefined): void {
  app.decorate('metrics', options?.metrics ?? null);
  if (!options) return;
  const { metrics, service, graphql } = options;

  /** The GraphQL operation's label: its name unless the request was refused before it ran (4xx). */
  const operationOf = (request: FastifyRequest, status: number): string => {
    if (!graphql || (status >= 400 && status < 500)) return '';
    const name = graphql.operationName(request);
    return name === undefined ? 'anonymous' : metrics.operationLabel(name);
  };

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.stream === true) return;
    const template = route.url;
    const isGraphQL = graphql !== undefined && template === graphql.path;
    const observerOf = routeObservers(metrics, service, template);
    const observe = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const status = reply.statusCode;
      observerOf(
        request.method,
        status,
        isGraphQL ? operationOf(request, status) : '',
      )(reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), observe];
  });
  const unmatchedObserverOf = routeObservers(metrics, service, UNMATCHED);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatchedObserverOf(request.method, reply.statusCode, '')(reply.elapsedTime / 1000);
    done();
  });

  if (options.token === undefined) return;
  const expected = createHash('sha256').update(options.token).digest();
  app.get(METRICS_PATH, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    // Refused as a path that does not exist: a scanner learns nothing, not even that metrics are here.
    if (match?.[1] === undefined || !sameToken(match[1], expected)) {
      reply.callNotFound();
      return reply;
    }
    return reply
      .header('content-type', metrics.contentType)
      .header('cache-control', 'no-store')
      .send(await metrics.text());
  });
}
