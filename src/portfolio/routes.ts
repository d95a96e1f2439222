import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { PortfolioCaller } from './authenticate.ts';
import type { Cursors, ListName } from './cursor.ts';
import { listPage } from './lists.ts';
import {
  Company,
  CompanyInvestment,
  CompanyParams,
  CompanyUpdate,
  ErrorBody,
  Fund,
  ListQuery,
  envelope,
  ref,
  type ListQueryValues,
} from './records.ts';

const CompanyList = envelope(ref(Company), 'CompanyList', 'A page of companies.');
const CompanyUpdateList = envelope(ref(CompanyUpdate), 'CompanyUpdateList', 'A page of company updates.');
const CompanyInvestmentList = envelope(
  ref(CompanyInvestment),
  'CompanyInvestmentList',
  'A page of company investments.',
);

const ERROR_MEANINGS: Record<number, string> = {
  400: 'A query or path parameter is invalid (BAD_USER_INPUT), or the cursor is not one this walk handed out (INVALID_CURSOR).',
  401: 'The API key is missing, malformed, unknown or revoked (UNAUTHENTICATED).',
  404: 'The instance has no such company (NOT_FOUND).',
  500: 'Something failed on our side (INTERNAL_SERVER_ERROR); quote the requestId to support.',
};

const errors = (statuses: number[]): Record<number, TSchema> =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      Type.Unsafe({ $ref: ErrorBody.$id, description: ERROR_MEANINGS[status] }),
    ]),
  );

interface Endpoint {
  list: ListName;
  path: string;
  operationId: string;
  summary: string;
  description: string;
  page: TSchema;
}

const ENDPOINTS: Endpoint[] = [
  {
    list: 'companies',
    path: '/companies',
    operationId: 'listCompanies',
    summary: 'List companies with their funds',
    description: 'Companies in the order they were added (createdAt, then id), oldest first.',
    page: CompanyList,
  },
  {
    list: 'updates',
    path: '/company/:id/updates',
    operationId: 'listCompanyUpdates',
    summary: 'List the updates of a company',
    description: 'Updates by updateDate, newest first, then by id (descending).',
    page: CompanyUpdateList,
  },
  {
    list: 'investments',
    path: '/company/:id/investments',
    operationId: 'listCompanyInvestments',
    summary: 'List the investments in a company',
    description: 'Investments by date, newest first, then by id (descending).',
    page: CompanyInvestmentList,
  },
];

function callerOf(request: FastifyRequest): PortfolioCaller {
  if (!request.portfolioCaller) throw new Error('the route ran without authentication');
  return request.portfolioCaller;
}

/**
 * The routes under the base path: the three lists (authenticated by the key), the OpenAPI document (public),
 * and 405 for every other method on the lists' paths.
 */
export async function registerPortfolioRoutes(
  app: FastifyInstance,
  options: {
    db: Queryable;
    cursors: Cursors;
    basePath: string;
    authenticate: (request: FastifyRequest) => Promise<unknown>;
  },
): Promise<void> {
  const { db, cursors, basePath } = options;
  for (const schema of [Fund, Company, CompanyUpdate, CompanyInvestment, ErrorBody]) app.addSchema(schema);
  for (const schema of [CompanyList, CompanyUpdateList, CompanyInvestmentList]) app.addSchema(schema);

  await app.register(
    (api, _options, done) => {
      api.addHook('onRequest', async (request, reply) => {
        reply.header('cache-control', 'no-store');
        await options.authenticate(request);
      });
      for (const endpoint of ENDPOINTS) {
        api.get<{ Querystring: ListQueryValues; Params: Partial<Static<typeof CompanyParams>> }>(
          endpoint.path,
          {
            schema: {
              operationId: endpoint.operationId,
              summary: endpoint.summary,
              description: endpoint.description,
              tags: ['portfolio'],
              querystring: ListQuery,
              ...(endpoint.list === 'companies' ? {} : { params: CompanyParams }),
              response: { 200: ref(endpoint.page), ...errors([400, 401, 404, 500]) },
            },
          },
          async (request) =>
            listPage(db, cursors, endpoint.list, {
              instanceId: callerOf(request).instanceId,
              ...(request.params.id === undefined ? {} : { companyId: request.params.id }),
              limit: request.query.limit ?? 50,
              cursor: request.query.cursor,
              updatedSince: request.query.updatedSince,
            }),
        );
      }
      done();
    },
    { prefix: basePath },
  );

  app.get(`${basePath}/openapi.json`, { schema: { hide: true } }, () => app.swagger());

  for (const endpoint of ENDPOINTS) {
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: `${basePath}${endpoint.path}`,
      schema: { hide: true },
      handler: (request, reply) => {
        void reply.header('allow', 'GET, HEAD');
        throw new AppError(
          'METHOD_NOT_ALLOWED',
          `${request.method} is not allowed here: the Portfolio API is read-only, use GET.`,
        );
      },
    });
  }
}
