import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { ListName } from './cursor.ts';
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
} from './records.ts';

/**
 * The Portfolio API's endpoints as data: the three lists with their paths, parameters, responses and the words
 * that describe them. The routes are registered from it and the OpenAPI document is built from it, so the
 * document cannot drift from what the routes validate and serialize.
 */

/** Where the Portfolio API is served. */
export const PORTFOLIO_BASE_PATH = '/v1/external';

const CompanyList = envelope(ref(Company), 'CompanyList', 'A page of companies.');
const CompanyUpdateList = envelope(ref(CompanyUpdate), 'CompanyUpdateList', 'A page of company updates.');
const CompanyInvestmentList = envelope(
  ref(CompanyInvestment),
  'CompanyInvestmentList',
  'A page of company investments.',
);

/** The schemas routes refer to by $id, in the order the OpenAPI document lists them under components. */
export const SHARED_SCHEMAS: TObject[] = [
  Fund,
  Company,
  CompanyUpdate,
  CompanyInvestment,
  ErrorBody,
  CompanyList,
  CompanyUpdateList,
  CompanyInvestmentList,
];

const ERROR_MEANINGS: Record<number, string> = {
  400: 'A query or path parameter is invalid (BAD_USER_INPUT), or the cursor is not one this walk handed out (INVALID_CURSOR).',
  401: 'The API key is missing, malformed, unknown or revoked (UNAUTHENTICATED).',
  404: 'The instance has no such company (NOT_FOUND).',
  500: 'Something failed on our side (INTERNAL_SERVER_ERROR); quote the requestId to support.',
};

/** A list endpoint: one GET route and one operation of the OpenAPI document. */
export interface ListEndpoint {
  list: ListName;
  /** The path under the base path, in Fastify's form (`:id`). */
  path: string;
  operationId: string;
  summary: string;
  description: string;
}

/** The three lists, in the order the OpenAPI document shows them. */
export const LIST_ENDPOINTS: ListEndpoint[] = [
  {
    list: 'companies',
    path: '/companies',
    operationId: 'listCompanies',
    summary: 'List companies with their funds',
    description: 'Companies in the order they were added (createdAt, then id), oldest first.',
  },
  {
    list: 'updates',
    path: '/company/:id/updates',
    operationId: 'listCompanyUpdates',
    summary: 'List the updates of a company',
    description: 'Updates by updateDate, newest first, then by id (descending).',
  },
  {
    list: 'investments',
    path: '/company/:id/investments',
    operationId: 'listCompanyInvestments',
    summary: 'List the investments in a company',
    description: 'Investments by date, newest first, then by id (descending).',
  },
];

const PAGES: Record<ListName, TObject> = {
  companies: CompanyList,
  updates: CompanyUpdateList,
  investments: CompanyInvestmentList,
};

/** What a list route validates and serializes: its query, its path (for a company's lists) and its answers. */
export interface ListRouteSchema {
  querystring: TObject;
  params?: TObject;
  /** By status; the page and the error body are referenced by $id. */
  response: Record<number, TSchema>;
}

/** The route schema of a list endpoint. */
export function listRouteSchema(endpoint: ListEndpoint): ListRouteSchema {
  const errors = Object.fromEntries(
    Object.entries(ERROR_MEANINGS).map(([status, meaning]) => [
      status,
      Type.Unsafe({ $ref: ErrorBody.$id, description: meaning }),
    ]),
  );
  return {
    querystring: ListQuery,
    ...(endpoint.list === 'companies' ? {} : { params: CompanyParams }),
    response: { 200: ref(PAGES[endpoint.list]), ...errors },
  };
}
