import { beforeEach, describe, expect, it } from 'vitest';
import { fakeLookupAll } from '../support/peers/dns.ts';
import { CREATE_TRANSACTION, graphql, transactionInput } from '../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite({
  // Public addresses for the example hosts, a private one for the host that must be refused.
  webhookLookup: fakeLookupAll({
    'hooks.example.com': ['93.184.215.14'],
    'a.example.com': ['93.184.215.14'],
    'b.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'c.example.com': ['93.184.215.14'],
    'intranet.example.com': ['10.0.0.7'],
  }),
});
/** The organization of the running test: a fresh one each test, so its endpoints and deliveries are its own. */
let demo: EmptyTenant;

beforeEach(async () => {
  demo = await suite.emptyTenant();
});

const ENDPOINT = 'id url description eventTypes enabled disabledReason deliveries { id }';
const CREATE = `mutation ($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) { secret webhookEndpoint { ${ENDPOINT} } }
}`;

const ENDPOINT_BY_ID = 'query ($id: uuid!) { webhookEndpoint(id: $id) { id } }';
const DISABLE = `mutation ($input: WebhookEndpointIdInput!) {
  disableWebhookEndpoint(input: $input) { webhookEndpoint { id } }
}`;
const DELIVERIES = `query ($id: uuid!) {
  webhookEndpoint(id: $id) {
    deliveries { id messageId status attempts attemptLog { statusCode durationMs responseBody error } }
  }
}`;
const RESEND = `mutation ($input: ResendWebhookDeliveryInput!) { resendWebhookDelivery(input: $input) { count } }`;
const DELIVERY = 'query ($id: uuid!) { webhookDelivery(id: $id) { messageId status attempts } }';

async function create(key: string, input: Record<string, unknown>) {
  return graphql(suite.app, key, CREATE, { input });
}

describe('managing webhook endpoints through GraphQL', () => {
  it('creates an endpoint, shows its secret once, and lists it on the viewer without the secret', async () => {
    const { body } = await create(demo.apiKey, {
      url: 'https://hooks.example.com/portico',
      description: 'ERP',
      eventTypes: ['TRANSACTION_COMPLETED', 'TRANSACTION_STATE_CHANGED'],
    });
    expect(body.errors).toBeUndefined();
    const created = body.data?.createWebhookEndpoint;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.webhookEndpoint).toMatchObject({
      url: 'https://hooks.example.com/portico',
      description: 'ERP',
      eventTypes: ['TRANSACTION_COMPLETED', 'TRANSACTION_STATE_CHANGED'],
      enabled: true,
      deliveries: [],
    });
    const listed = await graphql(suite.app, demo.apiKey, `{ viewer { webhookEndpoints { ${ENDPOINT} } } }`);
    expect(listed.body.data?.viewer.webhookEndpoints).toContainEqual(created.webhookEndpoint);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    const [stored] = await suite.db.query<{ secret: Uint8Array }>(
      'select secret from webhook_endpoints where id = $1',
      [created.webhookEndpoint.id],
    );
    expect(Buffer.from(stored?.secret ?? []).toString('latin1')).not.toContain('whsec_');
  });

  it('refuses a plain-http URL, no event types, and a URL that resolves to a private, loopback or metadata address', async () => {
    for (const input of [
      { url: 'http://hooks.example.com/', eventTypes: ['TRANSACTION_COMPLETED'] },
      { url: 'https://hooks.example.com/', eventTypes: [] },
      { url: 'not a url', eventTypes: ['TRANSACTION_COMPLETED'] },
      { url: 'https://intranet.example.com/hooks', eventTypes: ['TRANSACTION_COMPLETED'] },
      { url: 'https://169.254.169.254/latest/meta-data', eventTypes: ['TRANSACTION_COMPLETED'] },
      { url: 'https://[::ffff:127.0.0.1]/', eventTypes: ['TRANSACTION_COMPLETED'] },
    ]) {
      const { body } = await create(demo.apiKey, input);
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    }
  });

  it('updates, disables, enables, rotates and deletes an endpoint', async () => {
    const { body } = await create(demo.apiKey, {
      url: 'https://a.example.com/',
      eventTypes: ['TRANSACTION_COMPLETED'],
    });
    const id = body.data?.createWebhookEndpoint.webhookEndpoint.id as string;
    const call = async (
      name: string,
      input: Record<string, unknown>,
      fields = `webhookEndpoint { ${ENDPOINT} }`,
    ) => {
      const input_ = name.startsWith('update') ? 'UpdateWebhookEndpointInput' : 'WebhookEndpointIdInput';
      const answer = await graphql(
        suite.app,
        demo.apiKey,
        `mutation ($input: ${input_}!) { ${name}(input: $input) { ${fields} } }`,
        { input },
      );
      expect(answer.body.errors).toBeUndefined();
      return answer.body.data?.[name];
    };
    expect(
      (
        await call('updateWebhookEndpoint', {
          id,
          url: 'https://b.example.com/',
          eventTypes: ['TRANSACTION_STATE_CHANGED'],
        })
      ).webhookEndpoint,
    ).toMatchObject({ url: 'https://b.example.com/', eventTypes: ['TRANSACTION_STATE_CHANGED'] });
    expect((await call('disableWebhookEndpoint', { id })).webhookEndpoint).toMatchObject({
      enabled: false,
      disabledReason: 'disabled through the API',
    });
    expect((await call('enableWebhookEndpoint', { id })).webhookEndpoint).toMatchObject({
      enabled: true,
      disabledReason: null,
    });
    const rotated = await call('rotateWebhookEndpointSecret', { id }, 'secret webhookEndpoint { id }');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(await call('deleteWebhookEndpoint', { id }, 'deletedWebhookEndpointId')).toEqual({
      deletedWebhookEndpointId: id,
    });
    const gone = await graphql(suite.app, demo.apiKey, ENDPOINT_BY_ID, { id });
    expect(gone.body.data?.webhookEndpoint).toBeNull();
  });

  it("treats another organization's endpoint exactly like one that does not exist", async () => {
    const other = await suite.emptyTenant();
    const { body } = await create(other.apiKey, {
      url: 'https://c.example.com/',
      eventTypes: ['TRANSACTION_COMPLETED'],
    });
    const id = body.data?.createWebhookEndpoint.webhookEndpoint.id as string;
    const read = await graphql(suite.app, demo.apiKey, ENDPOINT_BY_ID, { id });
    expect(read.body.data?.webhookEndpoint).toBeNull();
    const disable = await graphql(suite.app, demo.apiKey, DISABLE, { input: { id } });
    expect(disable.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows deliveries with their attempt log, and sends one again with the same webhook-id', async () => {
    const { body } = await create(demo.apiKey, {
      url: 'https://hooks.example.com/log',
      eventTypes: ['TRANSACTION_COMPLETED'],
    });
    const endpointId = body.data?.createWebhookEndpoint.webhookEndpoint.id as string;
    const created = await graphql(suite.app, demo.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(demo),
    });
    const transactionId = created.body.data?.createTransaction.transactionId as string;
    const [event] = await suite.db.query<{ id: string }>(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.completed', $2, '{}') returning id`,
      [demo.organizationId, transactionId],
    );
    const [delivery] = await suite.db.query<{ id: string }>(
      `insert into webhook_deliveries (organization_id, endpoint_id, event_id, message_id, event_type, body, status, attempts)
       values ($1, $2, $3, 'msg_test', 'transaction.completed', '{}', 'failed', 7) returning id`,
      [demo.organizationId, endpointId, event?.id],
    );
    await suite.db.query(
      `insert into webhook_attempts (organization_id, delivery_id, attempted_at, duration_ms, status_code, response_body)
       values ($1, $2, now(), 12, 500, 'oops')`,
      [demo.organizationId, delivery?.id],
    );
    const read = await graphql(suite.app, demo.apiKey, DELIVERIES, { id: endpointId });
    expect(read.body.data?.webhookEndpoint.deliveries).toEqual([
      {
        id: delivery?.id,
        messageId: 'msg_test',
        status: 'FAILED',
        attempts: 7,
        attemptLog: [{ statusCode: 500, durationMs: 12, responseBody: 'oops', error: null }],
      },
    ]);
    const resent = await graphql(suite.app, demo.apiKey, RESEND, { input: { id: delivery?.id } });
    expect(resent.body.data?.resendWebhookDelivery).toEqual({ count: 1 });
    const after = await graphql(suite.app, demo.apiKey, DELIVERY, { id: delivery?.id });
    expect(after.body.data?.webhookDelivery).toEqual({
      messageId: 'msg_test',
      status: 'PENDING',
      attempts: 0,
    });
  });
});
