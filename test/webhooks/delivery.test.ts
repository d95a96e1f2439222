import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TransactionsDemo } from '../../src/demo/seed.ts';
import { deliverDue, fanOutEvents } from '../../src/webhooks/delivery.ts';
import { safeDispatcher } from '../../src/webhooks/address-safety.ts';
import { createEndpoint, rotateEndpointSecret } from '../../src/webhooks/endpoints.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { fakeLookup, fakeLookupAll } from '../support/dns.ts';
import { createTestFileStore, seedOrganization } from '../support/transactions.ts';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on loopback that answers each request with the next status of its script (then 200). */
function receiver() {
  const received: Received[] = [];
  let script: number[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = script.shift() ?? 200;
      response.writeHead(status, {
        'content-type': 'text/plain',
        // A redirect points at the receiver itself: following it would show as a second request.
        ...(status === 302 ? { location: '/elsewhere' } : {}),
        ...(status === 429 ? { 'retry-after': '3600' } : {}),
      });
      response.end(`answer ${received.length}`);
    });
  });
  return {
    received,
    answerWith(statuses: number[]) {
      script = [...statuses];
    },
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
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
let demo: TransactionsDemo;
const hook = receiver();
let url: string;

beforeAll(async () => {
  testDb = await createTestDatabase();
  const files = await createTestFileStore();
  cleanup = files.cleanup;
  url = await hook.start();
  demo = await seedOrganization(testDb.db, files.files);
});

afterAll(async () => {
  await hook.close();
  await testDb.close();
  await cleanup();
});

beforeEach(() => {
  hook.received.length = 0;
  hook.answerWith([]);
});

/** Runs the worker's two steps until nothing is due (retry delays are 0 in these tests). */
async function drain(delaysMs: number[] = [0, 0, 0]): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    const worked =
      (await fanOutEvents(testDb.db)) + (await deliverDue(testDb.db, { delaysMs, allowInsecure: true }));
    if (worked === 0) return;
  }
  throw new Error('the worker still had work after 20 rounds');
}

/** Leaves `endpointId` the only enabled endpoint, so each test sees its own deliveries only. */
async function only(endpointId: string): Promise<void> {
  await testDb.db.query('update webhook_endpoints set disabled_at = now() where id <> $1', [endpointId]);
}

const headersOf = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

describe('webhook delivery from the outbox', () => {
  it('delivers a completed transaction as a message that verifies with standardwebhooks', async () => {
    const { secret } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.completed'],
      allowInsecure: true,
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await drain();

    expect(hook.received).toHaveLength(1);
    const [message] = hook.received;
    if (!message) throw new Error('nothing arrived');
    const payload = new Webhook(secret).verify(message.body, headersOf(message)) as Record<string, unknown>;
    expect(payload).toMatchObject({
      id: message.headers['webhook-id'],
      type: 'transaction.completed',
      data: { transactionId: demo.transactionId, organizationId: demo.organizationId },
    });
    expect(String(payload.timestamp)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(message.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);

    // Fanned out once: running the worker again sends nothing more.
    await drain();
    expect(hook.received).toHaveLength(1);
  });

  it('tries a receiver that answers 500 twice three times, with the same webhook-id, and logs every attempt', async () => {
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.completed'],
      allowInsecure: true,
    });
    await only(endpoint.id);
    // A new event for the endpoint: the seeded ones were dispatched by the test before.
    await testDb.db.query(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.completed', $2, $3)`,
      [demo.organizationId, demo.transactionId, { transactionId: demo.transactionId, state: 'completed' }],
    );
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
    const { endpoint, secret: old } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: true,
    });
    await only(endpoint.id);
    const { secret: fresh } = await rotateEndpointSecret(testDb.db, {
      organizationId: demo.organizationId,
      endpointId: endpoint.id,
    });
    await testDb.db.query(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.state_changed', $2, $3)`,
      [demo.organizationId, demo.transactionId, { transactionId: demo.transactionId, state: 'completed' }],
    );
    await drain();
    const [message] = hook.received;
    if (!message) throw new Error('nothing arrived');
    expect(String(message.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(() => new Webhook(secret).verify(message.body, headersOf(message))).not.toThrow();
    }
  });

  it('stops retrying after the schedule is spent, and disables an endpoint that answers 410 Gone', async () => {
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: true,
    });
    await only(endpoint.id);
    const event = () =>
      testDb.db.query(
        `insert into outbox_events (organization_id, type, transaction_id, payload)
         values ($1, 'transaction.state_changed', $2, '{}')`,
        [demo.organizationId, demo.transactionId],
      );
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
    const port = new URL(url).port;
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url: `https://rebind.test:${port}/hooks`,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: false,
      // At save time the name points at a public address…
      lookup: fakeLookupAll({ 'rebind.test': ['93.184.215.14'] }),
    });
    await only(endpoint.id);
    await testDb.db.query(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.state_changed', $2, '{}')`,
      [demo.organizationId, demo.transactionId],
    );
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
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: true,
    });
    await only(endpoint.id);
    const event = () =>
      testDb.db.query(
        `insert into outbox_events (organization_id, type, transaction_id, payload)
         values ($1, 'transaction.state_changed', $2, '{}')`,
        [demo.organizationId, demo.transactionId],
      );
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
    const { endpoint } = await createEndpoint(testDb.db, {
      organizationId: demo.organizationId,
      url,
      eventTypes: ['transaction.state_changed'],
      allowInsecure: true,
    });
    await only(endpoint.id);
    await testDb.db.query(
      "update webhook_endpoints set failing_since = now() - interval '6 days' where id = $1",
      [endpoint.id],
    );
    await testDb.db.query(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.state_changed', $2, '{}')`,
      [demo.organizationId, demo.transactionId],
    );
    hook.answerWith([500]);
    await fanOutEvents(testDb.db);
    await deliverDue(testDb.db, { allowInsecure: true, delaysMs: [1000] });
    const [state] = await testDb.db.query<{ disabledReason: string | null }>(
      'select disabled_reason as "disabledReason" from webhook_endpoints where id = $1',
      [endpoint.id],
    );
    expect(state?.disabledReason).toBe('every attempt failed for 5 days');
  });
});
