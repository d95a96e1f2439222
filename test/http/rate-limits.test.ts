import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import type { RateLimitSettings } from '../../src/http/rate-limit.ts';
import { generateApiKey, generatePortfolioKey } from '../../src/keys/api-key.ts';
import { createApiKey } from '../../src/keys/api-key-store.ts';
import { createPortfolioKey } from '../../src/portfolio/instances.ts';
import { answerProblem } from '../support/documented-answers.ts';
import { useServiceApps, type Service } from '../support/data/service-apps.ts';
import { CREATE_TRANSACTION, transactionInput } from '../support/data/transactions.ts';

const LIMIT = 5;
const REDIS_URL = 'redis://127.0.0.1:6379';

const services = useServiceApps();

/** A fresh app of the service with LIMIT requests a minute per key and per address; closed after the test. */
function limitedApp(service: Service, settings: Partial<RateLimitSettings> = {}): Promise<FastifyInstance> {
  return services.build(service, { rateLimit: { perKey: LIMIT, perAddress: LIMIT, ...settings } });
}

/** A new key of the one test organization or customer instance: a budget no earlier run has touched. */
async function newKey(service: Service): Promise<string> {
  if (service === 'transactions') {
    const { organizationId } = services.organization;
    return (await createApiKey(services.db, { organizationId, environment: 'staging' })).key;
  }
  return (
    await createPortfolioKey(services.db, { instanceId: services.portfolio.instanceId, name: 'rate limits' })
  ).key;
}

/** An address no earlier run has used, so that counters kept in Redis from a rerun never meet this one. */
function newAddress(): string {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

/** One API call: a GraphQL query on Transactions, the companies list on Portfolio. */
function callApi(
  app: FastifyInstance,
  service: Service,
  options: { key?: string | undefined; authorization?: string; address?: string } = {},
): Promise<LightMyRequestResponse> {
  const authorization =
    options.authorization ??
    (options.key === undefined
      ? undefined
      : service === 'transactions'
        ? `Bearer ${options.key}`
        : options.key);
  const headers = authorization === undefined ? {} : { authorization };
  const remoteAddress = options.address ?? '127.0.0.1';
  return service === 'transactions'
    ? app.inject({
        method: 'POST',
        url: '/beta',
        headers,
        remoteAddress,
        payload: { query: '{ __typename }' },
      })
    : app.inject({ method: 'GET', url: '/v1/external/companies?limit=1', headers, remoteAddress });
}

/** Asserts a 429 RATE_LIMITED in the service's error shape, with Retry-After and the RateLimit headers. */
function expectRateLimited(response: LightMyRequestResponse, shape: 'rest' | 'graphql'): void {
  expect(response.statusCode, response.body).toBe(429);
  expect(
    answerProblem({ status: 429, headers: response.headers, body: response.body }, { shapes: [shape] }),
  ).toBeUndefined();
  const body = response.json();
  const code = shape === 'rest' ? body.error.code : body.errors[0].extensions.code;
  expect(code).toBe('RATE_LIMITED');
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers['ratelimit-limit']).toBe(String(LIMIT));
  expect(response.headers['ratelimit-remaining']).toBe('0');
}

/** A 429 RATE_LIMITED for an address whose keys kept failing authentication, with Retry-After. */
function expectFailedAuthRefusal(response: LightMyRequestResponse, shape: 'rest' | 'graphql'): void {
  expect(response.statusCode, response.body).toBe(429);
  const body = response.json();
  const error = shape === 'rest' ? body.error : body.errors[0].extensions;
  expect(shape === 'rest' ? error.code : error.code).toBe('RATE_LIMITED');
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(response.headers['x-request-id']).toBeDefined();
}

/** Makes LIMIT calls that pass, checking the RateLimit headers count down; returns the last answer. */
async function useUpBudget(
  call: () => Promise<LightMyRequestResponse>,
  okStatus = 200,
): Promise<LightMyRequestResponse[]> {
  const answers: LightMyRequestResponse[] = [];
  for (let used = 1; used <= LIMIT; used += 1) {
    const answer = await call();
    expect(answer.statusCode, answer.body).toBe(okStatus);
    expect(answer.headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(answer.headers['ratelimit-remaining']).toBe(String(LIMIT - used));
    answers.push(answer);
  }
  return answers;
}

const SHAPES = { transactions: 'graphql', portfolio: 'rest' } as const;

describe.each(['transactions', 'portfolio'] as const)('rate limits of the %s service', (service) => {
  it('sends RateLimit-Limit, -Remaining and -Reset, and answers the sixth call in a minute with 429 and Retry-After', async () => {
    const app = await limitedApp(service);
    const key = await newKey(service);
    const answers = await useUpBudget(() => callApi(app, service, { key }));
    for (const answer of answers) {
      const reset = Number(answer.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }
    expectRateLimited(await callApi(app, service, { key }), SHAPES[service]);
  });

  it('gives each key of one tenant a budget of its own', async () => {
    const app = await limitedApp(service);
    const [first, second] = [await newKey(service), await newKey(service)];
    await useUpBudget(() => callApi(app, service, { key: first }));
    expectRateLimited(await callApi(app, service, { key: first }), SHAPES[service]);

    const other = await callApi(app, service, { key: second });
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts calls with a malformed key against the address, whatever junk each one sends', async () => {
    const app = await limitedApp(service);
    const address = newAddress();
    let attempt = 0;
    await useUpBudget(() => {
      attempt += 1;
      return callApi(app, service, {
        authorization: `junk-${attempt}-${randomBytes(4).toString('hex')}`,
        address,
      });
    }, 401);
    expectRateLimited(await callApi(app, service, { authorization: 'junk-again', address }), SHAPES[service]);
    // The address's budget is spent, not the keys': a valid key from there still works.
    expect((await callApi(app, service, { key: await newKey(service), address })).statusCode).toBe(200);
  });

  it('counts made-up keys that fail authentication against the address, then refuses any key from there', async () => {
    const app = await limitedApp(service);
    const address = newAddress();
    const invented = () => (service === 'transactions' ? generateApiKey('staging') : generatePortfolioKey());
    for (let attempt = 1; attempt <= LIMIT; attempt += 1) {
      const answer = await callApi(app, service, { key: invented(), address });
      expect(answer.statusCode, answer.body).toBe(401);
    }
    expectFailedAuthRefusal(await callApi(app, service, { key: invented(), address }), SHAPES[service]);
    expectFailedAuthRefusal(
      await callApi(app, service, { key: await newKey(service), address }),
      SHAPES[service],
    );
    // Another address is not affected.
    expect(
      (await callApi(app, service, { key: await newKey(service), address: newAddress() })).statusCode,
    ).toBe(200);
  });

  it('counts calls without a key per address, an IPv6 client by its /64', async () => {
    const app = await limitedApp(service);
    await useUpBudget(() => callApi(app, service, { address: '2001:db8:1:2::1' }), 401);
    expectRateLimited(await callApi(app, service, { address: '2001:db8:1:2::ffff' }), SHAPES[service]);
    expectRateLimited(await callApi(app, service, { address: '2001:db8:1:2:abcd:1:2:3' }), SHAPES[service]);

    const otherNetwork = await callApi(app, service, { address: '2001:db8:1:3::1' });
    expect(otherNetwork.statusCode).toBe(401);
    expect(otherNetwork.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts an IPv4 client that a dual-stack listener sees as ::ffff:a.b.c.d as its IPv4 address', async () => {
    const app = await limitedApp(service);
    const address = newAddress();
    await useUpBudget(() => callApi(app, service, { address: `::ffff:${address}` }), 401);
    expectRateLimited(await callApi(app, service, { address }), SHAPES[service]);
  });

  it('gives a client its whole budget again once its minute has ended, and says when it ends', async () => {
    const app = await limitedApp(service);
    const address = newAddress();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await useUpBudget(() => callApi(app, service, { address }), 401);
      vi.advanceTimersByTime(30_000);
      const refused = await callApi(app, service, { address });
      expectRateLimited(refused, SHAPES[service]);
      expect(Number(refused.headers['ratelimit-reset'])).toBe(30);
      expect(Number(refused.headers['retry-after'])).toBe(30);

      vi.advanceTimersByTime(30_000);
      const again = await callApi(app, service, { address });
      expect(again.statusCode).toBe(401);
      expect(again.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
      expect(again.headers['ratelimit-reset']).toBe('60');
    } finally {
      vi.useRealTimers();
    }
  });

  it('never limits the health routes, nor counts them', async () => {
    const app = await limitedApp(service);
    const address = newAddress();
    for (let i = 0; i < LIMIT * 3; i += 1) {
      for (const url of ['/healthz', '/readyz']) {
        const answer = await app.inject({ method: 'GET', url, remoteAddress: address });
        expect(answer.statusCode, url).toBe(200);
        expect(answer.headers['ratelimit-limit']).toBeUndefined();
      }
    }
    const api = await callApi(app, service, { address });
    expect(api.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts one key across two instances that share Redis, and an instance without Redis counts alone', async () => {
    const [one, two] = [
      await limitedApp(service, { redisUrl: REDIS_URL }),
      await limitedApp(service, { redisUrl: REDIS_URL }),
    ];
    const alone = await limitedApp(service);
    const key = await newKey(service);
    let call = 0;
    await useUpBudget(() => {
      call += 1;
      return callApi(call % 2 === 0 ? two : one, service, { key });
    });
    expectRateLimited(await callApi(one, service, { key }), SHAPES[service]);
    expectRateLimited(await callApi(two, service, { key }), SHAPES[service]);

    const separate = await callApi(alone, service, { key });
    expect(separate.statusCode).toBe(200);
    expect(separate.headers['ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts one address across two instances that share Redis', async () => {
    const [one, two] = [
      await limitedApp(service, { redisUrl: REDIS_URL }),
      await limitedApp(service, { redisUrl: REDIS_URL }),
    ];
    const address = newAddress();
    await useUpBudget(() => callApi(one, service, { address }), 401);
    expectRateLimited(await callApi(two, service, { address }), SHAPES[service]);
  });

  it('writes every Redis key under PORTICO_REDIS_PREFIX, each named after what it counts', async () => {
    const prefix = `portico-test-${randomBytes(6).toString('hex')}:`;
    const app = await limitedApp(service, { redisUrl: REDIS_URL, redisPrefix: prefix });
    const redis = new Redis(REDIS_URL);
    try {
      const address = newAddress();
      expect((await callApi(app, service, { key: await newKey(service), address })).statusCode).toBe(200);
      // A well-formed key that does not exist: counted against its key, then as a failure of its address.
      const madeUp = service === 'transactions' ? generateApiKey('staging') : generatePortfolioKey();
      expect((await callApi(app, service, { key: madeUp, address })).statusCode).toBe(401);
      expect((await callApi(app, service, { address })).statusCode).toBe(401);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
        status: 'ok',
        checks: { database: 'ok', redis: 'ok' },
      });

      const keys = (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
      const bucket = `address:${address}`;
      expect(keys.filter((key) => key.startsWith(`rate:${service}:key:`))).toHaveLength(2);
      expect(keys.filter((key) => !key.startsWith(`rate:${service}:key:`))).toEqual([
        `rate:${service}:${bucket}`,
        `rate:${service}:failures:${bucket}`,
      ]);
      expect(keys.join(' ')).not.toContain('undefined');
    } finally {
      const mine = await redis.keys(`${prefix}*`);
      if (mine.length > 0) await redis.del(...mine);
      redis.disconnect();
    }
  });

  it('lets calls through when Redis cannot be reached, and keeps serving', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => {
          resolve(port);
        });
      });
    });
    const app = await limitedApp(service, { redisUrl: `redis://127.0.0.1:${closedPort}` });
    const key = await newKey(service);
    for (let i = 0; i < LIMIT * 2; i += 1) {
      expect((await callApi(app, service, { key })).statusCode).toBe(200);
    }
    // Readiness reads degraded, still 200: the node serves, and a shared Redis outage takes no node out.
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'degraded', checks: { database: 'ok', redis: 'unavailable' } });
    // Connection retries go on in the background; the app still answers after them, and closes cleanly.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await callApi(app, service, { key })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('rate limits of links without a key on the Transactions service', () => {
  it('counts recipient links and signed file links against the address, in the REST error shape', async () => {
    const app = await limitedApp('transactions');
    const key = await newKey('transactions');
    const created = await app.inject({
      method: 'POST',
      url: '/beta',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        query: CREATE_TRANSACTION,
        variables: {
          input: transactionInput(services.organization, {
            noticeEmail: 'investor@example.com',
            noticeName: 'An Investor',
          }),
        },
      },
    });
    const { transmitToken } = created.json().data.createTransaction;
    const link = await app.inject({
      method: 'POST',
      url: '/beta',
      headers: { authorization: `Bearer ${key}` },
      payload: {
        query: 'query ($id: uuid!) { transaction(id: $id) { transactionFiles { file { signedUrl } } } }',
        variables: { id: services.organization.transactionId },
      },
    });
    const signed = new URL(link.json().data.transaction.transactionFiles[0].file.signedUrl);
    const fileLink = `${signed.pathname}${signed.search}`;

    const address = newAddress();
    const open = (url: string, from = address) => app.inject({ method: 'GET', url, remoteAddress: from });
    let call = 0;
    await useUpBudget(async () => {
      call += 1;
      const answer = await open(call % 2 === 0 ? fileLink : `/recipient/${transmitToken}`);
      expect(answer.statusCode).toBe(200);
      return answer;
    });
    for (const url of [`/recipient/${transmitToken}`, fileLink]) {
      const refused = await open(url);
      expectRateLimited(refused, 'rest');
      expect(refused.body).not.toContain(transmitToken);
    }
    expect((await open(fileLink, newAddress())).statusCode).toBe(200);
  });

  it('still refuses an address whose budget is spent when its requests add a made-up key, or a real one, on routes that check no key', async () => {
    const app = await limitedApp('transactions');
    const key = await newKey('transactions');
    const portfolio = await limitedApp('portfolio');
    const address = newAddress();
    const open = (target: FastifyInstance, url: string, authorization?: string) =>
      target.inject({
        method: 'GET',
        url,
        remoteAddress: address,
        ...(authorization === undefined ? {} : { headers: { authorization } }),
      });
    await useUpBudget(() => open(app, '/recipient/not-a-token'), 404);
    // Each made-up key is well formed with a right checksum, as anyone can compute: a fresh budget if it counted.
    for (const url of [
      '/recipient/not-a-token',
      '/files/not-a-file?expires=1&signature=x',
      '/key-delivery/x',
    ]) {
      for (const authorization of [`Bearer ${generateApiKey('staging')}`, `Bearer ${key}`]) {
        expectRateLimited(await open(app, url, authorization), 'rest');
      }
    }
    // The same on Portfolio's routes that check no key (the OpenAPI document, the dashboard's pages).
    await useUpBudget(() => open(portfolio, '/v1/external/openapi.json'));
    for (const url of ['/v1/external/openapi.json', '/dashboard/api/session']) {
      expectRateLimited(await open(portfolio, url, generatePortfolioKey()), 'rest');
    }
    // A key the GraphQL route checks keeps its own budget from the same address.
    const answer = await app.inject({
      method: 'POST',
      url: '/beta',
      remoteAddress: address,
      headers: { authorization: `Bearer ${key}` },
      payload: { query: '{ __typename }' },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });
});
