import { fileURLToPath } from 'node:url';
import type { TObject, TSchema } from '@sinclair/typebox';
import { PORTFOLIO_KEY_PREFIX } from '../keys/api-key.ts';
import {
  LIST_ENDPOINTS,
  PORTFOLIO_BASE_PATH,
  SHARED_SCHEMAS,
  listRouteSchema,
  type ListEndpoint,
} from './endpoints.ts';

/**
 * The OpenAPI 3.1 document of the Portfolio API, built from the endpoints and their TypeBox records alone: no
 * app, no database, no I/O. The served `/v1/external/openapi.json` and the committed
 * `docs/portfolio.openapi.json` (`npm run schemas`) are both this build.
 */

/** Where the published OpenAPI document of the Portfolio API lives in the repository. */
export const OPENAPI_DOCUMENT_PATH = fileURLToPath(
  new URL('../../docs/portfolio.openapi.json', import.meta.url),
);

/** A JSON value as the document holds it. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const SCHEMAS_POINTER = '#/components/schemas/';
/** The pattern TypeBox gives a record of any string key. */
const ANY_KEY = '^(.*)$';

/**
 * A schema as the document shows it: without its $id (its name under components says it) and with each
 * reference to a shared schema pointing into components. A record of any key reads as additionalProperties,
 * the form OpenAPI tools know best. TypeBox's symbol keys are left out, as in JSON.
 */
function documented(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(documented);
  if (typeof schema !== 'object' || schema === null) return schema as Json;
  const shown: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    const patterns = key === 'patternProperties' ? (value as Record<string, unknown>) : undefined;
    if (patterns !== undefined && Object.keys(patterns).join() === ANY_KEY) {
      shown.additionalProperties = documented(patterns[ANY_KEY]);
      continue;
    }
    shown[key] =
      key === '$ref' && typeof value === 'string' ? `${SCHEMAS_POINTER}${value}` : documented(value);
  }
  return shown;
}

/** The description a referenced shared schema carries, for a response that only names it. */
function describedBy(schema: TSchema): string | undefined {
  const own = schema.description;
  if (typeof own === 'string') return own;
  const named = SHARED_SCHEMAS.find((shared) => shared.$id === schema.$ref);
  return named?.description;
}

/** One parameter entry a property of a query or path schema becomes. */
function parameters(schema: TObject | undefined, place: 'query' | 'path'): Json[] {
  if (schema === undefined) return [];
  const required = schema.required ?? [];
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = documented(property) as Record<string, Json>;
    return {
      schema: rest,
      in: place,
      name,
      required: required.includes(name),
      ...(description === undefined ? {} : { description }),
    };
  });
}

function operation(endpoint: ListEndpoint): Json {
  const route = listRouteSchema(endpoint);
  const responses: Record<string, Json> = {};
  for (const [status, schema] of Object.entries(route.response)) {
    const description = describedBy(schema);
    // The description goes on the response; the schema only names the shape.
    const shape = documented(schema) as Record<string, Json>;
    delete shape.description;
    responses[status] = {
      ...(description === undefined ? {} : { description }),
      content: { 'application/json': { schema: shape } },
    };
  }
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    tags: ['portfolio'],
    description: endpoint.description,
    parameters: [...parameters(route.querystring, 'query'), ...parameters(route.params, 'path')],
    responses,
  };
}

/**
 * The OpenAPI document as an object. `publicUrl` is the deployment's public address, named as its server;
 * without one, a relative `/`: the origin the document itself was fetched from.
 */
export function buildPortfolioOpenApi(options: { publicUrl?: string } = {}): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const endpoint of LIST_ENDPOINTS) {
    const path = `${PORTFOLIO_BASE_PATH}${endpoint.path}`.replace(/:(\w+)/g, '{$1}');
    paths[path] = { get: operation(endpoint) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico Portfolio API',
      version: '1.0.0',
      description: [
        'Read-only export of portfolio data: companies with their funds, company updates and investments.',
        'Every list is a keyset walk: follow `nextCursor` until `hasNextPage` is false. See docs/portfolio.md.',
      ].join('\n\n'),
      // Use of the API is governed by the customer's agreement with its provider; SPDX has no id for that.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: `The API key itself, with no scheme word: \`Authorization: ${PORTFOLIO_KEY_PREFIX}…\`. The key decides the customer instance.`,
        },
      },
      schemas: Object.fromEntries(SHARED_SCHEMAS.map((schema) => [String(schema.$id), documented(schema)])),
    },
    paths,
    servers: [{ url: options.publicUrl ?? '/', description: 'This Portico deployment' }],
    security: [{ apiKey: [] }],
    tags: [{ name: 'portfolio', description: 'Companies, their updates and investments.' }],
  };
}

/** The OpenAPI document as the text of `docs/portfolio.openapi.json` (no public address configured). */
export function portfolioOpenApiDocument(): string {
  return `${JSON.stringify(buildPortfolioOpenApi(), null, 2)}\n`;
}
