import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { portfolioOpenApiDocument } from '../../src/portfolio/openapi-document.ts';
import { transactionsSdl } from '../../src/transactions/graphql/sdl.ts';
import {
  graphqlBreakingChanges,
  graphqlChangeName,
  openApiBreakingChanges,
  unnamedBreakingChanges,
  unreleasedBreakingSection,
  type BreakingChange,
} from '../support/breaking-changes.ts';
import { ROOT } from '../support/cli.ts';

/**
 * A client generated from a release keeps working after an upgrade unless CHANGELOG.md says otherwise: every
 * change from the last release's contracts (docs/released/<version>/) to the current ones that would break it is
 * named under `### Breaking` in `## Unreleased`.
 */

const RELEASED_DIR = join(ROOT, 'docs/released');

/** Compares dotted versions number by number. */
function byVersion(a: string, b: string): number {
  const [left, right] = [a, b].map((version) => version.split('.').map(Number));
  for (let index = 0; index < Math.max(left?.length ?? 0, right?.length ?? 0); index += 1) {
    const difference = (left?.[index] ?? 0) - (right?.[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** What the developer reads when a breaking change is not in the changelog. */
function explained(unnamed: BreakingChange[], release: string): string {
  return [
    `${unnamed.length} change(s) since ${release} would break a client generated from ${release}'s contracts.`,
    'Either keep the contract compatible, or name each change (the part before ":") under "### Breaking" in',
    '"## Unreleased" of CHANGELOG.md, with what an integrator has to do:',
    ...unnamed.map((change) => `  ${change.name}: ${change.description}`),
  ].join('\n');
}

describe('the changelog for integrators', () => {
  it('keeps the contracts of the newest release of CHANGELOG.md in docs/released/<version>/', async () => {
    const changelog = await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8');
    const newest = /^## (\d+\.\d+\.\d+) - /m.exec(changelog)?.[1];
    expect(newest).toBeDefined();
    const kept = (await readdir(RELEASED_DIR)).toSorted(byVersion);
    expect(kept.at(-1)).toBe(newest);
    expect((await readdir(join(RELEASED_DIR, String(newest)))).toSorted()).toEqual([
      'portfolio.openapi.json',
      'transactions.graphql',
    ]);
  });

  it('names every change since the last release that breaks a client under "### Breaking" of "## Unreleased"', async () => {
    const release = (await readdir(RELEASED_DIR)).toSorted(byVersion).at(-1) ?? '';
    const released = (name: string) => readFile(join(RELEASED_DIR, release, name), 'utf8');
    const changes = [
      ...graphqlBreakingChanges(
        buildSchema(await released('transactions.graphql')),
        buildSchema(transactionsSdl()),
      ),
      ...openApiBreakingChanges(
        JSON.parse(await released('portfolio.openapi.json')),
        JSON.parse(portfolioOpenApiDocument()),
      ),
    ];
    const unnamed = unnamedBreakingChanges(changes, await readFile(join(ROOT, 'CHANGELOG.md'), 'utf8'));
    expect(unnamed, explained(unnamed, release)).toEqual([]);
  });
});

// The checker itself, on small contracts.

const SCHEMA = `
  type Query { company(id: ID!): Company, companies(first: Int): [Company!]! }
  type Company { id: ID!, name: String!, stage: Stage }
  enum Stage { SEED, SERIES_A }
`;

describe('the GraphQL schema check', () => {
  const changesTo = (after: string) => graphqlBreakingChanges(buildSchema(SCHEMA), buildSchema(after));

  it('finds nothing when a field or an optional argument is added', () => {
    expect(
      changesTo(`
        type Query { company(id: ID!, asOf: String): Company, companies(first: Int): [Company!]! }
        type Company { id: ID!, name: String!, stage: Stage, website: String }
        enum Stage { SEED, SERIES_A, SERIES_B }
      `),
    ).toEqual([]);
  });

  it('names a removed field by its Type.field', () => {
    const changes = changesTo(SCHEMA.replace(', name: String!', ''));
    expect(changes.map((change) => change.name)).toEqual(['Company.name']);
    expect(changes[0]?.description).toMatch(/removed/);
  });

  it('names a type change, a removed enum value and a required argument added', () => {
    const changes = changesTo(
      SCHEMA.replace('name: String!', 'name: Int!')
        .replace(', SERIES_A', '')
        .replace('companies(first: Int)', 'companies(first: Int, after: String!)'),
    );
    expect(changes.map((change) => change.name).toSorted()).toEqual([
      'Company.name',
      'Query.companies',
      'Stage.SERIES_A',
    ]);
  });

  it('names a removed type and a required input field by the type', () => {
    expect(graphqlChangeName('Company was removed.')).toBe('Company');
    expect(graphqlChangeName('A required field since on input type Filter was added.')).toBe('Filter.since');
  });
});

type OpenApi = Parameters<typeof openApiBreakingChanges>[0];

/** A small OpenAPI document: one list whose items are a shared schema. */
function openApi(company: Record<string, unknown>, operation: Record<string, unknown> = {}): OpenApi {
  return {
    openapi: '3.1.0',
    paths: {
      '/companies': {
        get: {
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
          responses: {
            200: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { data: { type: 'array', items: { $ref: 'Company' } } },
                  },
                },
              },
            },
          },
          ...operation,
        },
      },
    },
    components: { schemas: { Company: { type: 'object', properties: company } } },
  } as unknown as OpenApi;
}

const COMPANY = {
  id: { type: 'string' },
  name: { type: 'string' },
  stage: { anyOf: [{ type: 'string', enum: ['seed', 'series_a'] }, { type: 'null' }] },
};

describe('the OpenAPI document check', () => {
  const changesTo = (company: Record<string, unknown>, operation?: Record<string, unknown>) =>
    openApiBreakingChanges(openApi(COMPANY), openApi(company, operation));

  it('finds nothing when an optional property or an optional parameter is added', () => {
    expect(
      changesTo(
        { ...COMPANY, website: { type: ['string', 'null'] } },
        {
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer' } },
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ],
        },
      ),
    ).toEqual([]);
  });

  it('names a response property removed behind a reference by its method, path, status and property', () => {
    const { id, stage } = COMPANY;
    expect(changesTo({ id, stage }).map((change) => change.name)).toEqual(['GET /companies 200.data[].name']);
  });

  it('names a type changed, null now answered and an enum value removed', () => {
    const changes = changesTo({
      id: { type: 'integer' },
      name: { type: ['string', 'null'] },
      stage: { anyOf: [{ type: 'string', enum: ['seed'] }, { type: 'null' }] },
    });
    expect(changes.map((change) => change.name)).toEqual([
      'GET /companies 200.data[].id',
      'GET /companies 200.data[].name',
      'GET /companies 200.data[].stage',
    ]);
    expect(changes[2]?.description).toMatch(/"series_a"/);
  });

  it('names a required parameter added, a parameter removed and a request body property now required', () => {
    const body = (required: string[]) => ({
      requestBody: {
        content: {
          'application/json': {
            schema: { type: 'object', properties: { note: { type: 'string' } }, required },
          },
        },
      },
    });
    const before = openApi(COMPANY, body([]));
    const after = openApi(COMPANY, {
      ...body(['note']),
      parameters: [{ name: 'since', in: 'query', required: true, schema: { type: 'string' } }],
    });
    expect(
      openApiBreakingChanges(before, after)
        .map((change) => change.name)
        .toSorted(),
    ).toEqual(['GET /companies body.note', 'GET /companies query limit', 'GET /companies query since']);
  });

  it('names a removed method and a removed path', () => {
    const before = openApi(COMPANY);
    const withPost = structuredClone(before) as { paths: Record<string, Record<string, unknown>> };
    const list = withPost.paths['/companies'];
    if (list) list.post = {};
    expect(openApiBreakingChanges(withPost as OpenApi, before).map((change) => change.name)).toEqual([
      'POST /companies',
    ]);
    expect(openApiBreakingChanges(before, { ...before, paths: {} })).toEqual([
      { name: '/companies', description: 'The path /companies was removed.' },
    ]);
  });
});

describe('the changelog check', () => {
  const change = { name: 'Company.name', description: 'Company.name was removed.' };
  const changelog = (unreleased: string) =>
    `# Changelog\n\n## Unreleased\n\n${unreleased}\n## 0.1.0 - 2026-11-26\n\n### Breaking\n\n- \`Company.name\` old\n`;

  it('passes a change named under "### Breaking" of "## Unreleased"', () => {
    const named = changelog(
      '### Added\n\n- things\n\n### Breaking\n\n- `Company.name` is gone: read `title`.\n\n### Fixed\n\n- x\n',
    );
    expect(unreleasedBreakingSection(named)).toContain('Company.name');
    expect(unnamedBreakingChanges([change], named)).toEqual([]);
  });

  it('fails a change named elsewhere: another section, or an earlier release', () => {
    expect(unnamedBreakingChanges([change], changelog('### Changed\n\n- `Company.name` is gone.\n'))).toEqual(
      [change],
    );
    expect(unnamedBreakingChanges([change], changelog('### Breaking\n\n- nothing else\n'))).toEqual([change]);
  });
});
