import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';

// Prepared statements are a PostgreSQL server's: this file needs one whichever database the suite runs on.
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `test_prepared_${randomBytes(6).toString('hex')}`;
const options = `-c search_path=${schema}`;
const opened: Database[] = [];

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function open(preparedStatements?: number): Database {
  const db = createPostgresDatabase({
    connectionString: SERVER_URL,
    connectionOptions: options,
    maxConnections: 1,
    ...(preparedStatements === undefined ? {} : { preparedStatements }),
  });
  opened.push(db);
  return db;
}

/** The statements this connection holds prepared (the pool has one connection, so it is every statement's). */
async function preparedTexts(db: Database): Promise<string[]> {
  const rows = await db.query<{ statement: string }>(
    'select statement from pg_prepared_statements order by prepare_time',
  );
  return rows.map((row) => row.statement);
}

beforeAll(async () => {
  await admin(`create schema ${schema}`);
  await admin(`create table ${schema}.notes (id int primary key, body text)`);
  await admin(`insert into ${schema}.notes values (1, 'one'), (2, 'two')`);
});

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
  await admin(`drop schema ${schema} cascade`);
});

describe('statements on a PostgreSQL server', () => {
  it('are prepared once per connection and then only run, with the same answers', async () => {
    const db = open();
    const text = 'select body from notes where id = $1';
    expect(await db.query(text, [1])).toEqual([{ body: 'one' }]);
    expect(await db.query(text, [2])).toEqual([{ body: 'two' }]);
    await db.transaction(async (tx) => {
      expect(await tx.query(text, [1])).toEqual([{ body: 'one' }]);
    });
    const prepared = await preparedTexts(db);
    expect(prepared.filter((statement) => statement === text)).toHaveLength(1);
  });

  it('stop being prepared past the capacity, and run unprepared instead', async () => {
    const db = open(2);
    for (let id = 1; id <= 4; id += 1) {
      expect(await db.query(`select ${id} as n, body from notes where id = $1`, [1])).toEqual([
        { n: id, body: 'one' },
      ]);
    }
    // The two first texts, and the catalogue query (past the capacity too) is not among them.
    expect(await preparedTexts(db)).toEqual([
      'select 1 as n, body from notes where id = $1',
      'select 2 as n, body from notes where id = $1',
    ]);
  });

  it('are not prepared at all with a capacity of 0', async () => {
    const db = open(0);
    expect(await db.query('select body from notes where id = $1', [2])).toEqual([{ body: 'two' }]);
    expect(await preparedTexts(db)).toEqual([]);
  });

  it('still answer after a migration changed the columns a prepared statement returns', async () => {
    const db = open();
    const text = 'select * from notes where id = $1';
    expect(await db.query(text, [1])).toEqual([{ id: 1, body: 'one' }]);
    await admin(`alter table ${schema}.notes add column title text`);
    expect(await db.query(text, [1])).toEqual([{ id: 1, body: 'one', title: null }]);
    expect(await db.query(text, [2])).toEqual([{ id: 2, body: 'two', title: null }]);
  });
});
