import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { Agent, fetch as undiciFetch } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  PorticoError,
  PorticoGraphQLError,
  PorticoKeyError,
  PorticoNetworkError,
  TransactionsClient,
  TypedDocumentString,
  type TransactionsOperations,
} from '@portico/client';
import { createTransactionsTenant } from '../support/data/tenants.ts';
import { useTransactionsSuite } from '../support/data/transactions-suite.ts';
import { graphql, REFERENCE_QUERY, transactionInput } from '../support/data/transactions.ts';
import { listenHttps, testTls } from '../support/peers/tls-listener.ts';

/**
 * The Transactions half of `@portico/client` against a real Portico over HTTPS: the client's `fetch` trusts the
 * test certificate, and a test that needs to drop or replace an answer does it in that `fetch`, after the server
 * answered, as a network or a proxy would.
 */

const suite = useTransactionsSuite(async () => ({ tls: await testTls() }));

let baseUrl: string;
let agent: Agent;

beforeAll(async () => {
  const { port } = await listenHttps(suite.app);
  // localhost, as the signed links the service makes name it.
  baseUrl = `https://localhost:${port}/beta`;
  agent = new Agent({ connect: { ca: (await testTls()).cert } });
  return () => agent.close();
});

/** What the client sent on one call of its `fetch`. */
interface Call {
  url: string;
  headers: Headers;
}

type Forward = () => Promise<Response>;

/**
 * A `fetch` trusting the test CA that records every call, and lets `intercept` stand between the client and the
 * service (call `forward` to reach the service).
 */
function trustingFetch(intercept?: (call: Call, forward: Forward, index: number) => Promise<Response>): {
  fetch: typeof fetch;
  calls: Call[];
} {
  const calls: Call[] = [];
  const fetchImpl = (input: string, init: RequestInit = {}) => {
    const call = { url: input, headers: new Headers(init.headers) };
    calls.push(call);
    const forward = () =>
      undiciFetch(input, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>;
    return intercept ? intercept(call, forward, calls.length - 1) : forward();
  };
  return { fetch: fetchImpl as unknown as typeof fetch, calls };
}

/** A trusting `fetch` whose first call reaches the service, whose answer is then thrown away for `replace`'s. */
function firstAnswerReplaced(replace: () => Response): ReturnType<typeof trustingFetch> {
  return trustingFetch(async (_call, forward, index) => {
    const response = await forward();
    if (index > 0) return response;
    await response.body?.cancel();
    return replace();
  });
}

function clientFor(apiKey: string, fetchImpl: typeof fetch = trustingFetch().fetch): TransactionsClient {
  return new TransactionsClient({ baseUrl, apiKey, fetch: fetchImpl, maxRetries: 2 });
}

/** The error `promise` rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/** Every text an error shows: its message, stack, string form, inspection and JSON. */
function textsOf(value: unknown): string {
  return [
    String(value),
    inspect(value, { depth: 10 }),
    JSON.stringify(value) as string | undefined,
    (value as Error).stack,
  ].join('\n');
}

async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function createInput(tenant: {
  templateId: string;
  senderEntityId: string;
}): TransactionsOperations.CreateTransactionInput {
  return transactionInput(tenant) as unknown as TransactionsOperations.CreateTransactionInput;
}

describe('TransactionsClient reading', () => {
  it('answers the spec’s reference query as the raw request does, and transaction() holds the same', async () => {
    const tenant = await createTransactionsTenant(suite.db, suite.files);
    const id = tenant.ids.transaction;
    const raw = await graphql(suite.app, tenant.apiKey, REFERENCE_QUERY, { id });
    expect(raw.body.errors).toBeUndefined();
    const client = clientFor(tenant.apiKey);

    const reference = new TypedDocumentString<{ transaction: unknown }, { id: string }>(REFERENCE_QUERY);
    expect(await client.request(reference, { id })).toEqual(raw.body.data);

    const transaction = await client.transaction(id);
    expect(transaction).toMatchObject(raw.body.data?.['transaction'] as object);
    expect(transaction?.state).toBe('completed');
    expect(transaction?.transactionSignatureFiles).toHaveLength(1);
  });

  it('answers every root field for the records of its organization', async () => {
    const tenant = await createTransactionsTenant(suite.db, suite.files);
    const client = clientFor(tenant.apiKey);
    const { ids } = tenant;
    const viewer = await client.viewer();
    expect(viewer.id).toBe(tenant.organizationId);
    expect(viewer.templates.map((template) => template.id)).toContain(ids.template);
    expect((await client.organization(ids.organization))?.id).toBe(ids.organization);
    expect((await client.entity(ids.senderEntity))?.id).toBe(ids.senderEntity);
    expect((await client.template(ids.template))?.workflow.initialState).toBe('draft');
    expect((await client.webhookEndpoint(ids.webhookEndpoint))?.id).toBe(ids.webhookEndpoint);
    expect((await client.webhookDelivery(ids.webhookDelivery))?.status).toBe('FAILED');
    expect((await client.transactionItem(ids.transactionItem))?.id).toBe(ids.transactionItem);
    expect((await client.transactionFile(ids.transactionFile))?.file.id).toBe(ids.file);
    expect((await client.transactionSignatureFile(ids.transactionSignatureFile))?.id).toBe(
      ids.transactionSignatureFile,
    );
    expect((await client.transactionRecipient(ids.transactionRecipient))?.entity.id).toBeTruthy();
    expect((await client.file(ids.file)).id).toBe(ids.file);
    expect(await client.transaction(randomUUID())).toBeNull();
  });
});

describe('TransactionsClient writing', () => {
  it('creates a transaction, triggers an event and reads it back', async () => {
    const tenant = await suite.emptyTenant();
    const client = clientFor(tenant.apiKey);
    const { transactionId, transmitToken } = await client.createTransaction(createInput(tenant));
    expect(transmitToken).toMatch(/^[0-9a-f-]{36}$/);

    const moved = await client.triggerTransactionEvent({ transactionId, eventKey: 'send' });
    expect(moved).toMatchObject({ sourceStateKey: 'draft', targetStateKey: 'in_progress', dryRun: false });

    const transaction = await client.transaction(transactionId);
    expect(transaction?.state).toBe('in_progress');
    expect(transaction?.availableEvents.map((event) => event.key)).toContain('submit');
    const Events = new TypedDocumentString<
      { transaction: { events: { eventKey: string; actorType: string }[] } | null },
      { id: string }
    >('query ($id: uuid!) { transaction(id: $id) { events { eventKey actorType } } }');
    const read = await client.request(Events, { id: transactionId });
    expect(read.transaction?.events.at(-1)).toEqual({ eventKey: 'send', actorType: 'API_KEY' });
    expect([...(await client.transactions()).nodes].map((node) => node.id)).toEqual([transactionId]);
  });

  it('sends an Idempotency-Key with createTransaction and a real event, and none with a dry run', async () => {
    const tenant = await suite.emptyTenant();
    const { fetch: recording, calls } = trustingFetch();
    const client = clientFor(tenant.apiKey, recording);
    const { transactionId } = await client.createTransaction(createInput(tenant));
    const preview = await client.triggerTransactionEvent({ transactionId, eventKey: 'send', dryRun: true });
    expect(preview).toMatchObject({ dryRun: true, preview: { targetStateKey: 'in_progress' } });
    await client.triggerTransactionEvent(
      { transactionId, eventKey: 'send' },
      { idempotencyKey: 'send-once-1' },
    );
    await client.createEntity({ name: 'Second Fund, L.P.' });
    expect(calls.map((call) => call.headers.get('idempotency-key'))).toEqual([
      expect.stringMatching(/^[0-9a-f-]{36}$/),
      null,
      'send-once-1',
      null,
    ]);
  });

  it('makes one transaction of a create whose answer was lost, sending it again with the same key', async () => {
    const tenant = await suite.emptyTenant();
    // The service created the transaction; its answer never arrives.
    const { fetch: dropping, calls } = firstAnswerReplaced(() => {
      throw new TypeError('fetch failed: the connection was reset');
    });
    const client = clientFor(tenant.apiKey, dropping);
    const created = await client.createTransaction(createInput(tenant));

    expect(calls).toHaveLength(2);
    expect(calls[1]?.headers.get('idempotency-key')).toBe(calls[0]?.headers.get('idempotency-key'));
    const all = [];
    for await (const transaction of client.allTransactions()) all.push(transaction.id);
    expect(all).toEqual([created.transactionId]);
  });

  it('makes one transaction of a create answered 503 once by a proxy after the service made it', async () => {
    const tenant = await suite.emptyTenant();
    const { fetch: flaky, calls } = firstAnswerReplaced(
      () =>
        new Response('<h1>503 Service Unavailable</h1>', {
          status: 503,
          headers: { 'content-type': 'text/html', 'retry-after': '0' },
        }),
    );
    const client = clientFor(tenant.apiKey, flaky);
    const created = await client.createTransaction(createInput(tenant));
    expect(calls).toHaveLength(2);
    expect(calls[1]?.headers.get('idempotency-key')).toBe(calls[0]?.headers.get('idempotency-key'));
    const page = await client.transactions({ first: 10 });
    expect(page.totalCount).toBe(1);
    expect(page.nodes[0]?.id).toBe(created.transactionId);
  });

  it('does not send again a mutation without an Idempotency-Key whose answer was lost', async () => {
    const tenant = await suite.emptyTenant();
    const { fetch: dropping, calls } = trustingFetch(async (_call, forward) => {
      await (await forward()).body?.cancel();
      throw new TypeError('fetch failed: the connection was reset');
    });
    const client = clientFor(tenant.apiKey, dropping);
    expect(await failureOf(client.createEntity({ name: 'Lost Answer Fund' }))).toBeInstanceOf(
      PorticoNetworkError,
    );
    expect(calls).toHaveLength(1);
  });
});

describe('TransactionsClient errors', () => {
  it('throws a GraphQL error as PorticoGraphQLError with its code, path and request id', async () => {
    const tenant = await suite.emptyTenant();
    const client = clientFor(tenant.apiKey);
    const { transactionId } = await client.createTransaction(createInput(tenant));

    const refused = await failureOf(client.triggerTransactionEvent({ transactionId, eventKey: 'approve' }));
    expect(refused).toBeInstanceOf(PorticoGraphQLError);
    expect(refused).toBeInstanceOf(PorticoError);
    const error = refused as PorticoGraphQLError;
    expect(error).toMatchObject({ code: 'INVALID_EVENT', status: 200, path: ['triggerTransactionEvent'] });
    expect(error.requestId).toMatch(/^req_/);
    expect(error.errors).toHaveLength(1);
    expect(error.message).toBe(error.errors[0]?.message);

    const missing = await failureOf(client.file(randomUUID()));
    expect(missing).toMatchObject({ name: 'PorticoGraphQLError', code: 'NOT_FOUND', path: ['file'] });
  });

  it('throws a refusal before the operation runs with the status and code the server gave', async () => {
    const unknownKey = `sk_test_${'a'.repeat(38)}`;
    const refused = await failureOf(clientFor(unknownKey).viewer());
    expect(refused).toBeInstanceOf(PorticoGraphQLError);
    expect(refused).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('refuses a Portfolio key, or a key of the other environment, before sending anything', async () => {
    const tenant = await createTransactionsTenant(suite.db, suite.files);
    const { fetch: counting, calls } = trustingFetch();
    const portfolioKey = `pfk_${'b'.repeat(38)}`;
    expect(() => new TransactionsClient({ baseUrl, apiKey: portfolioKey, fetch: counting })).toThrow(
      PorticoKeyError,
    );
    expect(
      () =>
        new TransactionsClient({
          baseUrl,
          apiKey: tenant.productionKey,
          environment: 'staging',
          fetch: counting,
        }),
    ).toThrow(/production key \(sk_live_…\) and the client is set for staging/);
    expect(
      () =>
        new TransactionsClient({
          baseUrl: baseUrl.replace('https:', 'http:'),
          apiKey: tenant.apiKey,
          fetch: counting,
        }),
    ).toThrow(/https/);
    expect(calls).toHaveLength(0);
  });

  it('shows the key in no error, and not when the client is printed or inspected', async () => {
    const tenant = await createTransactionsTenant(suite.db, suite.files);
    const badKey = `sk_test_${'c'.repeat(38)}`;
    const offline = trustingFetch(() => Promise.reject(new TypeError('fetch failed')));
    const client = clientFor(tenant.apiKey);
    const errors = [
      await failureOf(clientFor(badKey).viewer()),
      await failureOf(
        client.triggerTransactionEvent({ transactionId: tenant.ids.transaction, eventKey: 'nope' }),
      ),
      await failureOf(clientFor(tenant.apiKey, offline.fetch).viewer()),
      await failureOf(
        Promise.resolve().then(
          () => new TransactionsClient({ baseUrl, apiKey: tenant.productionKey, environment: 'staging' }),
        ),
      ),
    ];
    expect(errors.map((error) => (error as Error).name)).toEqual([
      'PorticoGraphQLError',
      'PorticoGraphQLError',
      'PorticoNetworkError',
      'PorticoKeyError',
    ]);
    for (const text of [...errors.map(textsOf), textsOf(client), textsOf(clientFor(badKey))]) {
      for (const key of [tenant.apiKey, tenant.productionKey, badKey]) expect(text).not.toContain(key);
      expect(text).not.toMatch(/sk_(test|live)_[0-9A-Za-z]{38}/);
    }
  });
});

describe('TransactionsClient files', () => {
  it('streams a file’s bytes through its signed link, from a file id or from a selection', async () => {
    const tenant = await createTransactionsTenant(suite.db, suite.files);
    const { fetch: recording, calls } = trustingFetch();
    const client = clientFor(tenant.apiKey, recording);
    const [stored] = await suite.db.query<{ storageKey: string; mimeType: string; filename: string }>(
      `select storage_key as "storageKey", mime_type as "mimeType", coalesce(override_filename, original_filename) as filename
       from files where id = $1`,
      [tenant.ids.file],
    );
    const opened = await suite.files.open(stored?.storageKey ?? '');
    if (!opened) throw new Error('the story’s upload is stored');
    const expected = await bytesOf(opened.stream);

    const download = await client.downloadFile(tenant.ids.transactionFile);
    expect(download.stream).toBeInstanceOf(ReadableStream);
    const bytes = await bytesOf(download.stream);
    expect(bytes.equals(expected)).toBe(true);
    expect(download).toMatchObject({
      contentType: stored?.mimeType,
      size: expected.length,
      filename: stored?.filename,
    });
    const link = calls.at(-1);
    expect(link?.url).toMatch(/\/files\/[0-9a-f-]{36}\?expires=\d+&signature=/);
    expect(link?.headers.get('authorization')).toBeNull();

    const transaction = await client.transaction(tenant.ids.transaction);
    const [signed] = transaction?.transactionSignatureFiles ?? [];
    if (!signed) throw new Error('the story’s transaction has a signed document');
    const document = await client.downloadFile(signed);
    expect(document.contentType).toBe('application/pdf');
    expect((await bytesOf(document.stream)).subarray(0, 5).toString()).toBe('%PDF-');
  });
});
