import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildSchema, getNamedType, isObjectType, type GraphQLObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { RELATIONS, RESOURCES, type ResourceName } from '../../../src/transactions/graphql/read-model.ts';
import { askToCompare, expectSameAnswer } from '../../support/data/compared-answers.ts';
import { FRAGMENT_REFERENCE_QUERY, REFERENCE_QUERY } from '../../support/data/transactions.ts';
import type { OrganizationStory } from '../../support/data/stories.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';

/**
 * Direct reads (direct-reads.ts) answer plannable queries without GraphQL's execution: each query here is asked of
 * the suite's app (direct reads on) and of an app with them (and compiled reads) off, and the two answers must be the same bytes,
 * status and media type. A recording database tells which path answered.
 */

const schema = buildSchema(
  readFileSync(new URL('../../../src/transactions/graphql/schema.graphql', import.meta.url), 'utf8'),
);

/** Every column field of a type and, `depth` levels down, of its relations, with `__typename` at each level. */
function everything(type: ResourceName, depth: number): string {
  const graphqlType = schema.getType(type) as GraphQLObjectType;
  const columns: Readonly<Record<string, string>> = RESOURCES[type].columns;
  const parts = ['__typename'];
  for (const field of Object.values(graphqlType.getFields())) {
    const relation = RELATIONS[type]?.[field.name];
    if (relation) {
      if (depth > 0) parts.push(`${field.name} { ${everything(relation.resource, depth - 1)} }`);
    } else if (!isObjectType(getNamedType(field.type)) && field.name in columns) {
      parts.push(field.name);
    }
  }
  return parts.join(' ');
}

const suite = useTransactionsSuite();
let story: OrganizationStory;
let other: OrganizationStory;
let general: FastifyInstance;
let direct: FastifyInstance;
/** The statements the direct app sent that PostgreSQL answered, in order. */
const sent: string[] = [];

/** Whether a statement is a direct read's: its roots are selected as `r0`, `r1`, … (the general engine names fields). */
function isDirect(statement: string): boolean {
  return /\) as r0\b/.test(statement);
}

function recording(db: Database): Database {
  return {
    ...db,
    query: async <Row>(text: string, params?: readonly unknown[]) => {
      const rows = await db.query<Row>(text, params);
      sent.push(text);
      return rows;
    },
  };
}

function ask(app: FastifyInstance, query: string, variables?: unknown, key = story.apiKey) {
  return askToCompare(app, key, query, variables);
}

/** Asks both apps; expects the same answer, and says whether the direct app's own statement answered. */
async function compare(query: string, variables?: unknown): Promise<{ body: string; directly: boolean }> {
  sent.length = 0;
  const fast = await ask(direct, query, variables);
  const directly = sent.some(isDirect);
  expectSameAnswer(fast, await ask(general, query, variables));
  return { body: fast.body, directly };
}

let ids: { itemId: string; recipientId: string; fileId: string; signatureFileId: string; entityId: string };

beforeAll(async () => {
  // Three rounds of submission: revisions, voided and completed signatures, a file, two recipients.
  story = await suite.tenant({ rounds: 3 });
  other = await suite.tenant();
  general = await suite.buildApp({ directReads: false, compiledReads: false });
  direct = await suite.buildApp({ db: recording(suite.db) });
  const { body } = await ask(
    general,
    `query ($id: uuid!) { transaction(id: $id) { transactionItems { id } transactionRecipients { id entity { id } }
      transactionFiles { id } transactionSignatureFiles { id } } }`,
    { id: story.transactionId },
  );
  const t = (
    JSON.parse(body) as { data: { transaction: Record<string, { id: string; entity?: { id: string } }[]> } }
  ).data.transaction;
  ids = {
    itemId: t.transactionItems?.[0]?.id ?? '',
    recipientId: t.transactionRecipients?.[0]?.id ?? '',
    entityId: t.transactionRecipients?.[0]?.entity?.id ?? '',
    fileId: t.transactionFiles?.[0]?.id ?? '',
    signatureFileId: t.transactionSignatureFiles?.[0]?.id ?? '',
  };
});

describe('a query that only reads rows by id', () => {
  it('is answered directly with the same bytes as GraphQL gives for the reference query', async () => {
    const { body, directly } = await compare(REFERENCE_QUERY, { id: story.transactionId });
    expect(directly).toBe(true);
    expect(body).toContain('"transactionProcessRevisions":[{');
  });

  it('is answered directly with the same bytes for the reference query spread from a fragment under @include', async () => {
    const plain = await compare(REFERENCE_QUERY, { id: story.transactionId });
    const spread = await compare(FRAGMENT_REFERENCE_QUERY, { id: story.transactionId });
    expect(spread).toEqual(plain);
  });

  it('is answered directly with the same bytes for every column of a transaction and of its relations, three levels down', async () => {
    const query = `query ($id: uuid!) { transaction(id: $id) { ${everything('Transaction', 3)} } }`;
    const { body, directly } = await compare(query, { id: story.transactionId });
    expect(directly).toBe(true);
    expect(body).toContain('"__typename":"TransactionSignatureContainer"');
  });

  it('is answered directly with the same bytes for each root field that reads by id, several in one query', async () => {
    const query = `query ($t: uuid!, $e: uuid!, $i: uuid!, $r: uuid!, $f: uuid!, $s: uuid!, $o: uuid!, $tpl: uuid!) {
      transaction(id: $t) { id state isComplete }
      entity(id: $e) { ${everything('Entity', 1)} }
      transactionItem(id: $i) { ${everything('TransactionItem', 1)} }
      transactionRecipient(id: $r) { ${everything('TransactionRecipient', 2)} }
      transactionFile(id: $f) { ${everything('TransactionFile', 2)} }
      transactionSignatureFile(id: $s) { ${everything('TransactionSignatureFile', 2)} }
      organization(id: $o) { ${everything('Organization', 0)} }
      template(id: $tpl) { id key version name description createdAt }
    }`;
    const { directly } = await compare(query, {
      t: story.transactionId,
      e: ids.entityId,
      i: ids.itemId,
      r: ids.recipientId,
      f: ids.fileId,
      s: ids.signatureFileId,
      o: story.organizationId,
      tpl: story.templateId,
    });
    expect(directly).toBe(true);
  });

  it("is answered directly with the same bytes for a webhook delivery's attempt log, oldest attempt first", async () => {
    const [endpoint] = await suite.db.query<{ id: string }>(
      `insert into webhook_endpoints (organization_id, url, event_types, secret)
       values ($1, 'https://hooks.example.com/log', array['transaction.completed'], '\\x00') returning id`,
      [story.organizationId],
    );
    const [event] = await suite.db.query<{ id: string }>(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.completed', $2, '{}') returning id`,
      [story.organizationId, story.transactionId],
    );
    const [delivery] = await suite.db.query<{ id: string }>(
      `insert into webhook_deliveries (organization_id, endpoint_id, event_id, message_id, event_type, body, status, attempts)
       values ($1, $2, $3, 'msg_direct', 'transaction.completed', '{}', 'failed', 2) returning id`,
      [story.organizationId, endpoint?.id, event?.id],
    );
    // Recorded out of order: the log is in the order of the attempts, not of their rows.
    for (const [minutesAgo, status] of [
      [1, 503],
      [5, 500],
    ]) {
      await suite.db.query(
        `insert into webhook_attempts (organization_id, delivery_id, attempted_at, duration_ms, status_code)
         values ($1, $2, now() - make_interval(mins => $3), 12, $4)`,
        [story.organizationId, delivery?.id, minutesAgo, status],
      );
    }
    const query = `query ($id: uuid!) {
      webhookDelivery(id: $id) { messageId endpoint { url } attemptLog { statusCode attemptedAt } }
    }`;
    const { body, directly } = await compare(query, { id: delivery?.id });
    expect(directly).toBe(true);
    const log = (JSON.parse(body) as { data: { webhookDelivery: { attemptLog: { statusCode: number }[] } } })
      .data.webhookDelivery.attemptLog;
    expect(log.map((attempt) => attempt.statusCode)).toEqual([500, 503]);
  });

  it('keeps aliases, fragments, literal ids and orderBy, in either order, the same as GraphQL', async () => {
    const query = `query ($order: CreatedAtOrder!) {
      first: transaction(id: "${story.transactionId.toUpperCase()}") { ...Parts later: transactionProcessRevisions(orderBy: $order) { id number } }
      again: transaction(id: "${story.transactionId}") { ... on Transaction { state } events(orderBy: CREATED_AT_DESC) { eventKey } }
    }
    fragment Parts on Transaction { id recipients: transactionRecipients { vulcanKey } }`;
    for (const order of ['CREATED_AT_ASC', 'CREATED_AT_DESC']) {
      const { body, directly } = await compare(query, { order });
      expect(directly).toBe(true);
      expect(body).toContain('"first":{"id"');
    }
  });

  it('keeps or leaves out what @include and @skip say, on literals and on variables, for each of their values, the same as GraphQL', async () => {
    const query = `query ($id: uuid!, $items: Boolean!, $quiet: Boolean = false) {
      transaction(id: $id) {
        id
        state @skip(if: true)
        isComplete @include(if: true)
        ...Revisions @include(if: $items)
        ... on Transaction @skip(if: $quiet) { transactionRecipients { id entity { name @include(if: $items) } } }
        transactionProcessRevisions @skip(if: $quiet) { number }
      }
    }
    fragment Revisions on Transaction { transactionProcessRevisions { id transactionItems { id vulcanKey } } }`;
    const bodies = new Set<string>();
    for (const items of [true, false]) {
      for (const quiet of [true, false, undefined]) {
        // Each combination as a text of its own, so that Mercurius answers it with graphql-js, as it does a text
        // the first time: graphql-jit, which it compiles a text with the second time, places a key where the
        // key first appears in the document, left out or not (transactionProcessRevisions before
        // transactionRecipients here, when $items is false), where GraphQL's CollectFields places the keys in
        // the order they first appear among the fields kept. Direct reads follow GraphQL.
        const text = `${query}\n# items: ${items}, quiet: ${quiet}`;
        const { body, directly } = await compare(text, { id: story.transactionId, items, quiet });
        expect(directly).toBe(true);
        expect(body.includes('"state"')).toBe(false);
        expect(body.includes('"transactionItems"')).toBe(items);
        expect(body.includes('"transactionRecipients"')).toBe(quiet !== true);
        bodies.add(body);
      }
    }
    // Four selections: `quiet` unset is `quiet: false`.
    expect(bodies.size).toBe(4);
  });

  it('merges a response key asked more than once, through fragments and at the root, as GraphQL does', async () => {
    const query = `query ($id: uuid!) {
      transaction(id: $id) { __typename id ...Parts transactionRecipients { id } }
      again: transaction(id: $id) { state }
      again: transaction(id: $id) { __typename transactionRecipients { vulcanKey } ...Parts }
    }
    fragment Parts on Transaction {
      __typename id
      transactionRecipients { vulcanKey entity { id } }
      transactionRecipients { entity { name } }
    }`;
    const { body, directly } = await compare(query, { id: story.transactionId });
    expect(directly).toBe(true);
    const recipient = (JSON.parse(body) as { data: { transaction: { transactionRecipients: object[] } } })
      .data.transaction.transactionRecipients[0];
    expect(Object.keys(recipient ?? {})).toEqual(['vulcanKey', 'entity', 'id']);
  });

  it("answers null for an unknown id and for another organization's, as GraphQL does", async () => {
    const query = 'query ($id: uuid!) { transaction(id: $id) { id } }';
    for (const id of ['00000000-0000-4000-8000-000000000000', other.transactionId]) {
      const { body, directly } = await compare(query, { id });
      expect(directly).toBe(true);
      expect(body).toBe('{"data":{"transaction":null}}');
    }
  });
});

describe('a request that direct reads cannot answer', () => {
  it.each([
    ['a computed field', 'query ($id: uuid!) { transaction(id: $id) { id availableEvents { key } } }'],
    ['a connection', '{ viewer { transactions(first: 2) { totalCount nodes { id } } } }'],
    ['every root field left out', 'query ($id: uuid!) { transaction(id: $id) @skip(if: true) { id } }'],
    ['a file link', `{ file(id: "00000000-0000-4000-8000-000000000000") { id signedUrl } }`],
    [
      'a mutation',
      'mutation { resetTransmitToken(input: { transactionId: "00000000-0000-4000-8000-000000000000" }) { transaction { id } } }',
    ],
    ['a syntax error', 'query { transaction(id: '],
    ['an unknown field', 'query ($id: uuid!) { transaction(id: $id) { id nope } }'],
  ])('goes on to GraphQL with %s, which answers as always', async (_, query) => {
    const { directly } = await compare(query, { id: story.transactionId });
    expect(directly).toBe(false);
  });

  it.each([
    ['is not a UUID', { id: 'nope' }],
    ['is missing', {}],
    ['is null', { id: null }],
  ])('goes on to GraphQL when a variable %s, which refuses it as always', async (_, variables) => {
    const { body, directly } = await compare('query ($id: uuid!) { transaction(id: $id) { id } }', variables);
    expect(directly).toBe(false);
    expect(body).toContain('"errors"');
  });

  it('goes on to GraphQL when a condition of @include is null, which refuses it as always', async () => {
    const query =
      'query ($id: uuid!, $c: Boolean = true) { transaction(id: $id) { id state @include(if: $c) } }';
    const { body, directly } = await compare(query, { id: story.transactionId, c: null });
    expect(directly).toBe(false);
    expect(body).toContain('"errors"');
  });

  it('goes on to GraphQL when its statement fails, which reads again and answers', async () => {
    let failures = 0;
    const failing: Database = {
      ...suite.db,
      query: (text, params) => {
        if (isDirect(text)) {
          failures += 1;
          return Promise.reject(new Error('the direct statement failed'));
        }
        return suite.db.query(text, params);
      },
    };
    const app = await suite.buildApp({ db: failing });
    const answer = await ask(app, REFERENCE_QUERY, { id: story.transactionId });
    expect(failures).toBe(1);
    expect(answer).toEqual(await ask(general, REFERENCE_QUERY, { id: story.transactionId }));
  });
});
