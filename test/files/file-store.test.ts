import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createFileStore } from '../../src/files/create-file-store.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { createLocalFileStore } from '../../src/files/local-file-store.ts';
import { createS3FileStore } from '../../src/files/s3-file-store.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../support/peers/s3.ts';

let s3: TestS3Server;
const dirs: string[] = [];

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3.close();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-file-store-'));
  dirs.push(dir);
  return dir;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A storage key shaped like the ones Portico makes. */
function storageKey(): string {
  return `${randomBytes(8).toString('hex')}/${randomBytes(8).toString('hex')}.pdf`;
}

interface Backend {
  name: string;
  /**
   * Fresh, empty storage: a store on it, and `another()` that makes a second store on the same storage, as
   * another node (or a restart) would.
   */
  storage(): Promise<{ store: FileStore; another: () => FileStore }>;
  /** A store on storage that cannot be used, and what its check must say. */
  unusable(): Promise<{ store: FileStore; message: RegExp }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'a local directory',
    async storage() {
      const root = join(await tempDir(), 'files');
      return { store: createLocalFileStore(root), another: () => createLocalFileStore(root) };
    },
    async unusable() {
      // A regular file where the directory should be: refused to root as well as to anyone else.
      const blocker = join(await tempDir(), 'not-a-directory');
      await writeFile(blocker, '');
      const root = join(blocker, 'files');
      return {
        store: createLocalFileStore(root),
        message: new RegExp(`^cannot store files in ${root}: ENOTDIR.*PORTICO_DATA_DIR`),
      };
    },
  },
  {
    name: 'an S3 bucket',
    storage() {
      // Each test has a folder of the one bucket to itself.
      const prefix = `test-${randomBytes(6).toString('hex')}`;
      const options = s3.storeOptions({ prefix });
      return Promise.resolve({
        store: createS3FileStore(options),
        another: () => createS3FileStore(options),
      });
    },
    unusable() {
      return Promise.resolve({
        store: createS3FileStore(s3.storeOptions({ bucket: 'no-such-bucket' })),
        message: new RegExp(
          `^S3 bucket "no-such-bucket" does not exist at ${s3.endpoint}: create it, or set PORTICO_S3_BUCKET`,
        ),
      });
    },
  },
];

describe.each(BACKENDS)('a file store in $name', (backend) => {
  it('returns the bytes it was given and their size', async () => {
    const { store } = await backend.storage();
    const key = storageKey();
    const content = new Uint8Array(randomBytes(70_000));
    await store.put(key, content, { contentType: 'application/pdf' });
    const opened = await store.open(key);
    expect(opened?.size).toBe(content.byteLength);
    expect(opened && (await bytesOf(opened.stream)).equals(content)).toBe(true);
  });

  it('stores an empty file', async () => {
    const { store } = await backend.storage();
    const key = storageKey();
    await store.put(key, new Uint8Array());
    const opened = await store.open(key);
    expect(opened?.size).toBe(0);
    expect(opened && (await bytesOf(opened.stream)).length).toBe(0);
  });

  it('replaces the content of a key that is put again', async () => {
    const { store } = await backend.storage();
    const key = storageKey();
    await store.put(key, Buffer.from('first version, the longer one'));
    await store.put(key, Buffer.from('second'));
    const opened = await store.open(key);
    expect(opened?.size).toBe(6);
    expect(opened && (await bytesOf(opened.stream)).toString()).toBe('second');
  });

  it('returns undefined for a key that holds nothing', async () => {
    const { store } = await backend.storage();
    await expect(store.open(storageKey())).resolves.toBeUndefined();
  });

  it('no longer returns what it deleted', async () => {
    const { store } = await backend.storage();
    const key = storageKey();
    const kept = storageKey();
    await store.put(key, Buffer.from('to delete'));
    await store.put(kept, Buffer.from('to keep'));
    await store.delete(key);
    await expect(store.open(key)).resolves.toBeUndefined();
    const opened = await store.open(kept);
    expect(opened?.size).toBe(7);
    opened?.stream.destroy();
  });

  it('deletes a key that holds nothing without an error', async () => {
    const { store } = await backend.storage();
    await expect(store.delete(storageKey())).resolves.toBeUndefined();
  });

  it.each(['../x', 'org/../../x', '/etc/passwd', 'org//x', './x', 'org\\..\\x', ''])(
    'refuses the storage key %j, which could reach outside the store',
    async (key) => {
      const { store } = await backend.storage();
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/storage key escapes the store/);
      await expect(store.open(key)).rejects.toThrow(/storage key escapes the store/);
      await expect(store.delete(key)).rejects.toThrow(/storage key escapes the store/);
    },
  );

  it('passes its check on storage it can use', async () => {
    const { store } = await backend.storage();
    await expect(store.check()).resolves.toBeUndefined();
  });

  it('fails its check on storage it cannot use, saying what to change', async () => {
    const { store, message } = await backend.unusable();
    const checked = await store.check().then(
      () => undefined,
      (error: unknown) => error,
    );
    // A ConfigError: the CLI prints its message in one line, without a stack.
    expect(checked).toBeInstanceOf(ConfigError);
    expect((checked as Error).message).toMatch(message);
    expect((checked as Error).message).not.toContain(S3RVER_CREDENTIALS.secretAccessKey);
  });

  it('shares what it stored with another store on the same storage, as nodes do', async () => {
    const { store, another } = await backend.storage();
    const key = storageKey();
    await store.put(key, Buffer.from('shared'));
    const other = another();
    const opened = await other.open(key);
    expect(opened && (await bytesOf(opened.stream)).toString()).toBe('shared');
    await other.delete(key);
    await expect(store.open(key)).resolves.toBeUndefined();
  });
});

describe('the local file store', () => {
  it('keeps keys inside its root: nothing is written beside it', async () => {
    const dir = await tempDir();
    const store = createLocalFileStore(join(dir, 'files'));
    await expect(store.put('../x', Buffer.from('outside'))).rejects.toThrow(/escapes the store/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes files and directories that only their owner can read', async () => {
    const root = join(await tempDir(), 'files');
    const store = createLocalFileStore(root);
    await store.check();
    await store.put('org/agreement.pdf', Buffer.from('%PDF-'));
    expect((await stat(join(root, 'org/agreement.pdf'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'org'))).mode & 0o777).toBe(0o700);
    expect((await stat(root)).mode & 0o777).toBe(0o700);
  });

  it('leaves neither part of a file nor its temporary file behind when a write fails', async () => {
    const root = join(await tempDir(), 'files');
    const store = createLocalFileStore(root);
    // A directory under the key's name: the rename of the finished temporary file over it fails.
    await mkdir(join(root, 'org', 'taken.pdf'), { recursive: true });
    await expect(store.put('org/taken.pdf', Buffer.from('content'))).rejects.toThrow(/EISDIR/);
    expect(await readdir(join(root, 'org'))).toEqual(['taken.pdf']);
    await expect(store.open('org/taken.pdf')).resolves.toBeUndefined();
  });

  it('leaves nothing behind after its check', async () => {
    const root = join(await tempDir(), 'files');
    await createLocalFileStore(root).check();
    expect(await readdir(root)).toEqual([]);
  });
});

describe('the S3 file store', () => {
  const client = () =>
    new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: S3RVER_CREDENTIALS,
    });

  it('stores objects under its prefix, with their content type', async () => {
    const store = createS3FileStore(s3.storeOptions({ prefix: 'portico/production/' }));
    await store.put('org/agreement.pdf', Buffer.from('%PDF-'), { contentType: 'application/pdf' });
    const object = await client().send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: 'portico/production/org/agreement.pdf' }),
    );
    expect(object.ContentType).toBe('application/pdf');
    expect(await object.Body?.transformToString()).toBe('%PDF-');
  });

  it('fails its check with the reason when the server cannot be reached', async () => {
    const store = createS3FileStore(s3.storeOptions({ endpoint: 'http://127.0.0.1:1' }));
    await expect(store.check()).rejects.toThrow(
      /^cannot use S3 bucket "portico-test" at http:\/\/127\.0\.0\.1:1: ECONNREFUSED$/,
    );
  });

  it('fails its check with a 403 when the server does not know the access key', async () => {
    const store = createS3FileStore(
      s3.storeOptions({ credentials: { accessKeyId: 'UNKNOWN', secretAccessKey: 'hunter2' } }),
    );
    const checked = await store.check().then(
      () => new Error('the check passed'),
      (error: unknown) => error as Error,
    );
    expect(checked.message).toMatch(/^S3 refused access to bucket "portico-test" .*\(HTTP 403\): check/);
    expect(checked.message).not.toContain('hunter2');
  });
});

describe('createFileStore', () => {
  it('stores files in <data dir>/files when no bucket is configured', async () => {
    const dataDir = await tempDir();
    const files = await createFileStore(loadConfig({ PORTICO_DATA_DIR: dataDir }));
    await files.check();
    await files.put('org/a.pdf', Buffer.from('local'));
    expect((await stat(join(dataDir, 'files', 'org', 'a.pdf'))).size).toBe(5);
  });

  it('stores files in the configured bucket, with credentials from the AWS SDK chain', async () => {
    const prefix = `configured-${randomBytes(4).toString('hex')}`;
    const config = loadConfig({
      PORTICO_DATA_DIR: await tempDir(),
      PORTICO_S3_ENDPOINT: s3.endpoint,
      PORTICO_S3_BUCKET: s3.bucket,
      PORTICO_S3_PREFIX: prefix,
    });
    // The SDK's chain reads the environment: this thread's, restored after.
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
    try {
      const files = await createFileStore(config);
      await files.check();
      await files.put('org/b.pdf', Buffer.from('in the bucket'));
    } finally {
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      else process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
      else process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
    const opened = await createS3FileStore(s3.storeOptions({ prefix })).open('org/b.pdf');
    expect(opened && (await bytesOf(opened.stream)).toString()).toBe('in the bucket');
  });
});
