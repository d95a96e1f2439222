// A transaction's history as one hash chain (issue 41, item 4): made by the database whoever writes, kept in
// order under concurrent writers and multi-row inserts, given to rows that existed before 0032 by its backfill,
// and an entry edited or deleted afterwards found by verifyHistory at the first entry that does not match.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { loadMigrations, migrate } from '../../../src/db/migrate.ts';
import { createPostgresDatabase } from '../../../src/db/postgres-database.ts';
import { recordActivities, recordActivity } from '../../../src/transactions/history/activity.ts';
import {
  chainHash,
  CHAIN_GENESIS,
  checkChain,
  historyMismatch,
  verifyHistory,
} from '../../../src/transactions/history/chain.ts';
import { organizationStory, type OrganizationStory } from '../../support/data/stories.ts';
import { createTestFileStore, graphql, transactionsApp } from '../../support/data/transactions.ts';
import { DIALECT, TEST_DATABASE_URL, createTestSchema } from '../../support/db/database.ts';
import { createPGliteFromTemplate } from '../../support/db/pglite-template.ts';
import { useTestDatabase } from '../../support/db/use-test-database.ts';

const test = useTestDatabase();
let store: Awaited<ReturnType<typeof createTestFileStore>>;
beforeAll(async () => {
  store = await createTestFileStore();
});
afterAll(async () => {
  await store.cleanup();
});
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SYSTEM = { type: 'system' as const, id: null };

/** A transaction taken to `submitted` through the lifecycle, with two console acts after it. */
async function actedOn(db: Database): Promise<OrganizationStory> {
  const story = await organizationStory(db, store.files, { transactions: ['submitted'] });
  for (const action of ['commented', 'assigned']) {
    await recordActivity(db, {
      organizationId: story.organizationId,
      transactionId: story.transactionId,
      kind: 'console',
      action,
      actor: { type: 'user', id: null, requestId: `req-${action}` },
      details: { note: `“${action}” – ünïcode`, at: 1.5 },
    });
  }
  return story;
}

/** The history's rows in chain order: which table, the row's id, its place. */
async function chainOf(db: Database, transactionId: string) {
  return db.query<{ source: string; id: string; position: string }>(
    `select 'event' as source, id, chain_position::text as position from transaction_events where transaction_id = $1
     union all
     select 'activity', id, chain_position::text from transaction_activity where transaction_id = $1
     order by position`,
    [transactionId],
  );
}

describe(`the history's hash chain (${DIALECT})`, () => {
  it('chains every event and activity of a transaction taken through several acts, its head the last hash', async () => {
    const story = await actedOn(test.db);
    const chain = await chainOf(test.db, story.transactionId);
    expect(chain.length).toBeGreaterThan(5);
    expect(new Set(chain.map((row) => row.source))).toEqual(new Set(['event', 'activity']));
    expect(chain.map((row) => Number(row.position))).toEqual(chain.map((_, index) => index + 1));

    const check = await verifyHistory(test.db, {
      organizationId: story.organizationId,
      transactionId: story.transactionId,
    });
    const [head] = await test.db.query<{ head: string; position: string }>(
      `select encode(head, 'hex') as head, position::text from transaction_history_heads where transaction_id = $1`,
      [story.transactionId],
    );
    expect(check).toEqual({ ok: true, head: head?.head, entries: chain.length });
    expect(head?.position).toBe(String(chain.length));
  });

  it('hashes the previous hash and the canonical text that the SQL function makes from the stored row', async () => {
    const story = await actedOn(test.db);
    const rows = await test.db.query<{ previous: string; hash: string; canonical: string; position: string }>(
      `select encode(chain_previous, 'hex') as previous, encode(chain_hash, 'hex') as hash,
         portico_history_canonical(e) as canonical, chain_position::text as position
       from transaction_events e where transaction_id = $1 and chain_position = 1`,
      [story.transactionId],
    );
    const [first] = rows;
    expect(first?.previous).toBe(CHAIN_GENESIS.toString('hex'));
    expect(chainHash(CHAIN_GENESIS, first?.canonical ?? '').toString('hex')).toBe(first?.hash);
    const canonical = JSON.parse(first?.canonical ?? '{}') as Record<string, unknown>;
    expect(canonical).toMatchObject({
      table: 'transaction_events',
      position: 1,
      transactionId: story.transactionId,
      organizationId: story.organizationId,
      eventKey: expect.any(String) as unknown,
    });
    expect(canonical.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('finds an activity row whose details were updated, at that entry', async () => {
    const story = await actedOn(test.db);
    const chain = await chainOf(test.db, story.transactionId);
    const edited = chain.find((row) => row.source === 'activity');
    await test.db.query(`update transaction_activity set details = '{"note": "changed"}' where id = $1`, [
      edited?.id,
    ]);

    const check = await verifyHistory(test.db, {
      organizationId: story.organizationId,
      transactionId: story.transactionId,
    });
    const position = Number(edited?.position);
    expect(check).toEqual({
      ok: false,
      position,
      reason: `entry ${String(position)} was edited: its content no longer matches its hash`,
      head: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
    });
    if (!check.ok)
      expect(historyMismatch(check)).toBe(
        `The history does not match from entry ${String(position)}: entry ${String(position)} was edited: its content no longer matches its hash.`,
      );
  });

  it('finds an event row that was deleted, where the next entry no longer follows', async () => {
    const story = await actedOn(test.db);
    const chain = await chainOf(test.db, story.transactionId);
    const deleted = chain.find((row) => row.source === 'event' && Number(row.position) > 1);
    await test.db.query('delete from transaction_events where id = $1', [deleted?.id]);

    const position = Number(deleted?.position);
    expect(
      await verifyHistory(test.db, {
        organizationId: story.organizationId,
        transactionId: story.transactionId,
      }),
    ).toMatchObject({ ok: false, position, reason: `entry ${String(position)} is missing: it was removed` });
  });

  it('finds the last entry deleted by the head, and an edit whose hash was rewritten by the next link', async () => {
    const story = await actedOn(test.db);
    const chain = await chainOf(test.db, story.transactionId);
    const last = chain.at(-1);
    await test.db.query('delete from transaction_activity where id = $1', [last?.id]);
    expect(
      await verifyHistory(test.db, {
        organizationId: story.organizationId,
        transactionId: story.transactionId,
      }),
    ).toMatchObject({
      ok: false,
      position: chain.length,
      reason: expect.stringMatching(/is missing/) as unknown,
    });

    const hashOne = chainHash(CHAIN_GENESIS, 'one').toString('hex');
    const hashTwo = chainHash(Buffer.from(hashOne, 'hex'), 'two').toString('hex');
    const one = { position: 1, previous: CHAIN_GENESIS.toString('hex'), hash: hashOne, canonical: 'one' };
    const two = { position: 2, previous: hashOne, hash: hashTwo, canonical: 'two' };
    expect(checkChain([two, one], { position: 2, hash: hashTwo })).toMatchObject({ ok: true, entries: 2 });
    // An administrator who edits entry 1 and writes its new hash breaks entry 2's link.
    const rewritten = { ...one, canonical: 'ONE', hash: chainHash(CHAIN_GENESIS, 'ONE').toString('hex') };
    expect(checkChain([rewritten, two], { position: 2, hash: hashTwo })).toMatchObject({
      ok: false,
      position: 2,
      reason: expect.stringMatching(/does not follow entry 1/) as unknown,
    });
  });

  it('reads a transaction of another organization as one that does not exist', async () => {
    const story = await actedOn(test.db);
    const other = await organizationStory(test.db, store.files, { transactions: [] });
    await expect(
      verifyHistory(test.db, { organizationId: other.organizationId, transactionId: story.transactionId }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(verifyHistory(test.db, { transactionId: 'not-a-uuid' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('keeps one chain per transaction through a multi-row insert that names several transactions', async () => {
    const story = await organizationStory(test.db, store.files, { transactions: ['created', 'created'] });
    const [one = '', two = ''] = story.transactions.map((transaction) => transaction.id);
    const entry = (transactionId: string, action: string) => ({
      organizationId: story.organizationId,
      transactionId,
      kind: 'console' as const,
      action,
      actor: SYSTEM,
    });
    await recordActivities(test.db, [entry(one, 'a'), entry(two, 'a'), entry(one, 'b'), entry(two, 'b')]);
    for (const transactionId of [one, two]) {
      const chain = await chainOf(test.db, transactionId);
      expect(chain.map((row) => Number(row.position))).toEqual(chain.map((_, index) => index + 1));
      expect(await verifyHistory(test.db, { transactionId })).toMatchObject({
        ok: true,
        entries: chain.length,
      });
    }
  });

  it('keeps the chain whole when many writers append to one transaction at once', async () => {
    const story = await organizationStory(test.db, store.files, { transactions: ['created'] });
    // On PostgreSQL, a second pool: writers on other connections, as another node's would be.
    let second = test.db;
    if (test.connection) {
      second = createPostgresDatabase({
        connectionString: test.connection.url,
        connectionOptions: test.connection.options,
      });
      const opened = second;
      cleanups.push(() => opened.close());
    }
    const before = (await chainOf(test.db, story.transactionId)).length;
    const writers = 24;
    await Promise.all(
      Array.from({ length: writers }, (_, index) =>
        (index % 2 === 0 ? test.db : second).transaction(async (tx) => {
          await recordActivity(tx, {
            organizationId: story.organizationId,
            transactionId: story.transactionId,
            kind: 'console',
            action: `act-${String(index)}`,
            actor: SYSTEM,
          });
        }),
      ),
    );
    expect(
      await verifyHistory(test.db, {
        organizationId: story.organizationId,
        transactionId: story.transactionId,
      }),
    ).toMatchObject({ ok: true, entries: before + writers });
  });
});

describe(`Transaction.historyHead in GraphQL (${DIALECT})`, () => {
  it("answers the head of the transaction's history, read by id and in the organization's list", async () => {
    const story = await actedOn(test.db);
    const app = await transactionsApp(test.db, store.files);
    cleanups.push(() => app.close());
    const check = await verifyHistory(test.db, { transactionId: story.transactionId });
    expect(check.ok).toBe(true);

    const byId = await graphql(
      app,
      story.apiKey,
      'query ($id: uuid!) { transaction(id: $id) { id historyHead } }',
      {
        id: story.transactionId,
      },
    );
    expect(byId.body).toEqual({
      data: { transaction: { id: story.transactionId, historyHead: check.head } },
    });
    const listed = await graphql(
      app,
      story.apiKey,
      '{ viewer { transactions { nodes { id state historyHead } } } }',
    );
    expect(listed.body.errors).toBeUndefined();
    expect(listed.body.data?.viewer.transactions.nodes).toEqual([
      { id: story.transactionId, state: expect.any(String) as unknown, historyHead: check.head },
    ]);
  });
});

describe(`the backfill of 0032_history_chain (${DIALECT})`, () => {
  /** A database migrated up to 0031 and nothing further: on PGlite its own, on PostgreSQL a schema of its own. */
  async function databaseAt0031(): Promise<Database> {
    let db: Database;
    if (TEST_DATABASE_URL === undefined) {
      db = await createPGliteFromTemplate('empty');
    } else {
      const { options, drop } = await createTestSchema(TEST_DATABASE_URL);
      cleanups.push(drop);
      db = createPostgresDatabase({ connectionString: TEST_DATABASE_URL, connectionOptions: options });
    }
    const opened = db;
    cleanups.push(() => opened.close());
    await migrate(
      db,
      (await loadMigrations()).filter((migration) => migration.version <= 31),
    );
    return db;
  }

  it('chains the rows written before it, an event before activity of the same instant, and verifies them', async () => {
    const db = await databaseAt0031();
    const story = await organizationStory(db, store.files, { transactions: ['sent', 'created'] });
    const [first = '', second = ''] = story.transactions.map((transaction) => transaction.id);
    // Two rows of one instant: the event is placed first whichever was written first.
    await db.query(
      `insert into transaction_activity (organization_id, transaction_id, kind, action, actor_type, created_at)
       values ($1, $2, 'console', 'same_instant', 'system', '2030-01-01T00:00:00Z')`,
      [story.organizationId, first],
    );
    await db.query(
      `insert into transaction_events (organization_id, transaction_id, event_key, target_state, actor_type, created_at)
       values ($1, $2, 'same_instant', 'sent', 'system', '2030-01-01T00:00:00Z')`,
      [story.organizationId, first],
    );

    expect((await migrate(db)).map((migration) => migration.version)).toContain(32);

    const chain = await chainOf(db, first);
    expect(chain.slice(-2).map((row) => row.source)).toEqual(['event', 'activity']);
    for (const transactionId of [first, second]) {
      const rows = await chainOf(db, transactionId);
      expect(rows.length).toBeGreaterThan(0);
      expect(await verifyHistory(db, { transactionId })).toMatchObject({ ok: true, entries: rows.length });
    }
    // The trigger carries on from the backfilled head.
    await recordActivity(db, {
      organizationId: story.organizationId,
      transactionId: first,
      kind: 'console',
      action: 'after',
      actor: SYSTEM,
    });
    expect(await verifyHistory(db, { transactionId: first })).toMatchObject({
      ok: true,
      entries: chain.length + 1,
    });
  });
});
