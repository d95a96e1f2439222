import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  /** The exact request body (JSON) every request POSTs; without one, every request is a GET. */
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  /** When set, every response body must be exactly this text; any other counts as a failure. */
  expectBody?: string;
  /**
   * When set, a CommonJS file (autocannon loads it in its worker) exporting `(body: string) => boolean`: every
   * response body must pass it; one that does not counts as a failure. Takes precedence over `expectBody`.
   */
  verifyBodyModule?: string;
  /** Replace `[<id>]` in the body with a new unique id (autocannon's hyperid) for every request. */
  idReplacement?: boolean;
  /**
   * When set, a CommonJS file (loaded in the worker) exporting autocannon's `setupRequest(request)`, which may
   * rewrite each request before it is sent; `fields` are added to the request object it receives.
   */
  setupRequest?: { module: string; fields?: Record<string, unknown> };
}

export interface LoadResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Latency percentiles in ms (autocannon records whole milliseconds). */
  p50: number;
  p99: number;
  mean: number;
  /** Errors, timeouts, non-2xx answers and bodies other than `expectBody` (or refused by `verifyBodyModule`). */
  failures: number;
  failureDetail: string;
}

/**
 * Keeps `connections` connections busy for `seconds` with the same POST, from an autocannon worker thread so
 * that the load generator does not share the server's event loop. Certificates are not verified (loopback,
 * self-signed).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    ...(options.body === undefined
      ? { method: 'GET' as const, headers: options.headers ?? {} }
      : {
          method: 'POST' as const,
          headers: { 'content-type': 'application/json', ...options.headers },
          body: options.body,
        }),
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    workers: 1,
    ...(options.expectBody === undefined ? {} : { expectBody: options.expectBody }),
    ...(options.verifyBodyModule === undefined ? {} : { verifyBody: options.verifyBodyModule as never }),
    ...(options.idReplacement === true ? { idReplacement: true } : {}),
    ...(options.setupRequest === undefined
      ? {}
      : {
          requests: [{ ...options.setupRequest.fields, setupRequest: options.setupRequest.module }],
        }),
  });
  const failures = result.errors + result.timeouts + result.non2xx + result.mismatches;
  const seconds = result.duration;
  return {
    requests: result.requests.total,
    seconds,
    requestsPerSecond: seconds > 0 ? result.requests.total / seconds : 0,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    failures,
    failureDetail: `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}, mismatched bodies ${result.mismatches}`,
  };
}
