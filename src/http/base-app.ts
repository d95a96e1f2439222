import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
} from 'fastify';
import type { RequestListener, Server } from 'node:http';
import { describeError, errorBody } from '../errors.ts';
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
    if (described.retryAfterSeconds !== undefined)
      void reply.header('retry-after', described.retryAfterSeconds);
    return reply.code(described.status).send(errorBody(described, request.id));
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
