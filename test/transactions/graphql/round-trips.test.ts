import { expect, it } from 'vitest';
import type { Queryable } from '../../../src/db/database.ts';
import { countingQueries } from '../../support/db/database.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  REFERENCE_QUERY,
  transactionInput,
} from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();

async function insertId(db: Queryable, sql: string, params: unknown[]): Promise<string> {
  const [row] = await db.query<{ id: string }>(`${sql} returning id`, params);
  if (!row) throw new Error('no row');
  return row.id;
}

/** A transaction of `tenant` with `recipients` recipients and `revisions` revisions of `items` items each. */
async function bigTransaction(
  db: Queryable,
  tenant: EmptyTenant,
  size: { recipients: number; revisions: number; items: number },
): Promise<string> {
  const { recipients, revisions, items } = size;
  const org = tenant.organizationId;
  const transactionId = await insertId(
    db,
    `insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email)
     values ($1, $2, $3, 'in_progress', 'Big', 'big@example.com')`,
    [org, tenant.templateId, tenant.senderEntityId],
  );
  for (let r = 0; r < recipients; r += 1) {
    const entityId = await insertId(
      db,
      `insert into entities (organization_id, name, type) values ($1, $2, 'individual')`,
      [org, `Investor ${r}`],
    );
    await db.query(
      `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key) values ($1, $2, $3, 'investor')`,
      [org, transactionId, entityId],
    );
  }
  const processId = await insertId(
    db,
    `insert into transaction_processes (organization_id, transaction_id, key) values ($1, $2, 'subscription')`,
    [org, transactionId],
  );
  for (let n = 1; n <= revisions; n += 1) {
    const revisionId = await insertId(
      db,
      `insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number)
       values ($1, $2, $3, $4)`,
      [org, processId, transactionId, n],
    );
    await db.query(
      `insert into transaction_items (organization_id, transaction_process_revision_id, transaction_id, vulcan_key, data)
       select $1, $2, $3, 'item_' || i, jsonb_build_object('i', i) from generate_series(1, $4::int) as i`,
      [org, revisionId, transactionId, items],
    );
  }
  return transactionId;
}

/** An app beside the suite's whose database counts the statements it is sent. */
/** An app whose statements are counted; `general`: with direct reads off, every read through Mercurius. */
async function countingApp(general = false) {
  const counting = countingQueries(suite.db);
  // Key lookups reused for a minute, so that a slow read does not make the next request look the key up again.
  const app = await suite.buildApp({
    db: counting.db,
    apiKeyCacheMs: 60_000,
    ...(general ? { directReads: false } : {}),
  });
  return { counting, app };
}

it('answers the reference query in one SQL statement after the key lookup, whatever the number of records', async () => {
  const tenant = await suite.emptyTenant();
  const big = await bigTransaction(suite.db, tenant, { recipients: 3, revisions: 5, items: 20 });
  const small = await bigTransaction(suite.db, tenant, { recipients: 1, revisions: 1, items: 1 });
  const { counting, app } = await countingApp();
  const counts: number[] = [];
  for (const id of [big, small, big]) {
    counting.reset();
    const { body } = await graphql(app, tenant.apiKey, REFERENCE_QUERY, { id });
    expect(body.errors).toBeUndefined();
    counts.push(counting.count());
    if (id === big) {
      const revisions = body.data?.transaction.transactionProcessRevisions;
      expect(revisions).toHaveLength(5);
      expect(revisions.flatMap((r: { transactionItems: unknown[] }) => r.transactionItems)).toHaveLength(100);
      expect(body.data?.transaction.transactionRecipients).toHaveLength(3);
    }
  }
  // The key lookup (then reused for a moment), and one statement for the transaction and all under it.
  expect(counts).toEqual([2, 1, 1]);
});

it('reads relations selected through fragments, inline fragments and aliases, still in one statement', async () => {
  const story = await suite.tenant({ rounds: 3 });
  const [complete] = story.transactions;
  if (!complete) throw new Error('the story has a transaction');
  const { counting, app } = await countingApp();
  counting.reset();
  const { body } = await graphql(
    app,
    story.apiKey,
    `
      query ($id: uuid!) {
        transaction(id: $id) {
          ...Parties
          ... on Transaction {
            oldest: transactionProcessRevisions {
              number
              transactionItems {
                vulcanKey
              }
            }
          }
          newest: transactionProcessRevisions(orderBy: CREATED_AT_DESC) {
            number
          }
          transactionProcesses {
            transactionSignatureContainers {
              transactionSignatures {
                transactionRecipient {
                  entity {
                    name
                  }
                }
              }
              transactionSignatureFile {
                file {
                  mimeType
                }
              }
            }
          }
        }
      }
      fragment Parties on Transaction {
        transactionRecipients {
          entity {
            name
          }
        }
        senderEntity {
          name
        }
      }
    `,
    { id: story.transactionId },
  );
  expect(body.errors).toBeUndefined();
  const t = body.data?.transaction;
  const parties = [complete.investor.name, story.sender.name];
  expect(t.transactionRecipients.map((r: { entity: { name: string } }) => r.entity.name)).toEqual(parties);
  expect(t.senderEntity.name).toBe(story.sender.name);
  const numbers = Array.from({ length: complete.revisions }, (_, index) => index + 1);
  expect(t.oldest.map((r: { number: number }) => r.number)).toEqual(numbers);
  expect(t.oldest[0].transactionItems).toHaveLength(complete.itemsPerRevision);
  expect(t.newest.map((r: { number: number }) => r.number)).toEqual(numbers.toReversed());
  const container = t.transactionProcesses[0].transactionSignatureContainers.find(
    (c: { transactionSignatureFile: unknown }) => c.transactionSignatureFile !== null,
  );
  expect(
    container.transactionSignatures.map(
      (s: { transactionRecipient: { entity: { name: string } } }) => s.transactionRecipient.entity.name,
    ),
  ).toEqual(parties);
  expect(container.transactionSignatureFile.file.mimeType).toBe('application/pdf');
  expect(counting.count()).toBe(2);
});

it('reads only the columns a query selects, with those its computed fields need, through the general engine', async () => {
  const tenant = await suite.emptyTenant();
  const created = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
    input: transactionInput(tenant),
  });
  expect(created.body.errors).toBeUndefined();
  const id: string = created.body.data?.createTransaction.transactionId;
  const { counting, app } = await countingApp(true);
  const read = async (selection: string) => {
    counting.reset();
    const query = `query ($id: uuid!) { transaction(id: $id) { ${selection} } }`;
    const { body } = await graphql(app, tenant.apiKey, query, { id });
    expect(body.errors).toBeUndefined();
    const [statement] = counting.statements();
    return { transaction: body.data?.transaction, statement: statement ?? '' };
  };

  // availableEvents is computed from the state, the template's definition and the processes: read, not shown.
  const everything = await read('state availableEvents { key } template { name definition }');
  const events = await read('availableEvents { key } template { name }');
  expect(everything.transaction.state).toBe('draft');
  expect(events.transaction.availableEvents.length).toBeGreaterThan(0);
  expect(events.transaction.availableEvents).toEqual(everything.transaction.availableEvents);
  expect(events.transaction.template.name).toBe(everything.transaction.template.name);
  // The row's own columns are named; a related row's are its JSON array's values, by position.
  expect(events.statement).toMatch(/\bstate as "state"/);
  expect(events.statement).toMatch(/json_build_array\(id, name, definition\) from templates/);
  expect(events.statement).toMatch(/json_build_array\(id, key, completed_at is not null\) order by/);
  expect(events.statement).not.toMatch(/input_data|notice_email/);

  const notice = await read('noticeEmail senderEntity { name }');
  expect(notice.transaction.noticeEmail).toEqual(expect.stringContaining('@'));
  expect(notice.statement).toMatch(/notice_email as "noticeEmail"/);
  expect(notice.statement).toMatch(/json_build_array\(id, name\) from entities/);
  expect(notice.statement).not.toMatch(/input_data|definition|\bemail\b/);
});

/** Every `Index Cond` of a plan PostgreSQL gives in JSON, at any depth. */
function indexConditions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(indexConditions);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'Index Cond' && typeof value === 'string' ? [value] : indexConditions(value),
  );
}

it("finds each level of a nested read by its parent's key, and checks the organization only on the rows found", async () => {
  const tenant = await suite.emptyTenant();
  const id = await bigTransaction(suite.db, tenant, { recipients: 2, revisions: 3, items: 4 });
  const direct = await countingApp();
  const general = await countingApp(true);
  // The direct read takes the organization first, the general engine the id first.
  for (const [{ counting, app }, params] of [
    [direct, [tenant.organizationId, id]],
    [general, [id, tenant.organizationId]],
  ] as const) {
    await graphql(app, tenant.apiKey, REFERENCE_QUERY, { id });
    counting.reset();
    const { body } = await graphql(app, tenant.apiKey, REFERENCE_QUERY, { id });
    expect(body.errors).toBeUndefined();
    expect(body.data?.transaction.transactionProcessRevisions).toHaveLength(3);
    const [statement] = counting.statements();
    const [plan] = await suite.db.query<{ 'QUERY PLAN': unknown }>(
      `explain (format json) ${statement ?? ''}`,
      [...params],
    );
    // The organization's index would read every row of the organization at each level: a read of one
    // transaction would cost as much as the organization is big.
    const conditions = indexConditions(plan?.['QUERY PLAN']);
    expect(conditions.length).toBeGreaterThan(0);
    expect(conditions.filter((condition) => condition.includes('organization_id'))).toEqual([]);
  }
});
