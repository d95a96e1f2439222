// `portico verify` (issue 41), in-process on a database of this file's own: `--transaction <id>`, a history that
// matches its chain exits 0 with its length and head, one edited in the database exits 1 naming the entry; a
// sealed PDF is checked offline, with its chain to the certificates trusted; a bundle, not made yet, is refused
// in words.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSealCredential } from '../../src/transactions/evidence/seal-credential.ts';
import { cliOnTestDatabase } from '../support/cli.ts';
import { sealedDocument } from '../support/data/sealed-documents.ts';
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

  it('refuses an unknown transaction, a missing --transaction and a bundle, each in words', async () => {
    const unknown = await portico(['verify', '--transaction', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(
      /^portico: There is no transaction "00000000-0000-4000-8000-000000000000"/m,
    );

    const none = await portico(['verify']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^portico: Give --transaction <id>/m);

    const bundle = await portico(['verify', 'evidence.zip']);
    expect(bundle.code).toBe(1);
    expect(bundle.stderr).toMatch(
      /^portico: Portico makes no evidence bundles yet, so "evidence.zip" cannot be checked: give a sealed PDF/m,
    );
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
