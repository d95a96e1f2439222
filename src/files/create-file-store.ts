import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { FileStore } from './file-store.ts';
import { createLocalFileStore } from './local-file-store.ts';

/**
 * The store the configuration chooses: the S3-compatible bucket of `PORTICO_S3_BUCKET`, else `<data dir>/files`.
 * The AWS SDK is loaded only for an S3 store, so a local setup starts without it.
 *
 * @example
 * const files = await createFileStore(config, logger);
 * await files.check();
 */
export async function createFileStore(
  config: Pick<Config, 'dataDir' | 's3'>,
  logger?: Logger,
): Promise<FileStore> {
  const { s3 } = config;
  if (s3 === undefined) {
    const root = join(config.dataDir, 'files');
    logger?.info({ directory: root }, 'files are stored in the data dir');
    return createLocalFileStore(root);
  }
  const { createS3FileStore } = await import('./s3-file-store.ts');
  logger?.info(
    { bucket: s3.bucket, region: s3.region, endpoint: s3.endpoint ?? 'AWS', prefix: s3.prefix },
    'files are stored in S3',
  );
  // S3-compatible servers (MinIO, Ceph, Garage…) name buckets in the path, not in a host name under theirs.
  return createS3FileStore({ ...s3, forcePathStyle: s3.endpoint !== undefined });
}
