import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3FileStoreOptions } from '../../../src/files/s3-file-store.ts';

/** The part of s3rver 3.7 (CommonJS, untyped) that the tests use. */
interface S3rver {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rver;

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

/** The access key and secret that s3rver accepts, handed to the store rather than set in process.env. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3Server {
  /** `http://127.0.0.1:<port>`, for PORTICO_S3_ENDPOINT. */
  endpoint: string;
  /** The bucket that exists on the server. */
  bucket: string;
  /** Options of `createS3FileStore` for `bucket` on this server, with s3rver's credentials. */
  storeOptions(overrides?: Partial<S3FileStoreOptions>): S3FileStoreOptions;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver, in this process) on a free loopback port, keeping its objects in a
 * temporary directory, with one bucket. It speaks S3's REST API with SigV4 as AWS does, path-style.
 *
 * @example
 * const s3 = await startS3Server();
 * const files = createS3FileStore(s3.storeOptions());
 * afterAll(() => s3.close());
 */
export async function startS3Server(bucket = 'portico-test'): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'portico-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${String(port)}`;
  return {
    endpoint,
    bucket,
    storeOptions: (overrides) => ({
      endpoint,
      bucket,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
      ...overrides,
    }),
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
