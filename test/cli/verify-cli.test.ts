// `portico verify` (issue 41), in-process on a database of this file's own: `--transaction <id>`, a history that
// matches its chain exits 0 with its length and head, one edited in the database exits 1 naming the entry; a
// sealed PDF is checked offline, with its chain to the certificates trusted; an evidence bundle written by
// `portico evidence bundle` is checked offline, a byte changed in it named, and a file that is no bundle refused
// in one line.
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalFileStore } from '../../src/files/local-file-store.ts';
import { writeBundle } from '../../src/transactions/evidence/bundle-zip.ts';
import { loadSealCredential } from '../../src/transactions/evidence/seal-credential.ts';
import { cliOnTestDatabase } from '../support/cli.ts';
import { closingOf, sealedDocument, useTempFolder, withEvidence } from '../support/data/sealed-documents.ts';
import { organizationStory } from '../support/data/stories.ts';
import { createTestFileStore } from '../support/data/transactions.ts';
import { DIALECT } from '../support/db/database.ts';

const { database, portico } = cliOnTestDatabase();
let store: Awaited<ReturnType<typeof createTestFileStore>>;
beforeAll(async () => {
  store = await createTestFileStore();
});
afterAll(async () => {
  await store.cleanup();
});

describe(`portico verify (${DIALECT})`, () => {
  it("exits 0 with the entries and head of a transaction's history that matches its chain", async () => {
    const story = await organizationStory(database(), store.files, { transactions: ['sent'] });
    const [head] = await database().query<{ head: string; position: string }>(
      `select encode(head, 'hex') as head, position::text from transaction_history_heads where transaction_id = $1`,
      [story.transactionId],
    );

    const ran = await portico(['verify', '--transaction', story.transactionId]);
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim()).toBe(
      `The history of transaction ${story.transactionId} matches its hash chain: ${head?.position ?? ''} entries, head ${head?.head ?? ''}.`,
    );

    const json = await portico(['verify', '--transaction', story.transactionId, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, head: head?.head, entries: Number(head?.position) });
  });

  it('exits 1 naming the first entry that does not match once an event row is edited', async () => {
    const story = await organizationStory(database(), store.files, { transactions: ['sent'] });
    await database().query(
      `update transaction_events set target_state = 'complete' where transaction_id = $1 and chain_position = 1`,
      [story.transactionId],
    );

    const ran = await portico(['verify', '--transaction', story.transactionId]);
    expect(ran.code).toBe(1);
    expect(ran.stdout.trim()).toBe(
      'The history does not match from entry 1: entry 1 was edited: its content no longer matches its hash.',
    );
  });

  it('refuses an unknown transaction and a missing --transaction, each in words', async () => {
    const unknown = await portico(['verify', '--transaction', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(
      /^portico: There is no transaction "00000000-0000-4000-8000-000000000000"/m,
    );

    const none = await portico(['verify']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^portico: Give --transaction <id>/m);
  });

  it('checks a sealed PDF offline: exit 0 with its seal, its chain to a trusted certificate, and 1 naming a changed byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'portico-verify-pdf-'));
    try {
      const credential = await loadSealCredential({ dataDir: dir });
      const sealed = await sealedDocument(credential);
      const path = join(dir, 'signed.pdf');
      await writeFile(path, sealed);

      const held = await portico(['verify', path, '--trust', join(dir, 'seal', 'seal-cert.pem')]);
      expect(held.code).toBe(0);
      expect(held.stdout.trim()).toBe(
        `The seal of ${path} holds: sealed by "${credential.name}", without a timestamp, its certificate chains to one you trust.`,
      );
      const unchecked = await portico(['verify', path]);
      expect(unchecked.stdout).toContain('its certificate not checked (give --trust <ca.pem>)');

      const changed = Buffer.from(sealed);
      changed[changed.indexOf('Producer')] = 'Q'.charCodeAt(0);
      const broken = join(dir, 'changed.pdf');
      await writeFile(broken, changed);
      const refused = await portico(['verify', broken]);
      expect(refused.code).toBe(1);
      expect(refused.stdout.trim()).toBe(
        `${broken}: the document changed after it was sealed: what the seal covers has another digest.`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe(`portico evidence bundle and portico verify <bundle.zip> (${DIALECT})`, () => {
  const folder = useTempFolder('portico-verify-bundle-');
  const dir = () => folder.path();
  /** The data dir whose file store (`<data dir>/files`) the stories store their files in, as serve's. */
  const dataDir = () => join(dir(), 'data');

  /** A completed transaction of sealed documents and a certificate, in the data dir's file store. */
  async function completed() {
    const files = createLocalFileStore(join(dataDir(), 'files'));
    const credential = await loadSealCredential({ dataDir: dataDir() });
    const story = await organizationStory(database(), files, { transactions: ['complete'] });
    await withEvidence(
      database(),
      files,
      credential,
      { id: story.transactionId, organizationId: story.organizationId },
      {
        certificate: 'made',
      },
    );
    return { story, files, credential };
  }

  it("writes a transaction's bundle that verify passes, and names the W-9 once one of its bytes changed", async () => {
    const { story, files } = await completed();
    const path = join(dir(), 'evidence.zip');
    const made = await portico(
      ['evidence', 'bundle', '--transaction', story.transactionId, '--output', path],
      {
        PORTICO_DATA_DIR: dataDir(),
      },
    );
    expect(made.code).toBe(0);
    expect(made.stdout.trim()).toMatch(
      new RegExp(
        `^Wrote ${path.replace(/[.]/g, '\\.')} \\([\\d.]+ KB\\): the evidence of a transaction\\. Check it with: portico verify `,
      ),
    );

    const held = await portico(['verify', path, '--trust', join(dataDir(), 'seal', 'seal-cert.pem')]);
    expect(held.code).toBe(0);
    expect(held.stdout.trim().split('\n')).toEqual([
      `The evidence bundle ${path} holds:`,
      '  transactions  1',
      '  files         5, each matching the SHA-256 of its manifest',
      expect.stringMatching(/^ {2}history {7}\d+ entries, matching their hash chains and heads$/) as unknown,
      '  seals         2 holding, by "Portico document seal", their certificates chain to one you trust'.replace(
        '"Portico document seal",',
        `${JSON.stringify((await loadSealCredential({ dataDir: dataDir() })).name)};`,
      ),
      '  certificates  1 made and checked',
    ]);
    const json = await portico(['verify', path, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, transactions: 1, trusted: null });

    // One byte of the W-9 as it lies in the zip (a PDF is stored, not compressed).
    const [w9] = await database().query<{ storageKey: string }>(
      `select f.storage_key as "storageKey" from transaction_files tf join files f on f.id = tf.file_id
       where tf.transaction_id = $1`,
      [story.transactionId],
    );
    const upload = await files.open(w9?.storageKey ?? '');
    const chunks: Buffer[] = [];
    for await (const chunk of upload?.stream ?? []) chunks.push(chunk as Buffer);
    const zip = await readFile(path);
    const at = zip.indexOf(Buffer.concat(chunks).subarray(100, 164));
    expect(at).toBeGreaterThan(0);
    zip[at] = (zip[at] ?? 0) ^ 0x01;
    const changed = join(dir(), 'changed.zip');
    await writeFile(changed, zip);
    const refused = await portico(['verify', changed]);
    expect(refused.code).toBe(1);
    expect(refused.stdout.trim()).toBe(
      `${changed}: files/W-9 (U.S. persons) or W-8BEN (others)/W-9 Investor 1.pdf does not match the manifest: its size or SHA-256 is not the one recorded.`,
    );
  });

  it("writes a closing's bundle, a folder per transaction, that verify passes", async () => {
    const { story } = await completed();
    const closingId = await closingOf(database(), story, [story.transactionId]);
    const path = join(dir(), 'closing.zip');
    const made = await portico(['evidence', 'bundle', '--closing', closingId, '--output', path], {
      PORTICO_DATA_DIR: dataDir(),
    });
    expect(made.stdout).toContain("the evidence of a closing's 1 transaction.");
    const held = await portico(['verify', path]);
    expect(held.code).toBe(0);
    expect(held.stdout).toContain('  transactions  1 (a closing)\n');
  });

  it('refuses a bundle that is not there, for a transaction that is not, and of two scopes at once, in words', async () => {
    const unknown = await portico(
      [
        'evidence',
        'bundle',
        '--transaction',
        '00000000-0000-4000-8000-000000000000',
        '--output',
        join(dir(), 'x.zip'),
      ],
      { PORTICO_DATA_DIR: dataDir() },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^portico: There is no transaction "00000000-0000-4000-8000-000000000000"/m,
    );
    const both = await portico(['evidence', 'bundle', '--transaction', 'a', '--closing', 'b']);
    expect(both.stderr).toMatch(
      /^portico: Give --transaction <id> or --closing <id>: what the bundle is of\.$/m,
    );
  });

  it('refuses a zip bomb, a name leaving the bundle, a file that is no zip and one of 2 GB, each in one line', async () => {
    const bomb = join(dir(), 'bomb.zip');
    await writeBundle(
      createWriteStream(bomb),
      Readable.from([{ name: 'files/zeros.bin', content: new Uint8Array(50 * 1024 * 1024) }]),
    );
    const escape = join(dir(), 'escape.zip');
    await writeBundle(
      createWriteStream(escape),
      Readable.from([{ name: 'aa/evil.txt', content: Buffer.from('x') }]),
    );
    const bytes = await readFile(escape);
    for (let at = bytes.indexOf('aa/evil'); at !== -1; at = bytes.indexOf('aa/evil', at + 1))
      bytes.write('..', at, 'latin1');
    await writeFile(escape, bytes);
    const text = join(dir(), 'notes.zip');
    await writeFile(text, 'these are not the bundles you are looking for');
    const large = join(dir(), 'large.zip');
    const file = await open(large, 'w');
    await file.truncate(2 * 1024 ** 3);
    await file.close();

    for (const [path, problem] of [
      [bomb, /files\/zeros\.bin inflates \d+ times its size, as a zip bomb does\.$/],
      [escape, /it names an entry outside the bundle \(\.\.\/evil\.txt\)\.$/],
      [text, /it is not a zip file that can be read \(.+\)\.$/],
      [large, /it is not a zip file that can be read \(.+\)\.$/],
      [join(dir(), 'absent.zip'), /cannot be read: name an evidence bundle \(\.zip\) or a sealed PDF\.$/],
    ] as const) {
      const ran = await portico(['verify', path]);
      expect(ran.code).toBe(1);
      expect(ran.stdout).toBe('');
      const lines = ran.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^portico: ${path.replace(/[.]/g, '\\.')} `));
      expect(lines[0]).toMatch(problem);
    }
  });
});
