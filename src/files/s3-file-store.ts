import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { ConfigError } from '../config.ts';
import type { FileStore } from './file-store.ts';
import { assertStorageKey } from './storage-key.ts';

export interface S3FileStoreOptions {
  /** An S3-compatible server, e.g. `http://127.0.0.1:9000`. @default AWS's own endpoint for `region` */
  endpoint?: string | undefined;
  bucket: string;
  /** @default 'us-east-1' in the configuration */
  region: string;
  /** Name the bucket in the path (`<endpoint>/<bucket>/<key>`), as S3-compatible servers expect. */
  forcePathStyle: boolean;
  /** Put before every storage key, as a folder: `portico/production` stores `portico/production/<key>`. */
  prefix?: string | undefined;
  /**
   * Fixed credentials, for tests against a local server. @default the AWS SDK's own chain:
   * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE and ~/.aws, web identity,
   * container and instance roles
   */
  credentials?: S3ClientConfig['credentials'];
}

/** What went wrong, as the S3 error code and HTTP status or the socket's error code: never a credential. */
function reasonOf(error: unknown): string {
  if (error instanceof S3ServiceException) {
    return `${error.name} (HTTP ${String(error.$metadata.httpStatusCode ?? 'status unknown')})`;
  }
  const { code, name, message } = error as NodeJS.ErrnoException;
  return code ?? `${name}: ${message}`;
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

/** Whether a failed GetObject or DeleteObject means that no object is stored under the key. */
function isMissingObject(error: unknown): boolean {
  return error instanceof NoSuchKey || (statusOf(error) === 404 && (error as Error).name !== 'NoSuchBucket');
}

/** What the operator should change when HeadBucket fails, in one sentence. */
function bucketProblem(error: unknown, at: { bucket: string; region: string; where: string }): string {
  const { bucket, region, where } = at;
  switch (statusOf(error)) {
    case 404:
      return `S3 bucket "${bucket}" does not exist at ${where}: create it, or set PORTICO_S3_BUCKET to one that does`;
    case 403:
      return (
        `S3 refused access to bucket "${bucket}" at ${where} (HTTP 403): check that the AWS credentials ` +
        '(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a role) are right and may use the bucket'
      );
    case 301:
      return `S3 bucket "${bucket}" is not in region ${region}: set PORTICO_S3_REGION to the bucket's region`;
  }
  if ((error as Error).name === 'CredentialsProviderError') {
    return (
      'no AWS credentials found for S3: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, ' +
      'or run Portico with a role that may use the bucket'
    );
  }
  return `cannot use S3 bucket "${bucket}" at ${where}: ${reasonOf(error)}`;
}

/**
 * Files kept as objects of one bucket on AWS S3 or an S3-compatible server (MinIO, Ceph RGW, Garage…), shared
 * by every node. Credentials come from the AWS SDK's chain (see {@link S3FileStoreOptions.credentials}).
 *
 * @example
 * const files = createS3FileStore({ bucket: 'portico-files', region: 'eu-central-1', forcePathStyle: false });
 * await files.check();
 */
export function createS3FileStore(options: S3FileStoreOptions): FileStore {
  const { endpoint, bucket, region, forcePathStyle, credentials } = options;
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
  // Where, in messages: an endpoint's origin (never a user or password in it), or AWS's region.
  const where = endpoint === undefined ? `AWS S3 (${region})` : new URL(endpoint).origin;
  const client = new S3Client({
    region,
    forcePathStyle,
    ...(endpoint !== undefined && { endpoint }),
    ...(credentials !== undefined && { credentials }),
    // Recent SDKs add CRC32 checksums (aws-chunked trailers) to every upload and check them on downloads;
    // many S3-compatible servers refuse the trailers. Checksums only where the operation requires them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without timeouts a silent endpoint would hang a start or an upload for ever. The request timeout is
    // the longest silence on the socket, not the length of a transfer.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
  });
  const keyOf = (storageKey: string): string => {
    assertStorageKey(storageKey);
    return prefix + storageKey;
  };
  const failed = (operation: string, key: string, error: unknown) =>
    new Error(`S3 ${operation} of "${key}" in bucket "${bucket}" at ${where} failed: ${reasonOf(error)}`, {
      cause: error,
    });

  return {
    async put(storageKey, content, putOptions) {
      const key = keyOf(storageKey);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: content,
            ContentLength: content.byteLength,
            ContentType: putOptions?.contentType ?? 'application/octet-stream',
          }),
        );
      } catch (error) {
        throw failed('PutObject', key, error);
      }
    },
    async open(storageKey) {
      const key = keyOf(storageKey);
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        const { Body: body, ContentLength: size } = object;
        // In Node the body is the HTTP response itself, a Readable.
        if (!(body instanceof Readable) || size === undefined) {
          throw new Error('the answer had no body or no Content-Length');
        }
        return { stream: body, size };
      } catch (error) {
        if (isMissingObject(error)) return undefined;
        throw failed('GetObject', key, error);
      }
    },
    async delete(storageKey) {
      const key = keyOf(storageKey);
      try {
        // S3 answers 204 for a key that holds nothing; some compatible servers answer 404.
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        if (!isMissingObject(error)) throw failed('DeleteObject', key, error);
      }
    },
    async *listWrittenBefore(before) {
      let continuationToken: string | undefined;
      do {
        let page;
        try {
          page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              ...(prefix === '' ? {} : { Prefix: prefix }),
              ...(continuationToken === undefined ? {} : { ContinuationToken: continuationToken }),
            }),
          );
        } catch (error) {
          throw failed('ListObjectsV2', prefix, error);
        }
        const keys = (page.Contents ?? [])
          .filter((object) => object.LastModified !== undefined && object.LastModified < before)
          .map((object) => object.Key?.slice(prefix.length) ?? '')
          .filter((key) => key !== '');
        if (keys.length > 0) yield keys;
        continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (continuationToken !== undefined);
    },
    removeUnfinishedBefore() {
      // PutObject stores an object whole or not at all: an upload cut off leaves nothing behind.
      return Promise.resolve(0);
    },
    async check() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        throw new ConfigError(bucketProblem(error, { bucket, region, where }), { cause: error });
      }
    },
  };
}
