import { PorticoError, PorticoNetworkError } from './errors.ts';

/** How the client sends: shared by the Transactions and the Portfolio client. */
export interface TransportOptions {
  /**
   * How many times a request is sent again: after a 429 (always), and, for a request that is safe to repeat
   * (a read, or a write with an Idempotency-Key), after a network error or a 503.
   * @default 2
   */
  maxRetries?: number;
  /** The longest `Retry-After` the client waits out; a 429 asking for longer is thrown at once. @default 60_000 */
  maxRetryAfterMs?: number;
  /** How long one attempt may take before it counts as a network error. @default 30_000 */
  timeoutMs?: number;
  /** The `fetch` to send with (a test's, or one with a custom TLS agent). @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface Attempt {
  /** Whether sending the request twice does what sending it once does (reads; writes with an Idempotency-Key). */
  repeatable: boolean;
  signal?: AbortSignal | undefined;
  /**
   * Whether the answer's body is handed on as a stream (a download): `timeoutMs` then bounds the wait for the
   * answer to start, not the reading of a body that may take longer.
   */
  streaming?: boolean;
}

const BACKOFF_MS = 500;

/**
 * A client's `baseUrl`, read: a URL over https, as both APIs are served over HTTPS only (a key sent in clear must
 * be replaced). `what` names it in the refusal, e.g. `The Transactions baseUrl`.
 */
export function httpsUrlOf(baseUrl: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new PorticoError(`${what} ${JSON.stringify(baseUrl.slice(0, 100))} is not a URL.`);
  }
  if (url.protocol !== 'https:') {
    throw new PorticoError(
      `${what} must be an https URL, not ${url.protocol}: Portico's APIs are served over HTTPS only.`,
    );
  }
  return url;
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(response: Response, now = Date.now()): number | null {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function backoff(attempt: number): number {
  const ceiling = BACKOFF_MS * 2 ** attempt;
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The signal that ends an attempt after `ms`: the whole exchange, or for a stream only the wait for its answer to
 * start (`answered` stops the clock then, so a long download is not cut off).
 */
function attemptTimeout(ms: number, streaming: boolean): { signal: AbortSignal; answered: () => void } {
  if (!streaming) return { signal: AbortSignal.timeout(ms), answered: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError'));
  }, ms);
  return {
    signal: controller.signal,
    answered: () => {
      clearTimeout(timer);
    },
  };
}

/**
 * Sends a request, and sends the same request again (same headers, so the same Idempotency-Key) when that is
 * safe: a 429 after its `Retry-After`; a network error or a 503 after a backoff when `attempt.repeatable`.
 * The last answer is returned whatever its status; only a request that never got an answer throws.
 */
export async function send(
  url: string,
  init: RequestInit,
  attempt: Attempt,
  options: TransportOptions = {},
): Promise<Response> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  for (let retry = 0; ; retry += 1) {
    const timeout = attemptTimeout(timeoutMs, attempt.streaming === true);
    const signal = attempt.signal ? AbortSignal.any([attempt.signal, timeout.signal]) : timeout.signal;
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, signal });
      timeout.answered();
    } catch (error) {
      timeout.answered();
      if (attempt.signal?.aborted) throw error;
      if (!attempt.repeatable || retry >= maxRetries) {
        const method = init.method ?? 'GET';
        throw new PorticoNetworkError(`${method} ${url} got no answer after ${retry + 1} attempt(s)`, {
          cause: error,
        });
      }
      await sleep(backoff(retry), attempt.signal);
      continue;
    }
    const retryable = response.status === 429 || (response.status === 503 && attempt.repeatable);
    if (!retryable || retry >= maxRetries) return response;
    const wait = retryAfterMs(response) ?? backoff(retry);
    if (wait > maxRetryAfter) return response;
    await response.body?.cancel();
    await sleep(wait, attempt.signal);
  }
}
