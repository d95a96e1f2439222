import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  PorticoError,
  PorticoKeyError,
  verifyWebhook,
  WEBHOOK_EVENT_TYPES,
  WebhookEventError,
  WebhookSignatureError,
  WebhookTimestampError,
  type WebhookEvent,
} from '@portico/client';
import type { Database } from '../../src/db/database.ts';
import { deliverDue, fanOutEvents } from '../../src/webhooks/delivery.ts';
import { createEndpoint, generateWebhookSecret, rotateEndpointSecret } from '../../src/webhooks/endpoints.ts';
import { EVENT_TYPES, type EventType } from '../../src/webhooks/event-types.ts';
import { testDatabaseAndFiles } from '../support/data/transactions.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';

/**
 * `verifyWebhook` of @portico/client on messages from real Portico deliveries: a transaction's events go through
 * the outbox and the delivery worker to a real HTTP receiver, whose raw body and headers are verified here.
 */

/** A request the receiver got: its headers as node:http gives them, and its body's bytes as they arrived. */
interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const world = madeBeforeAll('a database and a webhook receiver', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const received = new Map<string, Received[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const list = received.get(request.url ?? '') ?? [];
      list.push({ headers: request.headers, body: Buffer.concat(chunks) });
      received.set(request.url ?? '', list);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closeAfterAll(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { db, files, origin, received };
});

/** A path of the receiver for one endpoint, and what arrived there. */
function hook(): { url: string; received: () => Received[] } {
  const path = `/hooks/${randomBytes(4).toString('hex')}`;
  return { url: `${world.origin}${path}`, received: () => world.received.get(path) ?? [] };
}

/** Runs the delivery worker's two steps until nothing is left to send. */
async function drain(db: Database): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    const worked = (await fanOutEvents(db)) + (await deliverDue(db, { delaysMs: [0], allowInsecure: true }));
    if (worked === 0) return;
  }
  throw new Error('the worker still had work after 20 rounds');
}

/**
 * A new organization with one transaction taken through its whole lifecycle to complete, an endpoint of it on the
 * receiver for `eventTypes` (`rotate`: its secret rotated before anything is sent), and the messages delivered.
 */
async function delivered(options: { eventTypes: EventType[]; rotate?: boolean }) {
  const story: OrganizationStory = await organizationStory(world.db, world.files);
  const target = hook();
  const { endpoint, secret } = await createEndpoint(world.db, {
    organizationId: story.organizationId,
    url: target.url,
    eventTypes: options.eventTypes,
    allowInsecure: true,
  });
  const rotated = options.rotate
    ? await rotateEndpointSecret(world.db, { organizationId: story.organizationId, endpointId: endpoint.id })
    : undefined;
  await drain(world.db);
  const messages = target.received();
  if (messages.length === 0) throw new Error('no message arrived');
  return { story, secret, newSecret: rotated?.secret, messages };
}

/** The moment a message was signed, per its webhook-timestamp header. */
const signedAt = (message: Received) => new Date(Number(message.headers['webhook-timestamp']) * 1000);

/** What a verification threw (or undefined). */
function thrownBy(verify: () => unknown): unknown {
  try {
    verify();
  } catch (error) {
    return error;
  }
  return undefined;
}

const sent = madeBeforeAll('a delivery of a completed transaction', () =>
  delivered({ eventTypes: ['transaction.completed', 'transaction.state_changed'] }),
);

describe('verifyWebhook on a real Portico delivery', () => {
  it('returns the typed event of each message, verified from the raw bytes and node:http headers', () => {
    const { story, secret, messages } = sent;
    const events: WebhookEvent[] = messages.map((message) =>
      verifyWebhook(message.body, message.headers, secret),
    );
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set(['transaction.completed', 'transaction.state_changed']),
    );
    for (const [index, event] of events.entries()) {
      expect(event.id).toBe(messages[index]?.headers['webhook-id']);
      expect(event.data).toMatchObject({
        transactionId: story.transactionId,
        organizationId: story.organizationId,
      });
    }
    const completed = events.find((event) => event.type === 'transaction.completed');
    // Narrowed on type: completedAt exists on a transaction.completed event only.
    if (completed?.type !== 'transaction.completed') throw new Error('no transaction.completed arrived');
    expect(completed.data.completedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const created = events.find(
      (event) => event.type === 'transaction.state_changed' && event.data.eventKey === 'create',
    );
    expect(created?.data).toMatchObject({ previousState: null });
  });

  it('takes the body as a string and the headers as a Fetch Headers too', () => {
    const { secret, messages } = sent;
    const [message] = messages;
    if (!message) throw new Error('nothing arrived');
    const headers = new Headers();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      headers.set(name, String(message.headers[name]));
    }
    expect(verifyWebhook(message.body.toString('utf8'), headers, secret)).toEqual(
      verifyWebhook(message.body, message.headers, secret),
    );
  });

  it('refuses the same delivery with one byte of its body changed, with a WebhookSignatureError', () => {
    const { secret, messages } = sent;
    const [message] = messages;
    if (!message) throw new Error('nothing arrived');
    const tampered = Buffer.from(message.body);
    const at = tampered.indexOf('"transactionId"') + 20;
    tampered[at] = (tampered[at] ?? 0) ^ 1;
    const error = thrownBy(() => verifyWebhook(tampered, message.headers, secret));
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect(error).toBeInstanceOf(PorticoError);

    // Another endpoint's secret, a changed webhook-id, or no signature at all: refused alike.
    expect(
      thrownBy(() => verifyWebhook(message.body, message.headers, generateWebhookSecret())),
    ).toBeInstanceOf(WebhookSignatureError);
    const otherId = { ...message.headers, 'webhook-id': `msg_${'0'.repeat(32)}` };
    expect(thrownBy(() => verifyWebhook(message.body, otherId, secret))).toBeInstanceOf(
      WebhookSignatureError,
    );
    const unsigned = { ...message.headers, 'webhook-signature': undefined };
    expect(thrownBy(() => verifyWebhook(message.body, unsigned, secret))).toMatchObject({
      name: 'WebhookSignatureError',
      message: 'The webhook request has no webhook-signature header.',
    });
  });

  it('refuses a message signed longer ago, or further ahead, than the tolerance with a WebhookTimestampError', () => {
    const { secret, messages } = sent;
    const [message] = messages;
    if (!message) throw new Error('nothing arrived');
    const at = signedAt(message).getTime();
    const verifyAt = (offsetSeconds: number, toleranceSeconds?: number) =>
      thrownBy(() =>
        verifyWebhook(message.body, message.headers, secret, {
          now: new Date(at + offsetSeconds * 1000),
          ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
        }),
      );
    expect(verifyAt(299)).toBeUndefined();
    expect(verifyAt(-299)).toBeUndefined();
    const old = verifyAt(301);
    expect(old).toBeInstanceOf(WebhookTimestampError);
    expect(old).toMatchObject({
      timestamp: signedAt(message),
      message: expect.stringMatching(/ago/) as unknown,
    });
    expect(verifyAt(-301)).toBeInstanceOf(WebhookTimestampError);
    expect(verifyAt(61, 60)).toBeInstanceOf(WebhookTimestampError);
    // A tampered message is a signature error whatever its time: a time error is only about an authentic message.
    expect(
      thrownBy(() =>
        verifyWebhook(`${message.body.toString('utf8')} `, message.headers, secret, {
          now: new Date(at + 3_600_000),
        }),
      ),
    ).toBeInstanceOf(WebhookSignatureError);
  });

  it('refuses a well-signed message of a type it does not know, or a body that is not JSON, with a WebhookEventError', () => {
    const { secret, messages } = sent;
    const [message] = messages;
    if (!message) throw new Error('nothing arrived');
    const known = JSON.parse(message.body.toString('utf8')) as WebhookEvent;
    const signed = (body: string) => {
      const id = `msg_${randomBytes(16).toString('hex')}`;
      const timestamp = new Date();
      return {
        body,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
        },
      };
    };
    const unknown = signed(JSON.stringify({ ...known, type: 'transaction.archived' }));
    const error = thrownBy(() => verifyWebhook(unknown.body, unknown.headers, secret));
    expect(error).toBeInstanceOf(WebhookEventError);
    expect(error).toMatchObject({ type: 'transaction.archived' });
    const notJson = signed('not json');
    expect(thrownBy(() => verifyWebhook(notJson.body, notJson.headers, secret))).toBeInstanceOf(
      WebhookEventError,
    );
  });

  it('refuses a secret that is not a whsec_ signing secret as a configuration error', () => {
    const [message] = sent.messages;
    if (!message) throw new Error('nothing arrived');
    expect(thrownBy(() => verifyWebhook(message.body, message.headers, 'whsec_not base64!'))).toBeInstanceOf(
      PorticoKeyError,
    );
    expect(thrownBy(() => verifyWebhook(message.body, message.headers, []))).toBeInstanceOf(PorticoKeyError);
  });

  it('knows every event type Portico sends', () => {
    expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES]);
  });
});

describe('verifyWebhook during a secret rotation', () => {
  it('accepts a message signed by the old and the new secret with either secret alone, or both', async () => {
    const {
      secret: old,
      newSecret,
      messages,
    } = await delivered({
      eventTypes: ['transaction.completed'],
      rotate: true,
    });
    if (newSecret === undefined) throw new Error('the secret was not rotated');
    const [message] = messages;
    if (!message) throw new Error('nothing arrived');
    expect(String(message.headers['webhook-signature']).split(' ')).toHaveLength(2);

    const alone = [old, newSecret].map((secret) => verifyWebhook(message.body, message.headers, secret));
    expect(alone.map((event) => event.type)).toEqual(['transaction.completed', 'transaction.completed']);
    expect(verifyWebhook(message.body, message.headers, [newSecret, old])).toEqual(alone[0]);
    // A receiver that holds neither secret is refused, however many it passes.
    expect(
      thrownBy(() =>
        verifyWebhook(message.body, message.headers, [generateWebhookSecret(), generateWebhookSecret()]),
      ),
    ).toBeInstanceOf(WebhookSignatureError);
  });
});
