import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadTlsMaterial, type TlsMaterial } from '../../../src/http/tls.ts';

let material: Promise<Pick<TlsMaterial, 'cert' | 'key'>> | undefined;

/**
 * The self-signed localhost certificate `serve` generates (also valid for 127.0.0.1), made once per test file
 * in a temporary data dir that is removed at once: pass it as `tls` to an app, and its `cert` as the `ca`
 * clients trust.
 */
export function testTls(): Promise<Pick<TlsMaterial, 'cert' | 'key'>> {
  material ??= (async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-tls-'));
    try {
      const { cert, key } = await loadTlsMaterial({ dataDir, tlsCert: undefined, tlsKey: undefined });
      return { cert, key };
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  })();
  return material;
}

/** Where a listening app answers over HTTPS. */
export interface Listening {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
}

/** Makes an app built with `tls` listen on a free loopback port. */
export async function listenHttps(app: FastifyInstance): Promise<Listening> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { origin: `https://127.0.0.1:${port}`, port };
}
