import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../../src/observability/metrics.ts';
import type { OrganizationStory } from '../../support/data/stories.ts';
import { askToCompare, expectSameAnswer } from '../../support/data/compared-answers.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';

/**
 * Compiled reads (compiled-reads.ts) run a query posted again with its graphql-jit code before Mercurius: each
 * query here is asked of an app with them on (direct reads off, so that every read would be Mercurius' without
 * them) and of an app with both off, and the answers must be the same bytes, status and media type. The
 * `portico_graphql_reads_total` counter tells which path answered.
 */

const suite = useTransactionsSuite();
let story: OrganizationStory;
let mercurius: FastifyInstance;
let compiled: FastifyInstance;
let metrics: Metrics;

function ask(app: FastifyInstance, query: string, variables?: unknown) {
  return askToCompare(app, story.apiKey, query, variables);
}

/** How many reads the compiled path answered so far. */
async function compiledCount(): Promise<number> {
  const text = await metrics.text();
  return Number(/^portico_graphql_reads_total\{path="compiled"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Asks both apps `times` times; expects the same answers each time, and says how many the compiled path gave. */
async function compare(
  query: string,
  variables: unknown,
  times = 3,
): Promise<{ body: string; compiled: number }> {
  const before = await compiledCount();
  let body = '';
  for (let time = 0; time < times; time += 1) {
    const fast = await ask(compiled, query, variables);
    expectSameAnswer(fast, await ask(mercurius, query, variables));
    body = fast.body;
  }
  return { body, compiled: (await compiledCount()) - before };
}

beforeAll(async () => {
  story = await suite.tenant({ rounds: 2 });
  metrics = createMetrics();
  mercurius = await suite.buildApp({ directReads: false, compiledReads: false });
  compiled = await suite.buildApp({ directReads: false, metrics: { metrics } });
});

describe('a query posted again', () => {
  it('is answered by its compiled code from its second time on, with the same bytes as Mercurius gives', async () => {
    const query = `query ($id: uuid!) {
      transaction(id: $id) {
        id state availableEvents { key }
        transactionRecipients { vulcanKey entity { name } }
        transactionProcessRevisions(orderBy: CREATED_AT_DESC) { number createdAt transactionItems { vulcanKey } }
      }
    }`;
    const { body, compiled: answered } = await compare(query, { id: story.transactionId });
    expect(answered).toBe(2);
    expect(body).toContain('"availableEvents":[');
  });

  it('is answered by its compiled code for a connection, page by page', async () => {
    const query = `query ($first: Int!, $after: String) {
      viewer { transactions(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } }
    }`;
    const { compiled: answered } = await compare(query, { first: 1 });
    expect(answered).toBe(2);
  });

  it('keeps its variables apart from request to request', async () => {
    const query = 'query ($id: uuid!) { transaction(id: $id) { id availableEvents { key } } }';
    const other = await suite.tenant();
    const first = await compare(query, { id: story.transactionId }, 2);
    // Another organization's transaction is not this key's: null, as Mercurius answers.
    const second = await compare(query, { id: other.transactionId }, 1);
    expect(first.body).toContain(story.transactionId);
    expect(second.body).toBe('{"data":{"transaction":null}}');
    expect(second.compiled).toBe(1);
  });
});

describe('a request the compiled path leaves to Mercurius', () => {
  it('leaves a mutation to Mercurius every time', async () => {
    const query = `mutation ($input: ResetTransmitTokenInput!) {
      resetTransmitToken(input: $input) { transactionId transmitToken }
    }`;
    const before = await compiledCount();
    const tokens = new Set<string>();
    for (let time = 0; time < 3; time += 1) {
      const answer = await ask(compiled, query, { input: { transactionId: story.transactionId } });
      const payload = (JSON.parse(answer.body) as { data: { resetTransmitToken: { transmitToken: string } } })
        .data.resetTransmitToken;
      tokens.add(payload.transmitToken);
    }
    // Each one reset the token: none was answered from anything but running the mutation.
    expect(tokens.size).toBe(3);
    expect((await compiledCount()) - before).toBe(0);
  });

  it.each([
    [
      'a variable of the wrong type',
      'query ($id: uuid!) { transaction(id: $id) { id availableEvents { key } } }',
      { id: 'nope' },
    ],
    [
      'a page over the cost limit',
      'query ($first: Int!) { viewer { transactions(first: $first) { nodes { id transactionRecipients { id } } } } }',
      { first: 100_000 },
    ],
  ])(
    'leaves an answer with errors to Mercurius, which words them as always: %s',
    async (_, query, variables) => {
      const { body, compiled: answered } = await compare(query, variables);
      expect(answered).toBe(0);
      expect(body).toContain('"errors"');
    },
  );
});
