import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { RequestListener, Server } from 'node:http';
import { AppError, describeError, errorBody, pathPartTooLong, quote } from '../errors.ts';
import { checkJsonInput } from '../validation/json-input.ts';
import { answerClientError, createHttpsOnlyServer, type ConnectionLimits } from './https-only-server.ts';
import { registerHealthRoutes, type ReadinessChecks } from './health/readiness.ts';
import { registerRateLimit, type RateLimitOptions } from './rate-limit.ts';
import { requestIdFor } from './request-id.ts';
import { JSON_ANSWER_HEADERS, registerSecurityHeaders } from './security-headers.ts';
import { decoratePresentedKeyHash } from './presented-key.ts';
import type { Queryable } from '../db/database.ts';
import type { TlsMaterial } from './tls.ts';
import { instrumentApp, type RequestMetricsOptions } from '../observability/request-metrics.ts';
import { requestLog } from '../observability/request-log.ts';
import { activeTracing } from '../observability/tracing.ts';
import { lazySerializers, lazyValidators } from './lazy-compilers.ts';
import { schemaErrorFormatter, type SchemaErrorWording } from '../validation/schema-errors.ts';

/** What `createBaseApp` builds both services' apps from. */
export interface BaseAppOptions {
  /** Present when the app will listen (`serve`); tests that only `inject()` leave it out. */
  tls?: Pick<TlsMaterial, 'cert' | 'key'>;
  /**
   * Whether a TLS-terminating proxy stands in front: plain HTTP is then accepted with
   * `X-Forwarded-Proto: https`, and the client address (logs, per-address rate limits) is read from
   * `X-Forwarded-For`. @default false
   */
  trustProxy?: boolean;
  /** Where the app logs (see `createLogger`); silent when absent. */
  logger?: FastifyBaseLogger;
  /** The service's database: `GET /readyz` answers ok while it answers. */
  db: Queryable;
  /** Options of the Ajv that validates route schemas (Fastify's defaults otherwise). */
  ajv?: FastifyServerOptions['ajv'];
  /** How refusals of the service's route schemas read (see `schemaErrorFormatter`). @default its defaults */
  schemaErrors?: SchemaErrorWording;
  /** Timeouts and the per-address connection cap of the listener. @default DEFAULT_CONNECTION_LIMITS */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Browser origins allowed to call the API (CORS), e.g. `https://app.example.com`. @default none */
  corsOrigins?: readonly string[];
  /** What `GET /readyz` checks besides the database (S3 storage); the rate limits' Redis is added. @default none */
  readiness?: ReadinessChecks | undefined;
  /** Rate limits; none when absent (`serve` always sets them from the configuration). */
  rateLimit?: RateLimitOptions | undefined;
  /**
   * Whether the process is stopping (SIGTERM): `GET /readyz` then answers `503 {"status":"draining"}` while every
   * other route still serves, so that a load balancer stops sending before the listener closes. @default never
   */
  draining?: (() => boolean) | undefined;
  /** Told of every route as it is registered, with its schema (Fastify's `onRoute`): how a test lists them. */
  onRoute?: ((route: RouteOptions) => void) | undefined;
  /** Request series and `GET /metrics` (observability/request-metrics.ts); none when absent. */
  metrics?: RequestMetricsOptions | undefined;
}

/** Headers a browser app may send to either API, and read from its answers. */
const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-request-id'];
const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
];

/** Fastify's refusals before routing, with messages that say what to change. */
function frameworkError(error: Error & { code?: string }): unknown {
  if (error.code === 'FST_ERR_BAD_URL') {
    return new AppError('BAD_USER_INPUT', 'The path is not valid percent-encoding (RFC 3986).');
  }
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return pathPartTooLong(100);
  }
  return error;
}

/**
 * The Fastify instance both services start from: HTTPS-only listener with connection limits, request ids,
 * JSON errors in the `{"error": {code, message, requestId}}` shape (also for what Node's parser refuses),
 * JSON 404s, `nosniff` on every answer and `no-store` on every JSON answer (security-headers.ts), health routes,
 * CORS, rate limits and the check of every JSON input. It does not listen.
 */
export async function createBaseApp(options: BaseAppOptions): Promise<FastifyInstance> {
  const tls = options.tls;
  // Each request is a span while the process traces (observability/tracing.ts); nothing is added otherwise.
  const tracing = activeTracing();
  const serverOptions: FastifyServerOptions = {
    ...(tls
      ? {
          // Fastify only listens on, addresses and closes the server it is given, which the polyglot
          // TLS/plain-HTTP server does like an http.Server.
          serverFactory: (handler: RequestListener) =>
            createHttpsOnlyServer(
              { tls, trustProxy: options.trustProxy ?? false, limits: options.connectionLimits ?? {} },
              handler,
            ) as unknown as Server,
        }
      : {}),
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    trustProxy: options.trustProxy ?? false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: requestLog(),
    ...tracing?.serverOptions(),
    bodyLimit: 1024 * 1024,
    // Validators and serializers compiled on each route's first use, not for every route at start (lazy-compilers.ts).
    schemaController: {
      compilersFactory: { buildValidator: lazyValidators(), buildSerializer: lazySerializers },
    },
    ...(options.ajv ? { ajv: options.ajv } : {}),
    clientErrorHandler: answerClientError,
    // What Fastify refuses before routing (a path that is not valid percent-encoding, an over-long path
    // parameter) gets our JSON shape and a request id too, instead of Fastify's own body; no hook runs for it, so
    // it carries the headers of every JSON answer itself.
    frameworkErrors: (error, request, reply) => {
      const described = describeError(frameworkError(error));
      void (reply as FastifyReply)
        .header('x-request-id', request.id)
        .headers(JSON_ANSWER_HEADERS)
        .code(described.status)
        .send(errorBody(described, request.id));
    },
    forceCloseConnections: true,
    // A request that reached the node before its listener closed is answered, not refused: a proxy has sent it
    // already and does not resend a POST elsewhere (nginx), so a 503 here would be a failed request.
    return503OnClosing: false,
  };
  const app = Fastify(serverOptions);
  tracing?.register(app);
  const { draining } = options;
  if (draining) {
    // While the node drains, every answer ends its connection: a client or proxy that keeps connections to this
    // node opens new ones, which the closed listener then refuses and it sends elsewhere, instead of sending on a
    // connection the closing server is about to drop.
    app.addHook('onRequest', (_request, reply, done) => {
      if (draining()) void reply.header('connection', 'close');
      done();
    });
  }
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  instrumentApp(app, options.metrics);

  decoratePresentedKeyHash(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerSecurityHeaders(app);

  // Every refusal of a route schema names the parameter or field and says what it must be, in words.
  app.setSchemaErrorFormatter(schemaErrorFormatter(options.schemaErrors));

  app.setErrorHandler(async (error, request, reply) => {
    const described = describeError(error);
    // Client mistakes are logged below warn; a database outage (503) is a warning; our own faults are errors.
    if (described.expected && described.status >= 500) request.log.warn({ err: error }, described.message);
    else if (described.expected) request.log.info({ code: described.code }, described.message);
    else request.log.error({ err: error }, 'unexpected error');
    if (described.retryAfterSeconds !== undefined)
      void reply.header('retry-after', described.retryAfterSeconds);
    return reply.code(described.status).send(errorBody(described, request.id));
  });

  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send(
      errorBody(
        {
          code: 'NOT_FOUND',
          message: `Nothing here: ${request.method} ${quote(request.url.split('?')[0] ?? '', 200)}`,
        },
        request.id,
      ),
    ),
  );

  // Every body and query string, before any route reads it: nothing nested without bound, and no text that
  // PostgreSQL cannot store, reaches the domain (see validation/json-input.ts).
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      checkJsonInput(request.body, 'body');
      checkJsonInput(request.query, 'query');
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });

  if (options.corsOrigins && options.corsOrigins.length > 0) {
    const corsOptions: FastifyCorsOptions = {
      origin: [...options.corsOrigins],
      credentials: false,
      methods: ['GET', 'HEAD', 'POST'],
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    };
    await app.register(cors, {
      // Only a real preflight (OPTIONS with Origin and Access-Control-Request-Method, neither empty: the
      // plugin's own test) is the plugin's to answer; any other OPTIONS request is the routes' (Portfolio's
      // 405, else a JSON 404), instead of the plugin's plain-text 400 "Invalid Preflight Request".
      delegator: (request, callback) => {
        const preflight =
          Boolean(request.headers.origin) && Boolean(request.headers['access-control-request-method']);
        callback(null, request.method !== 'OPTIONS' || preflight ? corsOptions : { origin: false });
      },
    });
  }
  const limits = options.rateLimit ? await registerRateLimit(app, options.rateLimit) : undefined;

  registerHealthRoutes(app, options.db, {
    required: options.readiness?.required ?? {},
    draining: options.draining,
    optional: { ...options.readiness?.optional, ...(limits?.redis ? { redis: limits.redis } : {}) },
  });

  return app;
}
