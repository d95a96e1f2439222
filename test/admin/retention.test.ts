import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { BATCH_ROWS, cleanUp, startRetention, type RetentionResult } from '../../src/admin/retention.ts';
import type { Database } from '../../src/db/database.ts';
import { runPortico } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/db/database.ts';
import { createTestFileStore } from '../support/data/transactions.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';

let testDb: TestDatabase;
let db: Database;
let dataDir: string;
let story: OrganizationStory;
let cleanupFiles: () => Promise<void>;
const DAY = 24 * 60 * 60 * 1000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.db;
  const store = await createTestFileStore();
  cleanupFiles = store.cleanup;
  story = await organizationStory(db, store.files);
  dataDir = await mkdtemp(join(tmpdir(), 'portico-retention-'));
}, 60_000);

afterAll(async () => {
  await testDb.close();
  await cleanupFiles();
  await rm(dataDir, { recursive: true, force: true });
});

/** The rows of each table a rule of the cleanup reads, as they are now, marked old or fresh by a tag. */
async function leftOf(tag: string): Promise<Record<string, number>> {
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql, [`${tag}%`]))[0]?.n ?? 0);
  return {
    outbox: await count(`select count(*) as n from outbox_events where payload->>'tag' like $1`),
    idempotency: await count(`select count(*) as n from idempotency_keys where key like $1`),
    sessions: await count(`select count(*) as n from user_sessions where data->>'tag' like $1`),
    links: await count(
      `select count(*) as n from user_links l join users u on u.id = l.user_id where u.email like $1`,
    ),
    counters: await count(
      `select count(*) as n from attempt_counters where encode(bucket, 'escape') like $1`,
    ),
  };
}

/** Rows of every kind, `days` old (or, for what expires, expired `days` ago), tagged `tag`. */
async function makeRows(tag: string, days: number, counters = 1): Promise<void> {
  const at = ago(days);
  await db.query(
    `insert into outbox_events (organization_id, type, transaction_id, payload, created_at, dispatched_at)
     values ($1, 'transaction.completed', $2, jsonb_build_object('tag', $3::text), $4, $4)`,
    [story.organizationId, story.transactionId, tag, at],
  );
  await db.query(
    `insert into idempotency_keys (organization_id, key, request_hash, response, created_at)
     values ($1, $2, '\\x00', 'null', $3)`,
    [story.organizationId, `${tag}-key`, at],
  );
  await db.query(
    `insert into user_sessions (id_hash, data, expires_at) values ($1, jsonb_build_object('tag', $2::text), $3)`,
    [randomBytes(32), tag, at],
  );
  const [user] = await db.query<{ id: string }>(
    `insert into users (organization_id, email, role) values ($1, $2, 'admin') returning id`,
    [story.organizationId, `${tag}@example.com`],
  );
  for (const purpose of ['password_reset', 'invitation'])
    await db.query(
      `insert into user_links (user_id, purpose, token_hash, expires_at, created_at) values ($1, $2, $3, $4, $4)`,
      [user?.id, purpose, randomBytes(32), at],
    );
  await db.query(
    `insert into attempt_counters (bucket, count, resets_at)
     select convert_to($1 || '-' || i, 'UTF8'), 1, $2 from generate_series(1, $3::integer) i`,
    [tag, at, counters],
  );
  await mkdir(join(dataDir, 'mail'), { recursive: true });
  const mail = join(dataDir, 'mail', `${tag}.eml`);
  await writeFile(mail, 'Subject: old\r\n\r\n');
  await utimes(mail, at, at);
}

const removedOf = (results: RetentionResult[]) =>
  Object.fromEntries(results.map((result) => [result.table, result.removed]));

describe('the retention cleanup', () => {
  it('removes what is older than its setting in batches, keeps what is fresh, and a dry run removes nothing', async () => {
    const old = `old-${randomBytes(3).toString('hex')}`;
    const fresh = `fresh-${randomBytes(3).toString('hex')}`;
    await makeRows(old, 40, BATCH_ROWS + 200);
    await makeRows(fresh, -1);
    // A webhook event old enough to go, but with a delivery still pending, stays.
    const [pending] = await db.query<{ id: string }>(
      `insert into outbox_events (organization_id, type, transaction_id, payload, created_at, dispatched_at)
       values ($1, 'transaction.completed', $2, jsonb_build_object('tag', $3::text), $4, $4) returning id`,
      [story.organizationId, story.transactionId, `${old}-pending`, ago(40)],
    );
    const [endpoint] = await db.query<{ id: string }>(
      `insert into webhook_endpoints (organization_id, url, event_types, secret)
       values ($1, 'https://hooks.example.com/', array['transaction.completed'], '\\x00') returning id`,
      [story.organizationId],
    );
    await db.query(
      `insert into webhook_deliveries (organization_id, endpoint_id, event_id, message_id, event_type, body)
       values ($1, $2, $3, 'msg_pending', 'transaction.completed', '{}')`,
      [story.organizationId, endpoint?.id, pending?.id],
    );
    const before = await leftOf(old);
    expect(before).toEqual({ outbox: 2, idempotency: 1, sessions: 1, links: 2, counters: BATCH_ROWS + 200 });

    const dry = await cleanUp(db, { dataDir, settings: {}, dryRun: true });
    expect(removedOf(dry)).toMatchObject({
      user_sessions: expect.any(Number) as unknown,
      '<data dir>/mail': 1,
    });
    expect(removedOf(dry).attempt_counters).toBeGreaterThanOrEqual(BATCH_ROWS + 200);
    expect(await leftOf(old)).toEqual(before);
    expect(await readdir(join(dataDir, 'mail'))).toContain(`${old}.eml`);

    const done = await cleanUp(db, { dataDir, settings: {} });
    expect(removedOf(done)).toEqual(removedOf(dry));
    // The invitation stays (the team's history), and the event whose delivery is pending.
    expect(await leftOf(old)).toEqual({ outbox: 1, idempotency: 0, sessions: 0, links: 1, counters: 0 });
    expect(await leftOf(fresh)).toEqual({ outbox: 1, idempotency: 1, sessions: 1, links: 2, counters: 1 });
    expect(await readdir(join(dataDir, 'mail'))).toEqual([`${fresh}.eml`]);
  });

  it('keeps for good what PORTICO_RETENTION says never, and prints what portico cleanup removed', async () => {
    const old = `kept-${randomBytes(3).toString('hex')}`;
    await makeRows(old, 400);
    const ran = await runPortico(['cleanup', '--dry-run'], {
      database: db,
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_RETENTION: 'webhooks=never,mail=never,sessions=0' },
    });
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toMatch(/^Would remove \(a dry run: nothing was removed\):/);
    expect(ran.stdout).toMatch(
      /webhook events, with their deliveries and attempts +0 {2}\(outbox_events, kept for good\)/,
    );
    expect(ran.stdout).toMatch(/expired sessions +[1-9]\d* {2}\(user_sessions, once over\)/);
    expect(ran.stdout).toMatch(/idempotency keys +[1-9]\d* {2}\(idempotency_keys, older than 24 hours\)/);
    const removed = await runPortico(['cleanup', '--json'], {
      database: db,
      env: { PORTICO_DATA_DIR: dataDir, PORTICO_RETENTION: 'webhooks=never,mail=never' },
    });
    expect(removed.code).toBe(0);
    expect(removedOf(JSON.parse(removed.stdout) as RetentionResult[])).toMatchObject({
      outbox_events: 0,
      '<data dir>/mail': 0,
    });
    expect(await leftOf(old)).toMatchObject({ outbox: 1, sessions: 0, idempotency: 0 });
    expect(await readdir(join(dataDir, 'mail'))).toContain(`${old}.eml`);
  });

  it('runs by itself while serve runs, and stops when told', async () => {
    const old = `timed-${randomBytes(3).toString('hex')}`;
    await makeRows(old, 40);
    const retention = startRetention({
      db,
      dataDir,
      settings: {},
      logger: pino({ level: 'silent' }),
      firstAfterMs: 0,
      intervalMs: 10,
    });
    try {
      await expect.poll(() => leftOf(old), { timeout: 10_000 }).toMatchObject({ outbox: 0, sessions: 0 });
    } finally {
      await retention.stop();
    }
  });
});
