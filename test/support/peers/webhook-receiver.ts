import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP receiver of webhooks on loopback: the body of each delivery, answered 204. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port><path>` */
  url: string;
  /** The body of each request received, in order. */
  bodies: string[];
  close(): Promise<void>;
}

/** Starts a {@link WebhookReceiver} on a free loopback port; its `url` ends in `path`. */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}${path}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
