import rateLimit, {
  normalizeIP,
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimitExceeded, tooManyAttempts } from '../errors.ts';
import type { ReadinessCheck } from './health/readiness.ts';
import { presentedKeyHash } from './presented-key.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route authenticates the API key a request presents (GraphQL, the Portfolio lists): there a
     * well-formed key counts against its own budget. Anywhere else a request counts against its address,
     * whatever key it carries, as nothing there proves the key.
     */
    apiKey?: boolean;
  }
}

/** How many requests a client may make a minute, and where the counters live. */
export interface RateLimitOptions {
  /** Requests per minute per API key; 0 turns this limit off. */
  perKey: number;
  /** Requests per minute per client address, for requests without a well-formed API key; 0 turns it off. */
  perAddress: number;
  /** Counters shared by every node through this Redis; in this process when absent. */
  redisUrl?: string | undefined;
  /** The start of every key in that Redis (PORTICO_REDIS_PREFIX). @default 'portico:' */
  redisPrefix?: string | undefined;
  /** Separates this service's counters from another's in a shared Redis, e.g. `transactions`. */
  service: string;
  /**
   * The API key a request presents, when it has the form of one of this service's keys (checked without
   * the database), or undefined. On routes that authenticate keys (config `apiKey`), such requests count
   * against the key; every other request counts against its address.
   */
  presentedKey: (request: FastifyRequest) => string | undefined;
  /** Paths never limited (health checks). @default ['/healthz', '/readyz'] */
  exempt?: readonly string[];
}

/** What a deployment configures; each service adds its `service` name and `presentedKey`. */
export type RateLimitSettings = Omit<RateLimitOptions, 'service' | 'presentedKey'>;

const WINDOW_MS = 60_000;

/** Counts up a window's counter, starting the window on its first count (and on a counter without one). */
const INCREMENT = `local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;
/** Reads a counter without counting. */
const READ = `local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

interface CountingRedis {
  porticoRateCount(key: string, windowMs: number): Promise<[number, number]>;
  porticoRateRead(key: string): Promise<[number, number]>;
}

/**
 * Counters in Redis under `key` + the request's bucket. The plugin's own Redis store names the counters of a
 * limiter made by `createRateLimit` after a route it does not have (`…undefinedundefined-…`): this one names
 * them after what they count, every key under the deployment's prefix.
 */
class RedisCounters implements FastifyRateLimitStore {
  constructor(
    private readonly redis: CountingRedis,
    private readonly key: string,
  ) {}

  incr(...[bucket, callback, timeWindow]: Parameters<FastifyRateLimitStore['incr']>): void {
    RedisCounters.answer(this.redis.porticoRateCount(this.key + bucket, timeWindow), callback);
  }

  read(...[bucket, callback]: Parameters<FastifyRateLimitStore['incr']>): void {
    RedisCounters.answer(this.redis.porticoRateRead(this.key + bucket), callback);
  }

  /** The one limiter made apart from the global one is the limiter of failed authentications below. */
  child(): FastifyRateLimitStore {
    return new RedisCounters(this.redis, `${this.key}failures:`);
  }

  private static answer(
    counted: Promise<[number, number]>,
    callback: Parameters<FastifyRateLimitStore['incr']>[1],
  ): void {
    counted.then(
      ([current, ttl]) => {
        callback(null, { current, ttl });
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }
}

/** The store the plugin makes (`new store(options)`), counting in `redis` under `key`. */
function redisCountersIn(redis: Redis, key: string): FastifyRateLimitStoreCtor {
  const counting = redis as unknown as CountingRedis;
  return class extends RedisCounters {
    constructor() {
      super(counting, key);
    }
  };
}

/**
 * The bucket a request counts in: its key (hashed: keys never sit in Redis or memory as they are) or address.
 * An IPv6 address counts by its /64 network, as one client usually holds a whole /64 and could otherwise
 * step through its addresses to get a fresh budget each time; an IPv4-mapped one counts as its IPv4 address.
 */
function bucketOf(
  presentedKey: (request: FastifyRequest) => string | undefined,
  request: FastifyRequest,
): string {
  const key = presentedKey(request);
  if (key !== undefined) return `key:${presentedKeyHash(request, key).toString('base64url')}`;
  return `address:${normalizeIP(request.ip, 64)}`;
}

/**
 * Rate limits per API key and per client address, with `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` on every limited answer and `Retry-After` on a 429 `RATE_LIMITED` (@fastify/rate-limit,
 * its IETF draft headers). Counted before authentication; requests whose key fails it also count against their
 * address, so guessing keys is limited too (see below). With Redis, a
 * Redis outage lets requests through rather than refusing everyone (and is logged).
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
): Promise<{ redis?: ReadinessCheck }> {
  if (options.perKey === 0 && options.perAddress === 0) return {};
  // The hooks below ask for the request's key; in the common case only the limiter does, once (a memo per
  // request would cost more than the check). A key counts only where the route checks it: a made-up key with
  // the right form and checksum, which anyone can compute, must not buy a fresh budget on a route that never
  // looks it up (the recipient routes, signed file links, key delivery).
  const presentedKey = (request: FastifyRequest) =>
    request.routeOptions.config.apiKey === true ? options.presentedKey(request) : undefined;
  const exempt = new Set(options.exempt ?? ['/healthz', '/readyz']);
  let redis: Redis | undefined;
  if (options.redisUrl !== undefined) {
    // Loaded only when counters are shared: a start without Redis does not pay for the client.
    const { Redis: RedisClient } = await import('ioredis');
    redis = new RedisClient(options.redisUrl, {
      connectTimeout: 2000,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    redis.defineCommand('porticoRateCount', { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand('porticoRateRead', { numberOfKeys: 1, lua: READ });
    // Without a listener, a lost Redis connection would be an unhandled 'error' event and end the process.
    let warned = false;
    redis.on('error', (error: Error) => {
      if (!warned) app.log.warn({ err: error }, 'rate-limit Redis unavailable: requests are not limited');
      warned = true;
    });
    redis.on('ready', () => {
      warned = false;
    });
    const client = redis;
    app.addHook('onClose', async () => {
      await client.quit().catch(() => {
        client.disconnect();
      });
    });
    // Commands are not queued while the connection is being made, so the first requests would pass
    // uncounted: start serving once Redis is ready, or has failed once (then requests pass until it is).
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      const settle = () => {
        clearTimeout(timer);
        client.off('ready', settle);
        client.off('error', settle);
        resolve();
      };
      client.once('ready', settle);
      client.once('error', settle);
    });
  }
  const limitOf = (bucket: string) => (bucket.startsWith('key:') ? options.perKey : options.perAddress);
  // Refusals counted when the process reports metrics (observability/request-metrics.ts decorates `metrics`).
  const refusals = app.metrics?.rateLimitRefusals;
  const refused = (bucket: 'key' | 'address' | 'failed_authentication') =>
    refusals?.inc({ service: options.service, bucket });
  await app.register(rateLimit, {
    // One hook on the root app rather than one per route (global: true): a route's own hooks run after the
    // hooks of the plugin that declares it, so Portfolio's key check ran first and a request with a wrong
    // key or none was never counted. On the root, the check comes before every plugin's hooks, 404s included.
    global: false,
    timeWindow: WINDOW_MS,
    max: (_request, bucket) => limitOf(bucket),
    keyGenerator: (request) => bucketOf(presentedKey, request),
    allowList: (request, bucket) => limitOf(bucket) === 0 || exempt.has(request.url.split('?')[0] ?? ''),
    enableDraftSpec: true,
    skipOnError: true,
    ...(redis
      ? { store: redisCountersIn(redis, `${options.redisPrefix ?? 'portico:'}rate:${options.service}:`) }
      : {}),
    onExceeded: (_request, bucket) => {
      refused(bucket.startsWith('key:') ? 'key' : 'address');
    },
    errorResponseBuilder: (_request, context) =>
      rateLimitExceeded(context.max, context.after, Math.ceil(context.ttl / 1000)),
  });
  app.addHook('onRequest', app.rateLimit());

  // A well-formed key counts against itself, and anyone can make up well-formed keys. So every request whose
  // key fails authentication also counts against its address, and an address that has used up its budget that
  // way is refused whatever key it sends next: guessing keys is limited like any request without one.
  const client = redis;
  const readiness = client ? { redis: () => client.ping().then(() => undefined) } : {};
  if (options.perAddress === 0) return readiness;
  const addressOf = (request: FastifyRequest) => `address:${normalizeIP(request.ip, 64)}`;
  const failures = app.createRateLimit({
    keyGenerator: addressOf,
    // Read without counting, a budget of n is used up once n have counted: more than n - 1.
    max: Math.max(options.perAddress - 1, 1),
    allowList: (request) => exempt.has(request.url.split('?')[0] ?? ''),
  });
  // Addresses this process saw fail authentication in the last window: only their requests read the shared
  // count, so a request with a good key pays one map lookup. (Another node's failures are seen here after
  // this node's first failure from that address, so at most one more guess per node gets through.)
  const failing = new Map<string, number>();
  // Callback hooks, not async ones: the common case returns at once, without a promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (failing.size === 0) {
      done();
      return;
    }
    const address = presentedKey(request) === undefined ? undefined : addressOf(request);
    const until = address === undefined ? undefined : failing.get(address);
    if (address === undefined || until === undefined) {
      done();
      return;
    }
    if (until < Date.now()) {
      failing.delete(address);
      done();
      return;
    }
    failures(request, { increment: false }).then((state) => {
      if (state.isAllowed || !state.isExceeded) {
        done();
        return;
      }
      refused('failed_authentication');
      done(
        tooManyAttempts('failed authentications from this address', state.ttlInSeconds, {
          limit: options.perAddress,
        }),
      );
    }, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode !== 401 || presentedKey(request) === undefined) {
      done();
      return;
    }
    // Bounded: past 10,000 failing addresses, forget them all rather than grow (they count on in the store).
    if (failing.size >= 10_000) failing.clear();
    failing.set(addressOf(request), Date.now() + WINDOW_MS);
    failures(request).then(() => {
      done();
    }, done);
  });
  return readiness;
}
