import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimitExceeded, tooManyAttempts } from '../errors.ts';
import { clientAddressKey } from './attempt-limits.ts';
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

/** A bucket's count in its current window, and the milliseconds until that window ends. */
interface WindowCount {
  current: number;
  ttlMs: number;
}

/**
 * Where the counts of one limiter live. A count answers at once when it is kept in this process, and later when
 * it is kept in Redis: the hooks below take either, so the common case costs no promise.
 */
interface Counters {
  /** Counts one request in the bucket's window, starting a window when none is running. */
  count(bucket: string): WindowCount | Promise<WindowCount>;
  /** The bucket's count, without counting. */
  read(bucket: string): WindowCount | Promise<WindowCount>;
}

/**
 * Counts in this process. Every window is as long, so the order in which buckets' windows started (a Map's
 * order, as a new window is a new entry) is the order in which they end: the ended ones are always at the front,
 * and forgetting them costs no scan. At `capacity` buckets, the oldest window is forgotten early (its client
 * starts a new one, as it could by using another of the addresses or keys it already holds).
 */
class LocalCounters implements Counters {
  private readonly windows = new Map<string, { current: number; endsAt: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly capacity: number,
  ) {}

  count(bucket: string): WindowCount {
    const now = Date.now();
    this.forgetEnded(now);
    let window = this.windows.get(bucket);
    if (window === undefined) {
      if (this.windows.size >= this.capacity) this.forgetOldest();
      window = { current: 0, endsAt: now + this.windowMs };
      this.windows.set(bucket, window);
    }
    window.current += 1;
    return { current: window.current, ttlMs: window.endsAt - now };
  }

  read(bucket: string): WindowCount {
    const now = Date.now();
    const window = this.windows.get(bucket);
    if (window === undefined || window.endsAt <= now) return { current: 0, ttlMs: 0 };
    return { current: window.current, ttlMs: window.endsAt - now };
  }

  private forgetEnded(now: number): void {
    for (const [bucket, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(bucket);
    }
  }

  private forgetOldest(): void {
    for (const bucket of this.windows.keys()) {
      this.windows.delete(bucket);
      return;
    }
  }
}

/** Counts in Redis under `key` + the request's bucket, shared by every node. */
class RedisCounters implements Counters {
  constructor(
    private readonly redis: CountingRedis,
    private readonly key: string,
    private readonly windowMs: number,
  ) {}

  async count(bucket: string): Promise<WindowCount> {
    const [current, ttlMs] = await this.redis.porticoRateCount(this.key + bucket, this.windowMs);
    return { current, ttlMs };
  }

  async read(bucket: string): Promise<WindowCount> {
    const [current, ttlMs] = await this.redis.porticoRateRead(this.key + bucket);
    return { current, ttlMs };
  }
}

/**
 * Calls `then` with a count, at once when it is one, else when it is counted; `failed` when counting failed
 * (Redis unreachable).
 */
function whenCounted(
  counted: WindowCount | Promise<WindowCount>,
  then: (count: WindowCount) => void,
  failed: (error: unknown) => void,
): void {
  if (counted instanceof Promise) counted.then(then, failed);
  else then(counted);
}

/** Buckets a process counts at most, per limiter: about 200 bytes each. */
const LOCAL_CAPACITY = 100_000;

/**
 * The bucket a request counts in: its key (hashed: keys never sit in Redis or memory as they are) or its
 * address (by {@link clientAddressKey}).
 */
function bucketOf(
  presentedKey: (request: FastifyRequest) => string | undefined,
  request: FastifyRequest,
): string {
  const key = presentedKey(request);
  if (key !== undefined) return `key:${presentedKeyHash(request, key).toString('base64url')}`;
  return `address:${clientAddressKey(request)}`;
}

/** The request's path, without its query. */
function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query === -1 ? request.url : request.url.slice(0, query);
}

/**
 * Rate limits per API key and per client address, fixed windows of a minute, with `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` on every limited answer (the IETF draft's headers) and
 * `Retry-After` on a 429 `RATE_LIMITED`. Counted before authentication; requests whose key fails it also count
 * against their address, so guessing keys is limited too (see below). With Redis, a Redis outage lets requests
 * through rather than refusing everyone (and is logged).
 *
 * Every request of both APIs passes here, so the counting is a callback hook that answers at once from this
 * process's counters: no promise, no await. A general limiter plugin's per-request hook cost about a tenth of
 * a served read's CPU (bench/RESULTS.md, 2026-11-29).
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
  const countersUnder = (name: string): Counters =>
    redis
      ? new RedisCounters(
          redis as unknown as CountingRedis,
          `${options.redisPrefix ?? 'portico:'}rate:${options.service}:${name}`,
          WINDOW_MS,
        )
      : new LocalCounters(WINDOW_MS, LOCAL_CAPACITY);
  const requests = countersUnder('');
  // Refusals counted when the process reports metrics (observability/request-metrics.ts decorates `metrics`).
  const refusals = app.metrics?.rateLimitRefusals;
  const refused = (bucket: 'key' | 'address' | 'failed_authentication') =>
    refusals?.inc({ service: options.service, bucket });

  // On the root app, so that the count comes before every plugin's hooks (Portfolio's key check among them),
  // 404s included: a request with a wrong key or none is counted too.
  app.addHook('onRequest', (request, reply, done) => {
    if (exempt.has(pathOf(request))) {
      done();
      return;
    }
    const bucket = bucketOf(presentedKey, request);
    const byKey = bucket.startsWith('key:');
    const max = byKey ? options.perKey : options.perAddress;
    if (max === 0) {
      done();
      return;
    }
    whenCounted(
      requests.count(bucket),
      ({ current, ttlMs }) => {
        const reset = Math.max(1, Math.ceil(ttlMs / 1000));
        void reply.header('ratelimit-limit', max);
        void reply.header('ratelimit-remaining', Math.max(0, max - current));
        void reply.header('ratelimit-reset', reset);
        if (current <= max) {
          done();
          return;
        }
        refused(byKey ? 'key' : 'address');
        void reply.header('retry-after', reset);
        done(rateLimitExceeded(max, reset));
      },
      // Redis is unreachable (logged once by its 'error' listener): let the request through.
      () => {
        done();
      },
    );
  });

  // A well-formed key counts against itself, and anyone can make up well-formed keys. So every request whose
  // key fails authentication also counts against its address, and an address that has used up its budget that
  // way is refused whatever key it sends next: guessing keys is limited like any request without one.
  const client = redis;
  const readiness = client ? { redis: () => client.ping().then(() => undefined) } : {};
  if (options.perAddress === 0) return readiness;
  const failures = countersUnder('failures:');
  const addressOf = (request: FastifyRequest) => `address:${clientAddressKey(request)}`;
  // Read without counting, a budget of n is used up once n have counted: more than n - 1.
  const failureBudget = Math.max(options.perAddress - 1, 1);
  // Addresses this process saw fail authentication in the last window: only their requests read the shared
  // count, so a request with a good key pays one map lookup. (Another node's failures are seen here after
  // this node's first failure from that address, so at most one more guess per node gets through.)
  const failing = new Map<string, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (failing.size === 0) {
      done();
      return;
    }
    const address = presentedKey(request) === undefined ? undefined : addressOf(request);
    const until = address === undefined ? undefined : failing.get(address);
    if (address === undefined || until === undefined || exempt.has(pathOf(request))) {
      done();
      return;
    }
    if (until < Date.now()) {
      failing.delete(address);
      done();
      return;
    }
    whenCounted(
      failures.read(address),
      ({ current, ttlMs }) => {
        if (current <= failureBudget) {
          done();
          return;
        }
        refused('failed_authentication');
        done(
          tooManyAttempts('failed authentications from this address', Math.ceil(ttlMs / 1000), {
            limit: options.perAddress,
          }),
        );
      },
      () => {
        done();
      },
    );
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode !== 401 || presentedKey(request) === undefined) {
      done();
      return;
    }
    // Bounded: past 10,000 failing addresses, forget them all rather than grow (they count on in the store).
    if (failing.size >= 10_000) failing.clear();
    const address = addressOf(request);
    failing.set(address, Date.now() + WINDOW_MS);
    whenCounted(
      failures.count(address),
      () => {
        done();
      },
      () => {
        done();
      },
    );
  });
  return readiness;
}
