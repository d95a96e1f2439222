import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Milliseconds from sending the request to the end of the answer. */
  ms: number;
  /** The body parsed as JSON; tests read it loosely and assert what they expect. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  json(): Record<string, any>;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as it is, with `content-type: application/json` (for bodies that are not valid JSON on purpose). */
  body?: string;
  /** The CA certificate (PEM) to trust for an `https:` URL, e.g. Portico's generated one. */
  ca?: string;
}

/**
 * One real request over the network, `http:` or `https:` by the URL, on a connection of its own (no keep-alive,
 * so a server under test closes promptly).
 */
export function request(url: string | URL, options: RequestOptions = {}): Promise<HttpAnswer> {
  const target = new URL(url);
  const body = options.body ?? (options.json === undefined ? undefined : JSON.stringify(options.json));
  const headers: Record<string, string | number> = { ...options.headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const outgoing = send(
      target,
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        agent: false,
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            ms: performance.now() - start,
            json: () => JSON.parse(text) as ReturnType<HttpAnswer['json']>,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The same address over plain HTTP: what a client that forgot the `s` sends. */
export function plainHttp(url: string): URL {
  const target = new URL(url);
  target.protocol = 'http:';
  return target;
}
