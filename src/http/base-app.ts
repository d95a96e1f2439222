import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { RequestListener, Server } from 'node:http';
import { AppError, ERROR_STATUS, INTERNAL_MESSAGE, type ErrorCode } from '../errors.ts';
import { createHttpsOnlyServer } from './https-only-server.ts';
import { requestIdFor } from './request-id.ts';
import type { Queryable } from '../db/database.ts';
import type { TlsMaterial } from './tls.ts';

export interface BaseAppOptions {
  /** Present when the app will listen (`serve`); tests that only `inject()` leave it out. */
  tls?: Pick<TlsMaterial, 'cert' | 'key'>;
  trustProxy?: boolean;
  /** Where the app logs (see `createLogger`); silent when absent. */
  logger?: FastifyBaseLogger;
  /** The service's database: `GET /readyz` answers ok while it answers. */
  db: Queryable;
  /** Options of the Ajv that validates route schemas (Fastify's defaults otherwise). */
  ajv?: FastifyServerOptions['ajv'];
}

const STATUS_CODES = new Map<number, ErrorCode>([
  [400, 'BAD_USER_INPUT'],
  [401, 'UNAUTHENTICATED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [405, 'METHOD_NOT_ALLOWED'],
  [409, 'CONFLICT'],
  [413, 'PAYLOAD_TOO_LARGE'],
  [415, 'BAD_USER_INPUT'],
  [429, 'RATE_LIMITED'],
  [503, 'SERVICE_UNAVAILABLE'],
]);

/** What a client may see of any error: its code, status and message; unexpected errors are masked. */
export function describeError(error: unknown): {
  code: ErrorCode;
  status: number;
  message: string;
  details?: Record<string, unknown>;
  expected: boolean;
} {
  if (error instanceof AppError) {
    return {
      code: error.code,
      status: error.status,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      expected: true,
    };
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  const code = status === undefined ? undefined : STATUS_CODES.get(status);
  if (code !== undefined && status !== undefined && status < 500) {
    return { code, status, message: fastifyError.message ?? code, expected: true };
  }
  return {
    code: 'INTERNAL_SERVER_ERROR',
    status: ERROR_STATUS.INTERNAL_SERVER_ERROR,
    message: INTERNAL_MESSAGE,
    expected: false,
  };
}

/**
 * The Fastify instance both services start from: HTTPS-only listener, request ids, JSON errors in the
 * `{"error": {code, message, requestId}}` shape, JSON 404s and health routes. It does not listen.
 */
export function createBaseApp(options: BaseAppOptions): FastifyInstance {
  const tls = options.tls;
  const serverOptions: FastifyServerOptions = {
    ...(tls
      ? {
          // Fastify only listens on, addresses and closes the server it is given, which the polyglot
          // TLS/plain-HTTP server does like an http.Server.
          serverFactory: (handler: RequestListener) =>
            createHttpsOnlyServer(
              { tls, trustProxy: options.trustProxy ?? false },
              handler,
            ) as unknown as Server,
        }
      : {}),
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    trustProxy: options.trustProxy ?? false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: 1024 * 1024,
    ...(options.ajv ? { ajv: options.ajv } : {}),
    forceCloseConnections: true,
    return503OnClosing: true,
  };
  const app = Fastify(serverOptions);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const described = describeError(error);
    if (described.expected) request.log.info({ code: described.code }, described.message);
    else request.log.error({ err: error }, 'unexpected error');
    return reply.code(described.status).send({
      error: {
        code: described.code,
        message: described.message,
        requestId: request.id,
        ...(described.details ? { details: described.details } : {}),
      },
    });
  });

  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({
      error: {
        code: 'NOT_FOUND',
        message: `Nothing here: ${request.method} ${request.url.split('?')[0] ?? ''}`,
        requestId: request.id,
      },
    }),
  );

  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await options.db.query('select 1');
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  return app;
}
