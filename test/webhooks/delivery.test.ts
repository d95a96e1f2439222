import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../../src/files/file-store.ts';
import type { Database } from '../../src/db/database.ts';
import { createPostgresDatabase } from '../../src/db/postgres-database.ts';
import { deliverDue, fanOutEvents, startWebhookWorker } from '../../src/webhooks/delivery.ts';
import { nextStep } from '../../src/webhooks/delivery-outcome.ts';
import { writeOutbox } from '../../src/webhooks/outbox.ts';
import { safeDispatcher } from '../../src/webhooks/safe-dispatcher.ts';
import { createEndpoint, rotateEndpointSecret } from '../../src/webhooks/endpoints.ts';
import type { EventType } from '../../src/webhooks/event-types.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../support/db/database.ts';
import { fakeLookup, fakeLookupAll } from '../support/peers/dns.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { createTestFileStore } from '../support/data/transactions.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What one path of the receiver got, and the statuses it answers with next (then 200). */
interface Hook {
  url: string;
  received: Received[];
  answerWith(statuses: number[]): void;
}

/**
 * A real HTTP receiver on loopback. Each test takes a path of its own (`hook()`), with its own script and its
 * own list of requests, so a retry left due by another test never shows in (or answers from) this one's.
 */
function receiver() {
  const paths = new Map<string, { received: Received[]; script: number[] }>();
  let base = '';
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const path = paths.get(request.url ?? '');
      path?.received.push({ headers: request.headers, body });
      const status = path?.script.shift() ?? 200;
      response.writeHead(status, {
        'content-type': 'text/plain',
        // A redirect points at the receiver itself: following it would show as a second request.
        ...(status === 302 ? { location: '/elsewhere' } : {}),
        ...(status === 429 ? { 'retry-after': '3600' } : {}),
      });
      response.end(`answer ${path?.received.length ?? 0}`);
    });
  });
  return {
    async start(): Promise<void> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    hook(): Hook {
      const pathname = `/hooks/${randomBytes(4).toString('hex')}`;
      const path = { received: [] as Received[], script: [] as number[] };
      paths.set(pathname, path);
      return {
        url: `${base}${pathname}`,
        received: path.received,
        answerWith(statuses) {
          path.script = [...statuses];
        },
      };
    },
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

let testDb: TestDatabase;
let cleanup: () => Promise<void>;
let files: FileStore;
const hooks = receiver();

beforeAll(async () => {
  testDb = await createTestDatabase();
  const store = await createTestFileStore();
  cleanup = store.cleanup;
  files = store.files;
  await hooks.start();
});

afterAll(async () => {
  await hooks.close();
  await testDb.close();
  await cleanup();
});

/**
 * An organization of the test's own with one complete transaction. `quiet` marks its events as dispatched, for
 * tests that emit the events they count themselves.
 */
async function tenant(options: { quiet?: boolean } = {}): Promise<OrganizationStory> {
  const story = await organizationStory(testDb.db, files);
  if (options.quiet === true) {
    await testDb.db.query('update outbox_events set dispatched_at = now() where organization_id = $1', [
      story.organizationId,
    ]);
  }
  return story;
}

/** Writes an event about the tenant's transaction to the outbox, as a transition would. */
async function emit(story: OrganizationStory, type: EventType, payload: object = {}): Promise<void> {
  await testDb.db.query(
    `insert into outbox_events (organization_id, type, transaction_id, payload) values ($1, $2, $3, $4)`,
    [story.organizationId, type, story.transactionId, payload],
  );
}

/** An endpoint of the tenant at `url` (plain http on loopback allowed) for one event type. */
function endpointFor(story: OrganizationStory, url: string, eventType: EventType) {
  return createEndpoint(testDb.db, {
    organizationId: story.organizationId,
    url,
    eventTypes: [eventType],
    allowInsecure: true,
  });
}

/** Runs the worker's two steps until nothing is due (retry delays are 0 in these tests). */
async function drain(delaysMs: number[] = [0, 0, 0]): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    const worked =
      (await fanOutEvents(testDb.db)) + (await deliverDue(testDb.db, { delaysMs, allowInsecure: true }));
    if (worked === 0) return;
  }
  throw new Error('the worker still had work after 20 rounds');
}

const headersOf = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

describe('webhook delivery from the outbox', () => {
  it('delivers a completed transaction as a message that verifies with standardwebhooks', async () => {
    // The seeded transaction is complete: its transaction.completed event is what arrives.
    const story = await tenant();
    const hook = hooks.hook();
    const { secret } = await endpointFor(story, hook.url, 'transaction.completed');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await drain();

    expect(hook.received).toHaveLength(1);
    const [message] = hook.received;
    if (!message) throw new Error('nothing arrived');
    const payload = new Webhook(secret).verify(message.body, headersOf(message)) as Record<string, unknown>;
    expect(payload).toMatchObject({
      id: message.headers['webhook-id'],
      type: 'transaction.completed',
      data: { transactionId: story.transactionId, organizationId: story.organizationId },
    });
    expect(String(payload.timestamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(message.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);

    // Fanned out once: running the worker again sends nothing more.
    await drain();
    expect(hook.received).toHaveLength(1);
  });

  it('tries a receiver that answers 500 twice three times, with the same webhook-id, and logs every attempt', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    await endpointFor(story, hook.url, 'transaction.completed');
    await emit(story, 'transaction.completed', { transactionId: story.transactionId, state: 'completed' });
    hook.answerWith([500, 500, 200]);
    await drain();

    const ids = new Set(hook.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(hook.received).toHaveLength(3);
    const attempts = await testDb.db.query<{ statusCode: number; responseBody: string; status: string }>(
      `select a.status_code as "statusCode", a.response_body as "responseBody", d.status
       from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
       where d.message_id = $1 order by a.sequence`,
      [[...ids][0]],
    );
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(attempts.every((a) => a.status === 'delivered')).toBe(true);
    expect(attempts[0]?.responseBody).toMatch(/^answer \d+$/);
  });

  it('signs with the old and the new secret for a day after a rotation, and both verify', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    const { endpoint, secret: old } = await endpointFor(story, hook.url, 'transaction.state_changed');
    const { secret: fresh } = await rotateEndpointSecret(testDb.db, {
      organizationId: story.organizationId,
      endpointId: endpoint.id,
    });
    await emit(story, 'transaction.state_changed', {
      transactionId: story.transactionId,
      state: 'completed',
    });
    await drain();
    const [message] = hook.received;
    if (!message) throw new Error('nothing arrived');
    expect(String(message.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(() => new Webhook(secret).verify(message.body, headersOf(message))).not.toThrow();
    }
  });

  it('stops retrying after the schedule is spent, and disables an endpoint that answers 410 Gone', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    const { endpoint } = await endpointFor(story, hook.url, 'transaction.state_changed');
    const event = () => emit(story, 'transaction.state_changed');
    const deliveries = () =>
      testDb.db.query<{ status: string; attempts: number }>(
        'select status, attempts from webhook_deliveries where endpoint_id = $1 order by sequence',
        [endpoint.id],
      );

    // A schedule of one retry: 500, then 500 again, and the delivery has failed.
    await event();
    hook.answerWith([500, 500]);
    await drain([0]);
    expect(hook.received).toHaveLength(2);
    expect(await deliveries()).toEqual([{ status: 'failed', attempts: 2 }]);

    // 410 Gone: no retry, and the endpoint is disabled.
    await event();
    hook.answerWith([410]);
    await drain([0]);
    expect(hook.received).toHaveLength(3);
    expect(await deliveries()).toEqual([
      { status: 'failed', attempts: 2 },
      { status: 'failed', attempts: 1 },
    ]);
    const [state] = await testDb.db.query<{ disabledReason: string | null }>(
      'select disabled_reason as "disabledReason" from webhook_endpoints where id = $1',
      [endpoint.id],
    );
    expect(state?.disabledReason).toBe('the endpoint answered 410 Gone');
  });

  it('refuses at send time a host that now resolves to a private address, and logs why', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    const { port, pathname } = new URL(hook.url);
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: story.organizationId,
      url: `https://rebind.test:${port}${pathname}`,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: false,
      // At save time the name points at a public address…
      lookup: fakeLookupAll({ 'rebind.test': ['93.184.215.14'] }),
    });
    await emit(story, 'transaction.state_changed');
    await fanOutEvents(testDb.db);
    // …and when the worker connects, at loopback.
    const dispatcher = safeDispatcher({
      allowPrivate: false,
      lookup: fakeLookup({ 'rebind.test': ['127.0.0.1'] }),
    });
    await deliverDue(testDb.db, { dispatcher, delaysMs: [0] });
    expect(hook.received).toHaveLength(0);
    const [attempt] = await testDb.db.query<{ error: string; statusCode: number | null }>(
      `select a.error, a.status_code as "statusCode" from webhook_attempts a
       join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1`,
      [endpoint.id],
    );
    expect(attempt?.statusCode).toBeNull();
    expect(attempt?.error).toMatch(/127\.0\.0\.1/);
  });

  it('counts a redirect as a failure without following it, and lets Retry-After on 429 push the retry later', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    const { endpoint } = await endpointFor(story, hook.url, 'transaction.state_changed');
    const event = () => emit(story, 'transaction.state_changed');
    const latest = async () => {
      const [row] = await testDb.db.query<{ status: string; attempts: number; waitMs: number }>(
        `select status, attempts, (extract(epoch from next_attempt_at - last_attempt_at) * 1000)::float8 as "waitMs"
         from webhook_deliveries where endpoint_id = $1 order by sequence desc limit 1`,
        [endpoint.id],
      );
      return row;
    };

    await event();
    hook.answerWith([302]);
    await fanOutEvents(testDb.db);
    await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [1000] });
    expect(hook.received).toHaveLength(1);
    expect(await latest()).toMatchObject({ status: 'pending', attempts: 1 });

    await testDb.db.query("update webhook_deliveries set status = 'failed' where endpoint_id = $1", [
      endpoint.id,
    ]);
    await event();
    hook.answerWith([429]);
    await fanOutEvents(testDb.db);
    await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [1000] });
    const limited = await latest();
    // The schedule says about a second; Retry-After says an hour.
    expect(limited?.waitMs).toBeGreaterThanOrEqual(3_599_000);
  });

  it('disables an endpoint that has failed for longer than the limit', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    const { endpoint } = await endpointFor(story, hook.url, 'transaction.state_changed');
    await testDb.db.query(
      "update webhook_endpoints set failing_since = now() - interval '6 days' where id = $1",
      [endpoint.id],
    );
    await emit(story, 'transaction.state_changed');
    hook.answerWith([500]);
    await fanOutEvents(testDb.db);
    await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [1000] });
    const [state] = await testDb.db.query<{ disabledReason: string | null }>(
      'select disabled_reason as "disabledReason" from webhook_endpoints where id = $1',
      [endpoint.id],
    );
    expect(state?.disabledReason).toBe('every attempt failed for 5 days');
  });

  it.each([
    { disableAfterMs: undefined, reason: 'every attempt failed for 5 days' },
    { disableAfterMs: 36 * 3600 * 1000, reason: 'every attempt failed for 36 hours' },
    { disableAfterMs: 24 * 3600 * 1000, reason: 'every attempt failed for 1 day' },
  ])(
    'says the period it waited when it disables a failing endpoint ($reason)',
    ({ disableAfterMs, reason }) => {
      const now = new Date('2026-03-10T12:00:00Z');
      const failingSince = new Date(now.getTime() - 6 * 24 * 3600 * 1000);
      const step = nextStep(
        { attempts: 1, failingSince },
        { statusCode: 500, durationMs: 5 },
        { now, disableAfterMs },
      );
      expect(step.disableReason).toBe(reason);
    },
  );
});

describe('recording a batch', () => {
  it('records every attempt of a batch in one go: each delivery as its answer left it, a healthy endpoint untouched and a failing one disabled once', async () => {
    const story = await tenant({ quiet: true });
    const healthy = hooks.hook();
    const failing = hooks.hook();
    const { endpoint: good } = await endpointFor(story, healthy.url, 'transaction.state_changed');
    const { endpoint: bad } = await endpointFor(story, failing.url, 'transaction.state_changed');
    await testDb.db.query(
      "update webhook_endpoints set failing_since = now() - interval '6 days' where id = $1",
      [bad.id],
    );
    for (const state of ['a', 'b', 'c']) await emit(story, 'transaction.state_changed', { state });
    failing.answerWith([500, 500, 500]);
    await fanOutEvents(testDb.db);
    // One batch holds all six deliveries (and whatever else is due in this file's database).
    await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [1000], batchSize: 50 });
    expect(healthy.received).toHaveLength(3);
    expect(failing.received).toHaveLength(3);

    const deliveries = await testDb.db.query<{
      endpointId: string;
      status: string;
      attempts: number;
      delivered: boolean;
      claimed: boolean;
      logged: number;
      statusCode: number;
    }>(
      `select d.endpoint_id as "endpointId", d.status, d.attempts, d.delivered_at is not null as delivered,
         d.claimed_until is not null as claimed, count(a.id)::int as logged, max(a.status_code) as "statusCode"
       from webhook_deliveries d join webhook_attempts a on a.delivery_id = d.id
       where d.endpoint_id in ($1, $2) group by d.id order by d.endpoint_id`,
      [good.id, bad.id],
    );
    // Each endpoint's three deliveries were tried once each: the healthy one's delivered, the failing one's pending.
    const outcomes = (endpointId: string) =>
      deliveries
        .filter((d) => d.endpointId === endpointId)
        .map(({ status, delivered, statusCode }) => ({ status, delivered, statusCode }));
    expect(deliveries.map(({ attempts, claimed, logged }) => ({ attempts, claimed, logged }))).toEqual(
      Array.from({ length: 6 }, () => ({ attempts: 1, claimed: false, logged: 1 })),
    );
    expect(outcomes(good.id)).toEqual(
      Array.from({ length: 3 }, () => ({ status: 'delivered', delivered: true, statusCode: 200 })),
    );
    expect(outcomes(bad.id)).toEqual(
      Array.from({ length: 3 }, () => ({ status: 'pending', delivered: false, statusCode: 500 })),
    );
    const endpoints = await testDb.db.query<{ id: string; failing: boolean; disabledReason: string | null }>(
      `select id, failing_since is not null as failing, disabled_reason as "disabledReason"
       from webhook_endpoints where id in ($1, $2)`,
      [good.id, bad.id],
    );
    expect(
      Object.fromEntries(endpoints.map((e) => [e.id, { failing: e.failing, reason: e.disabledReason }])),
    ).toEqual({
      [good.id]: { failing: false, reason: null },
      [bad.id]: { failing: true, reason: 'every attempt failed for 5 days' },
    });
  });
});

describe('waking on commit', () => {
  it('delivers an event committed while the worker sleeps, long before its 60 s poll would look again', async () => {
    const story = await tenant({ quiet: true });
    const hook = hooks.hook();
    await endpointFor(story, hook.url, 'transaction.state_changed');
    // The worker's database, watched: once a claim finds nothing due, the worker has gone to sleep for pollMs.
    let idleRounds = 0;
    /** Idle rounds seen once the webhook had arrived: the worker went back to sleep after sending it. */
    let idleRoundsAfterDelivery = 0;
    const watched: Database = {
      ...testDb.db,
      query: async <Row>(text: string, params?: readonly unknown[]) => {
        const rows = await testDb.db.query<Row>(text, params);
        if (text.startsWith('update webhook_deliveries d set claimed_until') && rows.length === 0) {
          idleRounds += 1;
          if (hook.received.length > 0) idleRoundsAfterDelivery += 1;
        }
        return rows;
      },
    };
    const errors: unknown[] = [];
    const worker = startWebhookWorker(watched, {
      allowInsecure: true,
      pollMs: 60_000,
      onError: (error) => errors.push(error),
    });
    try {
      // At least once: on PostgreSQL other test files share the database, and with it the notification channel,
      // so their commits may wake this worker for more idle rounds.
      await until(() => idleRounds >= 1);
      // A rolled-back change notifies nobody and sends nothing; the committed one wakes the worker.
      await expect(
        testDb.db.transaction(async (tx) => {
          await writeOutbox(tx, {
            transaction: { id: story.transactionId, organizationId: story.organizationId },
            type: 'transaction.state_changed',
            facts: { state: 'rolled-back' },
          });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await testDb.db.transaction((tx) =>
        writeOutbox(tx, {
          transaction: { id: story.transactionId, organizationId: story.organizationId },
          type: 'transaction.state_changed',
          facts: { state: 'committed' },
        }),
      );
      await until(() => hook.received.length === 1);
      expect(JSON.parse(hook.received[0]?.body ?? '{}')).toMatchObject({ data: { state: 'committed' } });
      // Asleep again, with nothing more sent.
      await until(() => idleRoundsAfterDelivery >= 1);
      expect(hook.received).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});

describe('listening for notifications', () => {
  it('hears a notification only after its transaction commits, and nothing once closed', async () => {
    const channel = `test_${randomBytes(4).toString('hex')}`;
    let heard = 0;
    const listener = await testDb.db.listen(channel, () => {
      heard += 1;
    });
    await testDb.db.transaction(async (tx) => {
      await tx.query('select pg_notify($1, $2)', [channel, '']);
      // Not before the commit.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toBe(0);
    });
    await until(() => heard === 1);
    await listener.close();
    await testDb.db.query('select pg_notify($1, $2)', [channel, '']);
    await testDb.db.query('select 1');
    expect(heard).toBe(1);
  });

  it.skipIf(TEST_DATABASE_URL === undefined)(
    'on PostgreSQL, listens again after its connection is terminated, and says so once it does',
    async () => {
      const tag = `listener_${randomBytes(4).toString('hex')}`;
      const url = TEST_DATABASE_URL ?? '';
      const db = createPostgresDatabase({
        connectionString: url,
        connectionOptions: `-c application_name=${tag}`,
      });
      const channel = `test_${randomBytes(4).toString('hex')}`;
      let heard = 0;
      const listener = await db.listen(channel, () => {
        heard += 1;
      });
      const listening = async () =>
        (
          await testDb.db.query<{ pid: number }>(
            `select pid from pg_stat_activity where application_name = $1 and query like 'listen %'`,
            [tag],
          )
        ).map((row) => row.pid);
      try {
        const [pid] = await listening();
        expect(pid).toBeDefined();
        await testDb.db.query('select pg_terminate_backend($1)', [pid]);
        // Told once it listens again, for whatever was notified while it did not.
        await until(() => heard === 1);
        const again = await listening();
        expect(again).toHaveLength(1);
        expect(again).not.toContain(pid);
        await testDb.db.query('select pg_notify($1, $2)', [channel, '']);
        await until(() => heard === 2);
      } finally {
        await listener.close();
        await db.close();
      }
    },
  );
});

/** Waits for `condition`, looking every 10 ms; fails after 20 s, a third of the worker's poll interval. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
