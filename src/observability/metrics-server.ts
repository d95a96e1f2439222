import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

/** The listener of `PORTICO_METRICS_PORT`. */
export interface MetricsServer {
  /** Where Prometheus scrapes, e.g. `http://127.0.0.1:9464/metrics` (the port actually listened on). */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the process's metrics over plain HTTP at `GET /metrics` on a port of its own (`PORTICO_METRICS_PORT`,
 * on `PORTICO_METRICS_HOST`, 127.0.0.1 by default): a port for the monitoring network, apart from the services'
 * HTTPS ports, so that no key or token is needed. Anything else gets 404.
 *
 * @example
 * const server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 9464 });
 */
export async function startMetricsServer(
  metrics: Metrics,
  options: { host: string; port: number },
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if ((request.method !== 'GET' && request.method !== 'HEAD') || path !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: GET /metrics\n');
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  // A scraper holds its connection open between scrapes; closing must not wait for it.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${String(port)}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
