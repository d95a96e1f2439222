import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { readOnly } from '../errors.ts';
import type { PortfolioCaller } from './authenticate.ts';
import type { Cursors } from './cursor.ts';
import { LIST_ENDPOINTS, SHARED_SCHEMAS, listRouteSchema } from './endpoints.ts';
import { listPage } from './lists.ts';
import { buildPortfolioOpenApi } from './openapi-document.ts';
import { DEFAULT_LIMIT, type CompanyParams, type ListQueryValues } from './records.ts';

function callerOf(request: FastifyRequest): PortfolioCaller {
  if (!request.portfolioCaller) throw new Error('the route ran without authentication');
  return request.portfolioCaller;
}

/**
 * The routes under the base path: the three lists (authenticated by the key), the OpenAPI document (public),
 * and 405 for every other method on the lists' paths. Each list route hands its parsed query to `listPage`.
 */
export async function registerPortfolioRoutes(
  app: FastifyInstance,
  options: {
    db: Queryable;
    cursors: Cursors;
    basePath: string;
    /** The deployment's public address, named as the OpenAPI document's server. */
    publicUrl?: string | undefined;
    authenticate: (request: FastifyRequest) => Promise<unknown>;
  },
): Promise<void> {
  const { db, cursors, basePath } = options;
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);

  await app.register(
    (api, _options, done) => {
      api.addHook('onRequest', async (request) => {
        await options.authenticate(request);
      });
      for (const endpoint of LIST_ENDPOINTS) {
        api.get<{ Querystring: ListQueryValues; Params: Partial<Static<typeof CompanyParams>> }>(
          endpoint.path,
          // The key is checked here, so the rate limiter may count the request against it (rate-limit.ts).
          { schema: listRouteSchema(endpoint), config: { apiKey: true } },
          async (request) =>
            listPage(
              { db, cursors },
              {
                list: endpoint.list,
                instanceId: callerOf(request).instanceId,
                ...(request.params.id === undefined ? {} : { companyId: request.params.id }),
                limit: request.query.limit ?? DEFAULT_LIMIT,
                cursor: request.query.cursor,
                updatedSince: request.query.updatedSince,
              },
            ),
        );
      }
      done();
    },
    { prefix: basePath },
  );

  // Built once: the document depends on nothing but the records and the configured address.
  const document = buildPortfolioOpenApi(
    options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl },
  );
  app.get(`${basePath}/openapi.json`, () => document);

  for (const endpoint of LIST_ENDPOINTS) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${basePath}${endpoint.path}`,
      handler: (request, reply) => {
        void reply.header('allow', 'GET, HEAD');
        throw readOnly(request.method);
      },
    });
  }
}
