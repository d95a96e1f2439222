import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

/** The certificate the services present, its private key, and what clients need to know of it. */
export interface TlsMaterial {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM. */
  key: string;
  /** The certificate file clients should trust (the generated one, or PORTICO_TLS_CERT). */
  certPath: string;
  /** Whether Portico generated the certificate itself (self-signed, for localhost). */
  selfSigned: boolean;
}

const CERT_FILE = 'tls/localhost-cert.pem';
const KEY_FILE = 'tls/localhost-key.pem';

/**
 * The certificate both services present: PORTICO_TLS_CERT/PORTICO_TLS_KEY when set, else a self-signed
 * certificate for localhost (127.0.0.1 and ::1 too), generated once into the data dir and reused.
 */
export async function loadTlsMaterial(
  config: Pick<Config, 'tlsCert' | 'tlsKey' | 'dataDir'>,
): Promise<TlsMaterial> {
  if (config.tlsCert !== undefined && config.tlsKey !== undefined) {
    const [cert, key] = await Promise.all([
      readFile(config.tlsCert, 'utf8'),
      readFile(config.tlsKey, 'utf8'),
    ]);
    return { cert, key, certPath: config.tlsCert, selfSigned: false };
  }
  const certPath = join(config.dataDir, CERT_FILE);
  const keyPath = join(config.dataDir, KEY_FILE);
  try {
    const [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
    return { cert, key, certPath, selfSigned: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Loaded only to make a certificate, once per data dir: the other starts go without it.
  const { generate } = await import('selfsigned');
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 825 * 24 * 3600 * 1000),
    extensions: [
      // Its own CA, so that clients can trust it with --cacert / NODE_EXTRA_CA_CERTS.
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  await mkdir(join(config.dataDir, 'tls'), { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private, certPath, selfSigned: true };
}

/**
 * Says once at start, on a node of several (PostgreSQL), that it presents a certificate of its own making, which
 * clients reaching another node see differ.
 */
export function warnOfCertificatePerNode(
  config: Pick<Config, 'tlsCert' | 'trustProxy'>,
  tls: TlsMaterial,
  logger: Logger,
): void {
  if (config.tlsCert !== undefined || config.trustProxy) return;
  logger.warn(
    { certificate: tls.certPath },
    'each node generates its own self-signed certificate, so clients of several nodes see different ones: give every node the same PORTICO_TLS_CERT and PORTICO_TLS_KEY, or put a TLS-terminating proxy in front (PORTICO_TRUST_PROXY)',
  );
}
