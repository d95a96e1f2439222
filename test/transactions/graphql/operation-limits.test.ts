import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, InjectOptions } from 'fastify';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  Lexer,
  Source,
  TokenKind,
  findBreakingChanges,
  findDangerousChanges,
  isObjectType,
  parse,
  type IntrospectionQuery,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_GRAPHQL_LIMITS,
  expandedFieldCount,
  operationCost,
} from '../../../src/transactions/graphql/limits.ts';
import { MAX_RESPONSE_BYTES } from '../../../src/transactions/graphql/request-checks.ts';
import {
  CREATE_TRANSACTION,
  REFERENCE_QUERY,
  graphql,
  transactionInput,
} from '../../support/data/transactions.ts';
import { chainQuery, fanOutQuery } from '../../support/data/graphql-operations.ts';
import type { OrganizationStory, TransactionStory } from '../../support/data/stories.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';

const SDL = readFileSync(
  new URL('../../../src/transactions/graphql/schema.graphql', import.meta.url),
  'utf8',
);
const schema = buildSchema(SDL);

const suite = useTransactionsSuite();
/**
 * The organization the tests send their requests as, made once: they read it (and count its transactions, one
 * in each of three states, the complete one submitted three times); the one test that creates a transaction
 * makes an organization of its own.
 */
let story: OrganizationStory;
/** Its complete transaction. */
let complete: TransactionStory;

beforeAll(async () => {
  story = await suite.tenant({ transactions: ['complete', 'sent', 'created'], rounds: 3 });
  const [first] = story.transactions;
  if (first?.state !== 'complete') throw new Error('the story starts with its complete transaction');
  complete = first;
});

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
  body: Record<string, any>;
}

/**
 * A request to `/beta` with the story key unless `headers` names another: `payload` as given (a string is sent as
 * it is, as JSON).
 */
async function send(
  options: { method?: 'GET' | 'POST'; payload?: unknown; query?: Record<string, string> },
  headers: Record<string, string> = {},
  on: FastifyInstance = suite.app,
): Promise<Answer> {
  const request: InjectOptions = {
    method: options.method ?? 'POST',
    url: '/beta',
    headers: { authorization: `Bearer ${story.apiKey}`, ...headers },
    ...(options.query ? { query: options.query } : {}),
  };
  if (options.payload !== undefined) {
    request.payload = typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
    request.headers = { 'content-type': 'application/json', ...request.headers };
  }
  const response = await on.inject(request);
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}

/** The one error of a request refused as a whole, after checking its status, code and request id. */
function refusal(
  answer: Answer,
  code: string,
  status = 400,
): { message: string; extensions: Record<string, unknown> } {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.data ?? null).toBeNull();
  expect(answer.body.errors).toHaveLength(1);
  const [error] = answer.body.errors;
  expect(error.extensions.code).toBe(code);
  expect(error.extensions.requestId).toBe(answer.headers['x-request-id']);
  return error;
}

/** Every error of a request refused as a whole: a 4xx with the code, never a 500, each with the request id. */
function refusals(answer: Answer, code: string, status = 400): string[] {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.data ?? null).toBeNull();
  expect(answer.body.errors.length).toBeGreaterThan(0);
  for (const error of answer.body.errors) {
    expect(error.extensions.code).toBe(code);
    expect(error.extensions.requestId).toBe(answer.headers['x-request-id']);
  }
  return answer.body.errors.map((error: { message: string }) => error.message);
}

function answered(answer: Answer) {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data;
}

/** Tokens as graphql-js' parser counts them against its limit. */
function tokenCount(query: string): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  return count;
}

describe('what real clients send', () => {
  it('answers the standard introspection query with every option, which buildClientSchema turns into the types, fields and arguments of schema.graphql', async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const data = answered(await send({ payload: { query } })) as IntrospectionQuery;
    const client = buildClientSchema(data);
    // The same types, fields, arguments, defaults and directives as schema.graphql, nothing more or less.
    expect(findBreakingChanges(schema, client)).toEqual([]);
    expect(findDangerousChanges(schema, client)).toEqual([]);
    expect(findBreakingChanges(client, schema)).toEqual([]);
    expect(client.description).toMatch(/^The Transactions API/);
    const transaction = client.getType('Transaction');
    expect(transaction && isObjectType(transaction)).toBe(true);
    expect(transaction?.description).toBe(schema.getType('Transaction')?.description);
    expect(client.getDirective('specifiedBy')?.args.map((arg) => arg.name)).toEqual(['url']);
  });

  it('answers the reference query, which costs 131 and expands to 23 fields', async () => {
    const data = answered(
      await send({ payload: { query: REFERENCE_QUERY, variables: { id: story.transactionId } } }),
    );
    expect(data.transaction.transactionRecipients).toHaveLength(complete.recipients.length);
    expect(data.transaction.transactionProcessRevisions).toHaveLength(complete.revisions);
    expect(operationCost(schema, parse(REFERENCE_QUERY), { id: story.transactionId })).toBe(131);
    expect(expandedFieldCount(parse(REFERENCE_QUERY))).toBe(23);
  });

  it('pages through transactions with nested relations, as a list screen does', async () => {
    const page = `query Page($first: Int!, $after: String) {
      viewer {
        transactions(first: $first, after: $after, orderBy: CREATED_AT_ASC) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes {
            id state createdAt isComplete
            template { id name version workflow { initialState } }
            senderEntity { id name type }
            transactionRecipients { id vulcanKey entity { id name email } }
            transactionProcesses { id key transactionProcessRevisions { id number transactionItems { id vulcanKey completionPercentage } } }
          }
        }
      }
    }`;
    const first = answered(await send({ payload: { query: page, variables: { first: 2 } } }));
    const connection = first.viewer.transactions;
    const total = story.transactions.length;
    expect(total).toBeGreaterThan(2);
    expect(connection.totalCount).toBe(total);
    expect(connection.nodes).toHaveLength(2);
    expect(connection.pageInfo.hasNextPage).toBe(true);
    expect(connection.nodes[0].template.workflow.initialState).toBe('draft');
    const rest = answered(
      await send({ payload: { query: page, variables: { first: 2, after: connection.pageInfo.endCursor } } }),
    );
    expect(rest.viewer.transactions.nodes).toHaveLength(total - 2);
    expect(rest.viewer.transactions.pageInfo.hasNextPage).toBe(false);
    const ids = [...connection.nodes, ...rest.viewer.transactions.nodes].map(
      (node: { id: string }) => node.id,
    );
    expect(new Set(ids).size).toBe(total);
    expect(ids).toContain(story.transactionId);
  });

  it('answers a query written with named and inline fragments and __typename, as Apollo Client sends it', async () => {
    const query = `query TransactionDetails($id: uuid!) {
      transaction(id: $id) { ...TransactionParts __typename }
    }
    fragment EntityParts on Entity { id name email __typename }
    fragment TransactionParts on Transaction {
      id
      state
      transactionRecipients { id vulcanKey entity { ...EntityParts } __typename }
      ... on Transaction { senderEntity { ...EntityParts } }
      transactionProcessRevisions(orderBy: CREATED_AT_DESC) { id number transactionItems { id vulcanKey data } __typename }
    }`;
    const data = answered(
      await send({
        payload: { query, variables: { id: story.transactionId }, operationName: 'TransactionDetails' },
      }),
    );
    expect(data.transaction.__typename).toBe('Transaction');
    expect(data.transaction.transactionRecipients[0].entity).toMatchObject({
      name: complete.investor.name,
      __typename: 'Entity',
    });
    expect(data.transaction.senderEntity.id).toBe(story.senderEntityId);
    expect(
      data.transaction.transactionProcessRevisions.map((revision: { number: number }) => revision.number),
    ).toEqual(Array.from({ length: complete.revisions }, (_, index) => complete.revisions - index));
  });
});

describe('depth', () => {
  it('refuses 11 nested fields with QUERY_TOO_DEEP, naming the limit and the depth found, and answers 10', async () => {
    const error = refusal(await send({ payload: { query: chainQuery(11) } }), 'QUERY_TOO_DEEP');
    expect(error.message).toBe('Query depth limit of 10 exceeded, found 11. Ask for less nested data.');
    const data = answered(await send({ payload: { query: chainQuery(10) } }));
    expect(
      data.viewer.transactions.nodes[0].organization.transactions.nodes[0].organization.transactions.nodes,
    ).toHaveLength(1);
  });

  it('measures depth through fragments and inline fragments, which add no level of their own', async () => {
    const deep = (leaf: string) => `{ viewer { ...Org } }
      fragment Org on Organization { transactions(first: 1) { ... on TransactionConnection { nodes { ...Tx } } } }
      fragment Tx on Transaction { organization { transactions(first: 1) { nodes { organization { transactions(first: 1) { nodes { ... on Transaction { ${leaf} } } } } } } } }`;
    const error = refusal(
      await send({ payload: { query: deep('organization { __typename }') } }),
      'QUERY_TOO_DEEP',
    );
    expect(error.message).toMatch(/^Query depth limit of 10 exceeded, found 11\./);
    answered(await send({ payload: { query: deep('__typename') } }));
  });

  it('does not count introspection against the depth limit, but refuses introspection that recurses through types', async () => {
    answered(
      await send({
        payload: {
          query:
            '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } }',
        },
      }),
    );
    const recursive =
      '{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }';
    const messages = refusals(await send({ payload: { query: recursive } }), 'GRAPHQL_VALIDATION_FAILED');
    expect(messages).toEqual(['Maximum introspection depth exceeded']);
  });
});

describe('aliases, directives and tokens', () => {
  const aliased = (count: number) =>
    `{ ${Array.from({ length: count }, (_, index) => `a${index}: viewer { id }`).join(' ')} }`;

  it('refuses 16 aliases with TOO_MANY_ALIASES, naming the limit and the number found, and answers 15', async () => {
    const error = refusal(await send({ payload: { query: aliased(16) } }), 'TOO_MANY_ALIASES');
    expect(error.message).toBe(
      'Aliases limit of 15 exceeded, found 16. Send several requests, or page through a list instead of aliasing.',
    );
    const data = answered(await send({ payload: { query: aliased(15) } }));
    expect(Object.keys(data)).toHaveLength(15);
  });

  it('counts aliases hidden in a fragment each time the fragment is spread', async () => {
    const query = (spreads: string) => `query ($org: uuid!) { viewer { ...Names } ${spreads} }
      fragment Names on Organization { a: id b: id c: handle d: handle e: name f: name g: createdAt h: createdAt }`;
    const error = refusal(
      await send({
        payload: {
          query: query('organization(id: $org) { ...Names }'),
          variables: { org: story.organizationId },
        },
      }),
      'TOO_MANY_ALIASES',
    );
    expect(error.message).toMatch(/^Aliases limit of 15 exceeded, found 16\./);
    const data = answered(
      await send({
        payload: { query: query('organization(id: $org) { id }'), variables: { org: story.organizationId } },
      }),
    );
    expect(data.viewer.a).toBe(story.organizationId);
  });

  it('refuses 51 directives with TOO_MANY_DIRECTIVES and answers 50', async () => {
    const directives = (count: number) => `{ viewer { ${'id @include(if: true) '.repeat(count)} } }`;
    const error = refusal(await send({ payload: { query: directives(51) } }), 'TOO_MANY_DIRECTIVES');
    expect(error.message).toBe('Directives limit of 50 exceeded, found 51.');
    expect(answered(await send({ payload: { query: directives(50) } })).viewer.id).toBe(story.organizationId);
  });

  it('refuses a query of more than 1,000 tokens with TOO_MANY_TOKENS before parsing the rest, and answers 1,000', async () => {
    // `{ }` and five `gN: viewer { }` make 27 tokens; the rest are ids spread over the five.
    const tokens = (count: number) => {
      const ids = Array.from({ length: 5 }, (_, group) => Math.floor((count - 27 + group) / 5));
      return `{ ${ids.map((n, group) => `g${group}: viewer { ${'id '.repeat(n)}}`).join(' ')} }`;
    };
    expect(tokenCount(tokens(1000))).toBe(1000);
    expect(tokenCount(tokens(1001))).toBe(1001);
    const error = refusal(await send({ payload: { query: tokens(1001) } }), 'TOO_MANY_TOKENS');
    expect(error.message).toBe(
      'Document contains more than 1000 tokens. Parsing aborted. Send a smaller query.',
    );
    answered(await send({ payload: { query: tokens(1000) } }));
  });

  it('refuses what graphql-js stops validating (a thousand fields of one name) as QUERY_TOO_COMPLEX, saying what to change', async () => {
    const error = refusal(
      await send({ payload: { query: `{ viewer { ${'id '.repeat(995)}} }` } }),
      'QUERY_TOO_COMPLEX',
    );
    expect(error.message).toMatch(
      /^Validation aborted: the query takes more work to check than allowed\. Select each field once/,
    );
  });
});

describe('cost', () => {
  const RICH_PAGE = (first: string) => `{ viewer { transactions(first: ${first}) { totalCount nodes {
    id state template { id name } senderEntity { id name }
    transactionRecipients { id entity { id name } }
    transactionProcessRevisions { id transactionItems { id data } }
  } } } }`;

  it('refuses transactions(first: 100) with a rich tree as QUERY_TOO_COMPLEX, naming the limit and the estimate', async () => {
    // 1 viewer + 1 connection + 10 totalCount + 100 × (1 + 1 + 1 + 10 × 2 + 10 × 11)
    const error = refusal(await send({ payload: { query: RICH_PAGE('100') } }), 'QUERY_TOO_COMPLEX');
    expect(error.message).toMatch(/^Query cost limit of 5000 exceeded, found 13312\. /);
    expect(error.extensions).toMatchObject({ limit: 5000, cost: 13312 });
  });

  it('costs `first` given as a variable at its value, else at the default the operation declares', async () => {
    const query = (declaration: string) =>
      RICH_PAGE('$first').replace('{ viewer', `query Page(${declaration}) { viewer`);
    const big = refusal(
      await send({ payload: { query: query('$first: Int'), variables: { first: 100 } } }),
      'QUERY_TOO_COMPLEX',
    );
    expect(big.extensions.cost).toBe(13312);
    // 12 + 30 × 133
    expect(operationCost(schema, parse(query('$first: Int')), { first: 30 })).toBe(4002);
    answered(await send({ payload: { query: query('$first: Int'), variables: { first: 30 } } }));
    const defaulted = refusal(
      await send({ payload: { query: query('$first: Int = 100') } }),
      'QUERY_TOO_COMPLEX',
    );
    expect(defaulted.extensions.cost).toBe(13312);
    // Left out without a default: the argument's own default, 20.
    answered(await send({ payload: { query: query('$first: Int') } }));
  });

  it('multiplies a list without `first` by the estimate of 10 at each level', async () => {
    const query =
      '{ viewer { webhookEndpoints { deliveries { attemptLog { id } endpoint { deliveries { attemptLog { id } } } } } } }';
    // 1 + 10 × (1 + 10 × (1 + 10 + (1 + 10 × (1 + 10))))
    const error = refusal(await send({ payload: { query } }), 'QUERY_TOO_COMPLEX');
    expect(error.message).toMatch(/found 12211\./);
  });
});

describe('the cost model (operationCost)', () => {
  const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
    operationCost(schema, parse(query), variables, operationName);

  // Each rule with the queries that show it: their costs are checked at once, so that a wrong number shows beside
  // its query.
  it.each<[string, Record<string, number>]>([
    [
      'counts each object once and scalars not at all',
      {
        '{ viewer { id handle name } }': 1,
        '{ viewer { id } transaction(id: "x") { id template { id } senderEntity { id } } }': 4,
      },
    ],
    [
      "multiplies a connection's nodes by its `first`, its default 20, or at most 100",
      {
        '{ viewer { transactions(first: 50) { nodes { id } } } }': 52,
        '{ viewer { transactions { nodes { id } } } }': 22,
        '{ viewer { transactions(first: 1000) { nodes { id } } } }': 102,
        '{ viewer { transactions(first: 0) { nodes { id } } } }': 3,
        '{ viewer { transactions(first: 5) { pageInfo { hasNextPage } nodes { template { id } } } } }': 13,
      },
    ],
    [
      'charges 10 for totalCount and 1 for a signed URL',
      { '{ viewer { transactions(first: 1) { totalCount } } }': 12, '{ file(id: "x") { id signedUrl } }': 2 },
    ],
    [
      'multiplies a list without `first` by 10, level by level',
      {
        '{ viewer { templates { id } } }': 11,
        '{ transaction(id: "x") { transactionRecipients { entity { id } } } }': 21,
        '{ transaction(id: "x") { transactionProcessRevisions { transactionItems { id } } } }': 111,
      },
    ],
    [
      'gives the numbers the Transactions guide quotes',
      {
        [REFERENCE_QUERY]: 131,
        '{ viewer { transactions { nodes { transactionRecipients { entity { id } } } } } }': 422,
        '{ viewer { transactions(first: 100) { nodes { transactionProcessRevisions { transactionItems { id } } } } } }': 11102,
      },
    ],
  ])('%s', (_rule, expected) => {
    expect(Object.fromEntries(Object.keys(expected).map((query) => [query, cost(query)]))).toEqual(expected);
  });

  it('takes `first` from a variable, the default its operation declares, or the argument default', () => {
    const page = (declaration: string) =>
      `query (${declaration}) { viewer { transactions(first: $n) { nodes { id } } } }`;
    expect(cost(page('$n: Int'), { n: 7 })).toBe(9);
    expect(cost(page('$n: Int = 60'), {})).toBe(62);
    expect(cost(page('$n: Int = 60'), { n: 3 })).toBe(5);
    expect(cost(page('$n: Int'), {})).toBe(22);
    expect(cost(page('$n: Int'), { n: 'many' })).toBe(22);
    // A variable named like an Object.prototype member is still only what the request gives.
    expect(
      cost(
        'query ($constructor: Int = 90) { viewer { transactions(first: $constructor) { nodes { id } } } }',
      ),
    ).toBe(92);
  });

  it('adds up aliases and fragment spreads, and costs fragments like the same fields written inline', () => {
    expect(cost('{ a: viewer { id } b: viewer { id } }')).toBe(2);
    const withFragments = `{ viewer { ...O } } fragment O on Organization { transactions(first: 3) { nodes { ...T } } }
      fragment T on Transaction { id template { id } }`;
    expect(cost(withFragments)).toBe(8);
    expect(cost('{ viewer { transactions(first: 3) { nodes { id template { id } } } } }')).toBe(8);
    expect(cost('{ viewer { ...O ...O } } fragment O on Organization { templates { id } }')).toBe(21);
    expect(
      cost('{ viewer { transactions(first: 4) { nodes { ... on Transaction { template { id } } } } } }'),
    ).toBe(10);
  });

  it('costs each fragment once per page size, so ten-way fan-out on five levels is counted, not walked', () => {
    const { query } = fanOutQuery({ ways: 10, levels: 5, leaf: 'template { id }' });
    // The viewer and the connection, then on each of 3 nodes: itself, L1's template and the leaf's, reached 10^4 times.
    expect(cost(query)).toBe(2 + 3 * (2 + 10 ** 4));
  });

  it('leaves introspection free and costs only the operation asked for', () => {
    expect(cost('{ __schema { types { name fields { name } } } viewer { id } }')).toBe(1);
    const two = 'query A { viewer { id } } query B { viewer { templates { id } } }';
    expect(cost(two, {}, 'A')).toBe(1);
    expect(cost(two, {}, 'B')).toBe(11);
    expect(cost(two, {}, 'C')).toBe(0);
  });
});

describe('fields once fragments are spread (expandedFieldCount)', () => {
  it('counts fields as often as their fragment is spread', () => {
    expect(expandedFieldCount(parse('{ viewer { id name } }'))).toBe(3);
    expect(expandedFieldCount(parse('{ viewer { ...F ...F } } fragment F on Organization { id name }'))).toBe(
      5,
    );
    expect(expandedFieldCount(parse('{ viewer { ... on Organization { id } } }'))).toBe(2);
    expect(fanOutQuery({ ways: 10, levels: 3 }).fields).toBe(
      expandedFieldCount(parse(fanOutQuery({ ways: 10, levels: 3 }).query)),
    );
    expect(expandedFieldCount(parse(fanOutQuery({ ways: 10, levels: 5 }).query))).toBe(21_116);
  });

  it('counts a fragment cycle without looping, for validation to refuse', () => {
    const cyclic =
      '{ viewer { ...A } } fragment A on Organization { id ...B } fragment B on Organization { name ...A }';
    expect(expandedFieldCount(parse(cyclic))).toBe(3);
  });
});

describe('fragment fan-out', () => {
  it('answers fragments spreading each other 10 ways on 3 levels exactly like the same fields written out, also once compiled', async () => {
    const { query, flat } = fanOutQuery({ ways: 10, levels: 3 });
    const expected = answered(await send({ payload: { query: flat } }));
    expect(expected.viewer.transactions.nodes).toHaveLength(story.transactions.length);
    expect(expected.viewer.transactions.nodes[0].template.name).toBe('Fund subscription');
    // The second run of a query is compiled by graphql-jit; the third runs compiled.
    for (let run = 0; run < 3; run += 1) {
      expect(answered(await send({ payload: { query } }))).toEqual(expected);
    }
  });

  it('refuses 10 ways on 5 levels, a few hundred bytes that expand to 21,116 fields, as QUERY_TOO_COMPLEX', async () => {
    const { query } = fanOutQuery({ ways: 10, levels: 5 });
    expect(query.length).toBeLessThan(600);
    const error = refusal(await send({ payload: { query } }), 'QUERY_TOO_COMPLEX');
    expect(error.message).toMatch(
      /^Fields limit of 5000 exceeded, found 21116 once fragments are spread out/,
    );
  });

  it('answers 10 ways on 5 levels like the fields written out where the fields limit is raised', async () => {
    const raised = await suite.buildApp({ graphqlLimits: { fields: 50_000 } });
    const { query, flat } = fanOutQuery({ ways: 10, levels: 5 });
    const expected = answered(await send({ payload: { query: flat } }, {}, raised));
    for (let run = 0; run < 2; run += 1) {
      expect(answered(await send({ payload: { query } }, {}, raised))).toEqual(expected);
    }
  });
});

describe('limits set through the graphqlLimits dependency', () => {
  let strict: FastifyInstance;
  beforeAll(async () => {
    strict = await suite.buildApp({ graphqlLimits: { depth: 4, cost: 100, fields: 20 } });
  });

  it('refuses with the lower limits what the defaults allow, naming the configured limit', async () => {
    expect(DEFAULT_GRAPHQL_LIMITS).toEqual({
      depth: 10,
      aliases: 15,
      directives: 50,
      tokens: 1000,
      cost: 5000,
      fields: 5000,
    });
    answered(await send({ payload: { query: chainQuery(5) } }));
    const deep = refusal(await send({ payload: { query: chainQuery(5) } }, {}, strict), 'QUERY_TOO_DEEP');
    expect(deep.message).toMatch(/^Query depth limit of 4 exceeded, found 5\./);

    const variables = { id: story.transactionId };
    answered(await send({ payload: { query: REFERENCE_QUERY, variables } }));
    const refused = await send({ payload: { query: REFERENCE_QUERY, variables } }, {}, strict);
    const messages = refusals(refused, 'QUERY_TOO_COMPLEX');
    expect(messages).toEqual([expect.stringMatching(/^Fields limit of 20 exceeded, found 23 /)]);

    const costly = refusal(
      await send(
        { payload: { query: '{ viewer { transactions(first: 100) { nodes { id } } } }' } },
        {},
        strict,
      ),
      'QUERY_TOO_COMPLEX',
    );
    expect(costly.message).toMatch(/^Query cost limit of 100 exceeded, found 102\./);
    answered(
      await send(
        { payload: { query: '{ viewer { transactions(first: 5) { nodes { id } } } }' } },
        {},
        strict,
      ),
    );
  });
});

describe('the request envelope', () => {
  const VIEWER = '{ viewer { id } }';

  it.each([
    ['no query', { variables: {} }, 'BAD_USER_INPUT', /has no "query"/],
    ['query null', { query: null }, 'BAD_USER_INPUT', /has no "query"/],
    ['a number as query', { query: 42 }, 'BAD_USER_INPUT', /^"query" must be a string, not 42\.$/],
    ['an object as query', { query: { kind: 'Document' } }, 'BAD_USER_INPUT', /^"query" must be a string/],
    [
      'a batch',
      [{ query: VIEWER }, { query: VIEWER }],
      'BAD_USER_INPUT',
      /^Batched operations are not supported/,
    ],
    ['a JSON string body', 'hello', 'BAD_USER_INPUT', /^The body must be a JSON object/],
    [
      'variables as a list',
      { query: VIEWER, variables: [1] },
      'BAD_USER_INPUT',
      /^"variables" must be an object/,
    ],
    [
      'variables as text',
      { query: VIEWER, variables: '{}' },
      'BAD_USER_INPUT',
      /^"variables" must be an object/,
    ],
    [
      'operationName a number',
      { query: VIEWER, operationName: 5 },
      'BAD_USER_INPUT',
      /^"operationName" must be a string/,
    ],
    [
      'extensions a list',
      { query: VIEWER, extensions: [] },
      'BAD_USER_INPUT',
      /^"extensions" must be an object/,
    ],
  ])('refuses %s with a 400 and a specific code', async (_name, payload, code, message) => {
    const error = refusal(
      await send({ payload: typeof payload === 'string' ? JSON.stringify(payload) : payload }),
      code,
    );
    expect(error.message).toMatch(message);
  });

  it.each([
    ['a number', '123'],
    ['a negative number', '-1'],
    ['a string', '"{ viewer { id } }"'],
    ['a list', '["a", "b"]'],
    ['true', 'true'],
    ['null', 'null'],
    ['an empty object', '{}'],
    ['a syntax tree', JSON.stringify(parse('{ viewer { id } }', { noLocation: true }))],
    [
      'a syntax tree after white space',
      `\n\t ${JSON.stringify(parse('{ viewer { id } }', { noLocation: true }), null, 2)}`,
    ],
    ['a million [', '['.repeat(1_000_000)],
  ])(
    'refuses a query that is JSON (%s), which Mercurius would read as a syntax tree, as GRAPHQL_PARSE_FAILED',
    async (_name, query) => {
      const error = refusal(await send({ payload: { query } }), 'GRAPHQL_PARSE_FAILED');
      expect(error.message).toBe(
        '"query" starts like JSON, not GraphQL: send the text of the operation, e.g. "{ viewer { id } }".',
      );
    },
  );

  it('answers GraphQL that starts with white space, a comment, a spread or a keyword like a JSON word', async () => {
    for (const query of [
      '\n\t {__typename}',
      '# a comment first\n{ viewer { id } }',
      '{...on Query{__typename}}',
      'query nullable { viewer { id } }',
      ', { viewer { id } }',
    ]) {
      expect(answered(await send({ payload: { query } })), query).toBeTruthy();
    }
  });

  it('refuses a mutation sent with GET with 405 METHOD_NOT_ALLOWED, and runs nothing', async () => {
    const mutation = `mutation { resetTransmitToken(input: { transactionId: "${story.transactionId}" }) { transmitToken } }`;
    const error = refusal(
      await send({ method: 'GET', query: { query: mutation } }),
      'METHOD_NOT_ALLOWED',
      405,
    );
    expect(error.message).toBe('A GET request may only run a query: send mutations with POST.');
  });

  it('refuses a GET whose operationName names no operation of its query, or that leaves the choice open', async () => {
    const two = 'query A { viewer { id } } query B { viewer { handle } }';
    const unknown = refusal(
      await send({ method: 'GET', query: { query: two, operationName: 'C' } }),
      'GRAPHQL_VALIDATION_FAILED',
    );
    expect(unknown.message).toBe('Unknown operation named "C".');
    const open = refusal(await send({ method: 'GET', query: { query: two } }), 'GRAPHQL_VALIDATION_FAILED');
    expect(open.message).toBe('Must provide operation name if query contains multiple operations.');
    const chosen = answered(await send({ method: 'GET', query: { query: two, operationName: 'B' } }));
    expect(chosen.viewer.handle).toMatch(/^story-/);
    // The same mistakes by POST, which Mercurius refuses itself.
    refusal(await send({ payload: { query: two, operationName: 'C' } }), 'GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses GET variables and extensions that are not JSON objects, or that nest too deep', async () => {
    const notJson = refusal(
      await send({ method: 'GET', query: { query: VIEWER, variables: 'nope' } }),
      'BAD_USER_INPUT',
    );
    expect(notJson.message).toBe('"variables" must be a JSON object, not "nope".');
    const list = refusal(
      await send({ method: 'GET', query: { query: VIEWER, extensions: '[1]' } }),
      'BAD_USER_INPUT',
    );
    expect(list.message).toBe('"extensions" must be an object, not [1].');
    const deep = refusal(
      await send({
        method: 'GET',
        query: { query: VIEWER, variables: `{"a":${'['.repeat(100)}${']'.repeat(100)}}` },
      }),
      'BAD_USER_INPUT',
    );
    expect(deep.message).toMatch(/^query\.variables\.a(\[0\])+ nests deeper than 32 levels\.$/);
  });

  it('refuses NUL in a string literal, whether escaped for GraphQL or raw in the text', async () => {
    const escaped = refusals(
      await send({ payload: { query: '{ transaction(id: "a\\u0000b") { id } }' } }),
      'BAD_USER_INPUT',
    );
    expect(escaped).toContain('This string contains a NUL character (U+0000), which text cannot hold.');
    const raw = refusal(
      await send({ payload: { query: '{ transaction(id: "a\u0000b") { id } }' } }),
      'BAD_USER_INPUT',
    );
    expect(raw.message).toBe('body.query contains a NUL character (U+0000), which text cannot hold.');
  });

  it('refuses NUL and unpaired surrogates in variables, with their path', async () => {
    const query =
      'query ($input: CreateTransactionInput!) { createTransaction(input: $input) { transactionId } }';
    const input = (noticeName: string) =>
      transactionInput(story, { noticeEmail: 'a@example.com', noticeName });
    const nul = refusal(
      await send({ payload: { query, variables: { input: input('a\u0000b') } } }),
      'BAD_USER_INPUT',
    );
    expect(nul.message).toBe(
      'body.variables.input.noticeName contains a NUL character (U+0000), which text cannot hold.',
    );
    // JSON.stringify would escape a lone surrogate as \ud800 too; written out to be sure it reaches the server so.
    const body = JSON.stringify({ query, variables: { input: input('SURROGATE') } }).replace(
      'SURROGATE',
      '\\ud800x',
    );
    const surrogate = refusal(await send({ payload: body }), 'BAD_USER_INPUT');
    expect(surrogate.message).toBe(
      'body.variables.input.noticeName contains an unpaired UTF-16 surrogate, which is not Unicode text.',
    );
  });

  it('refuses unpaired surrogates in the query, escaped for GraphQL or raw in the text', async () => {
    const escaped = refusal(
      await send({ payload: { query: '{ transaction(id: "\\ud800") { id } }' } }),
      'GRAPHQL_PARSE_FAILED',
    );
    expect(escaped.message).toMatch(/^Syntax Error: Invalid Unicode escape sequence/);
    const raw = refusal(
      await send({ payload: '{"query": "{ transaction(id: \\"\\udc00\\") { id } }"}' }),
      'BAD_USER_INPUT',
    );
    expect(raw.message).toBe('body.query contains an unpaired UTF-16 surrogate, which is not Unicode text.');
  });

  it('refuses JSON nested 3,000 levels deep without walking it all', async () => {
    const body = `{"query": "${VIEWER}", "variables": {"a": ${'['.repeat(3000)}${']'.repeat(3000)}}}`;
    const error = refusal(await send({ payload: body }), 'BAD_USER_INPUT');
    expect(error.message).toMatch(/^body\.variables\.a(\[0\])+ nests deeper than 32 levels\.$/);
  });

  it('refuses Infinity (a number too large for JSON) where an Int or a string goes', async () => {
    const page =
      '{"query": "query ($n: Int) { viewer { transactions(first: $n) { totalCount } } }", "variables": {"n": 1e999}}';
    const error = refusal(await send({ payload: page }), 'BAD_USER_INPUT');
    expect(error.message).toMatch(
      /^Variable "\$n" got invalid value Infinity; Int cannot represent non-integer value: Infinity/,
    );
    const create = JSON.stringify({
      query: CREATE_TRANSACTION,
      variables: {
        input: transactionInput(story, {
          noticeEmail: 'inf@example.com',
          noticeName: 'Inf',
          inputData: { subscription_amount: { amount: { currency: 'USD', amount: 'AMOUNT' } } },
        }),
      },
    }).replace('"AMOUNT"', '1e999');
    // Refused by the domain once execution started: 200, no data, the error on its path.
    const input = await send({ payload: create });
    expect(input.status).toBe(200);
    expect(input.body.data).toBeNull();
    expect(input.body.errors).toEqual([
      expect.objectContaining({
        message:
          'inputData does not fit the template\'s items: inputData.subscription_amount.amount: the amount is a whole number in the smallest unit of USD (no decimals): {"currency": "USD", "amount": 25000000} is $250,000.00',
        path: ['createTransaction'],
        extensions: expect.objectContaining({
          code: 'BAD_USER_INPUT',
          requestId: input.headers['x-request-id'],
        }),
      }),
    ]);
  });

  it('quotes a 1 MB variable value short in its message, also once the query is compiled', async () => {
    const query = 'query ($id: uuid!) { transaction(id: $id) { id } }';
    const short = `"${'x'.repeat(40)}…" (1000000 characters)`;
    // The second request of a query is the one graphql-jit compiles, with its own variable checks.
    for (let run = 0; run < 3; run += 1) {
      const answer = await send({ payload: { query, variables: { id: 'x'.repeat(1_000_000) } } });
      const error = refusal(answer, 'BAD_USER_INPUT');
      expect(error.message).toBe(
        `Variable "$id" got invalid value ${short}; ${short} is not a UUID (expected e.g. 3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e)`,
      );
      expect(JSON.stringify(answer.body).length).toBeLessThan(1000);
    }
  });

  it('quotes a long text sent where an Int goes short, as a literal or a variable', async () => {
    const text = `${'7'.repeat(50_000)}"\\ and more`;
    const literal = refusals(
      await send({
        payload: { query: `{ viewer { transactions(first: ${JSON.stringify(text)}) { totalCount } } }` },
      }),
      'GRAPHQL_VALIDATION_FAILED',
    );
    expect(literal).toEqual([
      `Int cannot represent non-integer value: "${'7'.repeat(40)}…" (${text.length} characters)`,
    ]);
    const query = 'query ($n: Int) { viewer { transactions(first: $n) { totalCount } } }';
    for (let run = 0; run < 3; run += 1) {
      const variable = refusal(await send({ payload: { query, variables: { n: text } } }), 'BAD_USER_INPUT');
      expect(variable.message.length).toBeLessThan(300);
      expect(
        variable.message.startsWith(
          `Variable "$n" got invalid value "${'7'.repeat(40)}…" (${text.length} characters); `,
        ),
      ).toBe(true);
    }
  });

  it('refuses the year 0000 where a date-time goes, as a variable or a literal', async () => {
    const resend = (since: string) =>
      `mutation { resendFailedWebhookDeliveries(input: { endpointId: "00000000-0000-4000-8000-000000000000", since: ${since} }) { count } }`;
    const variable = refusal(
      await send({
        payload: {
          query: resend('$since').replace('mutation', 'mutation ($since: datetime!)'),
          variables: { since: '0000-01-01T00:00:00Z' },
        },
      }),
      'BAD_USER_INPUT',
    );
    expect(variable.message).toMatch(/outside the years 0001 to 9999/);
    const literal = refusal(
      await send({ payload: { query: resend('"0000-12-31T23:59:59.999Z"') } }),
      'BAD_USER_INPUT',
    );
    expect(literal.message).toMatch(/outside the years 0001 to 9999/);
  });
});

describe('automatic persisted queries', () => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const persisted = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

  it('goes through the round trip of Apollo’s persisted-query link: not found, sent with the text, then known by hash', async () => {
    const query = `${REFERENCE_QUERY}\n# apq round trip`;
    const variables = { id: story.transactionId };
    const extensions = persisted(sha256(query));

    const unknown = refusal(await send({ payload: { variables, extensions } }), 'PERSISTED_QUERY_NOT_FOUND');
    expect(unknown.message).toBe('PersistedQueryNotFound');
    const retried = answered(await send({ payload: { query, variables, extensions } }));
    expect(retried.transaction.id).toBe(story.transactionId);
    const byHash = answered(await send({ payload: { variables, extensions } }));
    expect(byHash).toEqual(retried);
    // Apollo's link may send hashed queries with GET, variables and extensions as JSON in the query string.
    const byGet = answered(
      await send({
        method: 'GET',
        query: { variables: JSON.stringify(variables), extensions: JSON.stringify(extensions) },
      }),
    );
    expect(byGet).toEqual(retried);
  });

  it('answers PERSISTED_QUERY_NOT_FOUND to a GET with a hash it does not know', async () => {
    const extensions = JSON.stringify(persisted(sha256('{ viewer { id } } # never sent')));
    const error = refusal(await send({ method: 'GET', query: { extensions } }), 'PERSISTED_QUERY_NOT_FOUND');
    expect(error.message).toBe('PersistedQueryNotFound');
  });

  it('refuses a query sent with a hash that is not its own, and does not remember it under that hash', async () => {
    const query = '{ viewer { handle } } # wrong hash';
    const wrong = persisted(sha256('{ viewer { id } } # something else'));
    const error = refusal(await send({ payload: { query, extensions: wrong } }), 'BAD_USER_INPUT');
    expect(error.message).toBe('The persisted query hash is not the SHA-256 of the query sent with it.');
    refusal(await send({ payload: { extensions: wrong } }), 'PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses a GET by hash whose operationName names no operation of the persisted query', async () => {
    const query = 'query A { viewer { id } } query B { viewer { handle } } # persisted by POST';
    const extensions = persisted(sha256(query));
    answered(await send({ payload: { query, operationName: 'A', extensions } }));
    const byGet = (operationName?: string) =>
      send({
        method: 'GET',
        query: {
          extensions: JSON.stringify(extensions),
          ...(operationName === undefined ? {} : { operationName }),
        },
      });
    expect(refusal(await byGet('C'), 'GRAPHQL_VALIDATION_FAILED').message).toBe(
      'Unknown operation named "C".',
    );
    refusal(await byGet(), 'GRAPHQL_VALIDATION_FAILED');
    expect(answered(await byGet('B')).viewer.handle).toMatch(/^story-/);
  });

  it('refuses a persisted query of another version as not supported', async () => {
    const error = refusal(
      await send({ payload: { extensions: { persistedQuery: { version: 2, sha256Hash: sha256('x') } } } }),
      'BAD_USER_INPUT',
    );
    expect(error.message).toMatch(/^PersistedQueryNotSupported/);
  });

  it('refuses a request whose persistedQuery is not an object, and that has no query, saying it has no query', async () => {
    for (const persistedQuery of [null, 'abc', 1]) {
      const error = refusal(await send({ payload: { extensions: { persistedQuery } } }), 'BAD_USER_INPUT');
      expect(error.message).toBe(
        'The request has no "query": send {"query": "…", "variables": {…}} (or a persisted query hash in "extensions").',
      );
    }
  });
});

describe('answers', () => {
  it('are application/graphql-response+json when Accept asks for it, else application/json', async () => {
    const asked = await send(
      { payload: { query: '{ viewer { id } }' } },
      { accept: 'application/graphql-response+json, application/json;q=0.9' },
    );
    expect(asked.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    expect(answered(asked).viewer.id).toBe(story.organizationId);
    const refused = await send(
      { payload: { query: '{ viewer { nope } }' } },
      { accept: 'application/graphql-response+json' },
    );
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    for (const accept of ['application/json', '*/*']) {
      const plain = await send({ payload: { query: '{ viewer { id } }' } }, { accept });
      expect(plain.headers['content-type'], accept).toBe('application/json; charset=utf-8');
    }
  });

  it('refuses an answer larger than 5 MiB with RESPONSE_TOO_LARGE, naming its size, and sends one just under', async () => {
    // A transaction with 950 KB of input data; six aliases of it make 5.7 MB. The API takes 64 KiB an item
    // (templates/answer-bounds.ts), so the data is written as a transaction stored before that bound holds it.
    // In an organization of its own, so that the others' transactions stay the story's 3.
    const large = await suite.emptyTenant();
    const address = 'x'.repeat(950_000);
    const created = await graphql(suite.app, large.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(large, { noticeEmail: 'large@example.com', noticeName: 'Large' }),
    });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data?.createTransaction.transactionId as string;
    await suite.db.query('update transactions set input_data = $1 where id = $2', [
      { investor_details: { legalName: 'Large', email: 'large@example.com', address } },
      id,
    ]);
    const aliased = (count: number) =>
      `query ($id: uuid!) { ${Array.from({ length: count }, (_, i) => `t${i}: transaction(id: $id) { inputData }`).join(' ')} }`;

    const asLarge = { authorization: `Bearer ${large.apiKey}` };
    const error = refusal(
      await send({ payload: { query: aliased(6), variables: { id } } }, asLarge),
      'RESPONSE_TOO_LARGE',
    );
    const size = error.extensions.size as number;
    expect(size).toBeGreaterThan(6 * 950_000);
    expect(error.extensions.limit).toBe(MAX_RESPONSE_BYTES);
    expect(error.message).toBe(
      `The answer would be ${size} bytes, over the limit of 5242880: ask for fewer fields, or page through lists with smaller pages.`,
    );
    const five = answered(await send({ payload: { query: aliased(5), variables: { id } } }, asLarge));
    expect(five.t4.inputData.investor_details.address).toHaveLength(950_000);
  });
});
