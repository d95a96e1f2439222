// The certificate of completion (issue 41, item 5): queued by the commit that completes a transaction, made once by
// whichever node claims it, sealed like a signed document, listing the parties, the acts with where they came from,
// each file's SHA-256, the template version and the head of the history's hash chain; never for a history that
// does not match its chain.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createFileLinks } from '../../../src/files/file-links.ts';
import { transactionDetail } from '../../../src/transactions/console/transaction/detail.ts';
import { createDocumentWorkers } from '../../../src/transactions/documents/document-workers.ts';
import type { CertificateFacts } from '../../../src/transactions/evidence/certificate-pdf.ts';
import {
  createCertificateRuns,
  makeDueCertificates,
} from '../../../src/transactions/evidence/certificate-runs.ts';
import { loadSealCredential } from '../../../src/transactions/evidence/seal-credential.ts';
import { verifySeal } from '../../../src/transactions/evidence/verify-seal.ts';
import { recordRecipientAct } from '../../../src/transactions/history/activity.ts';
import { recipientOf, signDocument } from '../../../src/transactions/recipients/actions.ts';
import { applyEvent, lockTransaction } from '../../../src/transactions/transitions.ts';
import { useTempFolder } from '../../support/data/sealed-documents.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { createTestFileStore } from '../../support/data/transactions.ts';
import { useTestDatabase } from '../../support/db/use-test-database.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const run = promisify(execFile);
const database = useTestDatabase();
const folder = useTempFolder('portico-certificate-');
const world = madeBeforeAll('the files and the document workers', async (closeAfterAll) => {
  const store = await createTestFileStore();
  closeAfterAll(store.cleanup);
  const seal = await loadSealCredential({ dataDir: join(folder.path(), 'data') });
  const workers = createDocumentWorkers({ seal, threads: 1 });
  closeAfterAll(() => workers.close());
  return { files: store.files, workers };
});

const INVESTOR = {
  ip: '203.0.113.7',
  userAgent:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
const OPERATOR = { ipAddress: '198.51.100.20', userAgent: 'certificate-test/1.0 (console)' };

/**
 * A transaction of a new organization taken to completion: the investor submitted (the story), opened their link
 * from a browser, then the sponsor approved from the console, countersigned and ran `countersign` after the
 * signature completed it, in one database transaction, as a request would.
 */
async function completedTransaction() {
  const { db } = database;
  const story = await organizationStory(db, world.files, { transactions: ['submitted'] });
  const [made] = story.transactions;
  if (!made) throw new Error('the story made no transaction');
  const sponsor = {
    type: 'user' as const,
    id: null,
    requestId: 'req-certificate',
    origin: { ...OPERATOR, identifiedBy: 'signed in to the console as olive@test-capital.example' },
  };
  await db.transaction(async (tx) => {
    const subject = await lockTransaction(tx, { id: made.id, organizationId: story.organizationId });
    if (!subject) throw new Error('the transaction is gone');
    await recordRecipientAct(tx, subject, {
      action: 'opened',
      requestId: 'req-opened',
      client: { ip: INVESTOR.ip, headers: { 'user-agent': INVESTOR.userAgent } },
    });
    await applyEvent(tx, subject, 'approve', sponsor);
    const countersigner = await recipientOf(tx, made.id, 'countersigner');
    if (!countersigner) throw new Error('approval added no countersigner');
    await signDocument(tx, subject, {
      signer: countersigner,
      documentKey: 'subscription_agreement',
      signedName: 'Alex Morgan for Test Capital Fund I, L.P.',
      consent: true,
      context: { ipAddress: OPERATOR.ipAddress, userAgent: OPERATOR.userAgent },
      files: world.files,
    });
    await applyEvent(tx, subject, 'countersign', sponsor);
  });
  return { story, made };
}

interface CertificateRow {
  fileId: string | null;
  sha256: string | null;
  chainPosition: string | null;
  chainHead: string | null;
  madeAt: Date | null;
  lastError: string | null;
  attempts: number;
}

async function certificateOf(transactionId: string): Promise<CertificateRow | undefined> {
  const [row] = await database.db.query<CertificateRow>(
    `select file_id as "fileId", sha256, chain_position::text as "chainPosition", chain_head as "chainHead",
       made_at as "madeAt", last_error as "lastError", attempts
     from transaction_certificates where transaction_id = $1`,
    [transactionId],
  );
  return row;
}

/** The stored bytes of a file, by its id. */
async function storedBytes(fileId: string): Promise<Buffer> {
  const [file] = await database.db.query<{ storageKey: string }>(
    'select storage_key as "storageKey" from files where id = $1',
    [fileId],
  );
  const opened = await world.files.open(file?.storageKey ?? '');
  if (opened === undefined) throw new Error('the file is not in the file store');
  return buffer(opened.stream);
}

/** What `pdftotext -layout` reads in a PDF. */
async function pdftotext(pdf: Uint8Array): Promise<string> {
  const path = join(folder.path(), `certificate-${String(Math.random()).slice(2)}.pdf`);
  await writeFile(path, pdf);
  const { stdout } = await run('pdftotext', ['-layout', path, '-']);
  return stdout;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const makeDue = () => makeDueCertificates(database.db, { files: world.files, workers: world.workers });

describe('the certificate of completion', () => {
  it('is queued by the commit that completes a transaction, and made once even by two runners racing', async () => {
    const { story, made } = await completedTransaction();
    expect(await certificateOf(made.id)).toMatchObject({ fileId: null, madeAt: null, attempts: 0 });
    const detail = () =>
      transactionDetail(database.db, {
        organizationId: story.organizationId,
        transactionId: made.id,
        links: createFileLinks(Buffer.alloc(32, 1)),
      });
    expect((await detail()).certificate).toEqual({ status: 'due' });

    const [first, second] = await Promise.all([makeDue(), makeDue()]);
    const row = await certificateOf(made.id);
    expect(row).toMatchObject({ lastError: null, attempts: 1 });
    expect(row?.fileId).toEqual(expect.any(String));
    expect(first.made + second.made).toBe(1);
    const [{ count } = { count: '0' }] = await database.db.query<{ count: string }>(
      `select count(*)::text as count from files f join transactions t on t.organization_id = f.organization_id
       where t.id = $1 and f.original_filename like '%certificate of completion.pdf'`,
      [made.id],
    );
    expect(count).toBe('1');
    expect(await makeDue()).toEqual({ made: 0, failed: 0 });
    // The console's page lists it with a download link.
    expect((await detail()).certificate).toEqual({
      status: 'made',
      name: `Fund subscription - ${made.investor.name} - certificate of completion.pdf`,
      madeAt: row?.madeAt,
      downloadPath: expect.stringMatching(new RegExp(`^/files/${row?.fileId ?? ''}\\?`)) as unknown,
    });
  });

  it('is sealed, and lists the parties, the acts with their address and browser, each file with its SHA-256, the template version and the chain head', async () => {
    const { story, made } = await completedTransaction();
    await makeDue();
    const row = await certificateOf(made.id);
    if (!row?.fileId || row.chainHead === null) throw new Error('the certificate was not made');
    const pdf = await storedBytes(row.fileId);
    expect(row.sha256).toBe(sha256(pdf));
    expect(await verifySeal(pdf)).toMatchObject({ ok: true });

    // The history it certifies is the whole history once the completing request committed, `countersign` included.
    const [head] = await database.db.query<{ position: string; hash: string }>(
      `select position::text, encode(head, 'hex') as hash from transaction_history_heads where transaction_id = $1`,
      [made.id],
    );
    expect(row.chainPosition).toBe(head?.position);
    expect(row.chainHead).toBe(head?.hash);

    const text = (await pdftotext(pdf)).replace(/[ \t]+/g, ' ');
    expect(text).toContain('Certificate of completion');
    expect(text).toContain(`Fund subscription - ${made.investor.name}`);
    expect(text).toContain(made.id);
    // The parties, in the template's words, and how the sponsor's acts were identified.
    expect(text).toContain(`${made.investor.name} Investor ${made.investor.email}`);
    expect(text).toContain('Countersigner');
    // The acts: the investor's link opened from their browser, the sponsor's approval from the console.
    expect(text).toMatch(/Opened .*203\.0\.113\.7 Chrome 131 on macOS the link mailed to/);
    expect(text).toMatch(
      /Approve \(in review to .*198\.51\.100\.20 certificate-test\/1\.0 signed in to the console as/,
    );
    // The event the completing request ran after the signature that completed it, too.
    expect(text).toMatch(/Countersign \(countersigning to .*198\.51\.100\.20/);
    expect(text).toMatch(/Agreed to use electronic records and\s/);
    // Each file's SHA-256, as the file store holds it.
    const files = await database.db.query<{ id: string; name: string }>(
      `select f.id, f.original_filename as name from files f
       where f.organization_id = $1 and f.original_filename not like '%certificate of completion.pdf'`,
      [story.organizationId],
    );
    expect(files.map((file) => file.name).sort()).toEqual(
      ['Subscription agreement - signed.pdf', `W-9 ${made.investor.name}.pdf`].sort(),
    );
    for (const file of files) {
      expect(text).toContain(file.name);
      expect(text).toContain(sha256(await storedBytes(file.id)));
    }
    expect(text).toContain('Fund subscription, version 1');
    expect(text).toContain(`Entries ${head?.position ?? ''}`);
    expect(text).toContain(row.chainHead);
    expect(text).toContain(`portico verify --transaction ${made.id}`);
  });

  it('is made at once by a node that listens, when the commit that completes the transaction notifies it', async () => {
    // No interval: only the commit's notification can start it.
    const runs = createCertificateRuns({
      db: database.db,
      files: world.files,
      workers: world.workers,
      intervalMs: 0,
    });
    try {
      await runs.listening;
      const { made } = await completedTransaction();
      await vi.waitFor(
        async () => {
          expect((await certificateOf(made.id))?.fileId).toEqual(expect.any(String));
        },
        { timeout: 20_000, interval: 50 },
      );
    } finally {
      await runs.stop();
    }
  });

  it('is queued by migration 0037 for a transaction that completed before certificates existed, and made as any', async () => {
    const { db } = database;
    const story = await organizationStory(db, world.files, { transactions: ['complete'] });
    // As a database migrated before 0035 has it: completed, without a certificate.
    await db.query('delete from transaction_certificates where transaction_id = $1', [story.transactionId]);
    const migration = await readFile(
      new URL('../../../src/db/migrations/0037_certificates_of_earlier_completions.sql', import.meta.url),
      'utf8',
    );
    await db.query(migration);
    expect(await certificateOf(story.transactionId)).toMatchObject({ fileId: null, attempts: 0 });
    await makeDue();
    const made = await certificateOf(story.transactionId);
    expect(made).toMatchObject({ lastError: null, fileId: expect.any(String) as unknown });
    // Run again (a node of another release migrating too), it leaves a made certificate as it is.
    await db.query(migration);
    expect(await certificateOf(story.transactionId)).toEqual(made);
  });

  it('refuses to certify a history that does not match its hash chain, and keeps why', async () => {
    const { made } = await completedTransaction();
    await database.db.query(
      `update transaction_activity set details = '{"edited": true}' where transaction_id = $1 and action = 'opened'`,
      [made.id],
    );
    const said: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => said.push(line) });
    const counts = await makeDueCertificates(database.db, {
      files: world.files,
      workers: world.workers,
      logger,
    });
    expect(counts).toEqual({ made: 0, failed: 1 });
    const row = await certificateOf(made.id);
    expect(row).toMatchObject({ fileId: null, madeAt: null, attempts: 1 });
    expect(row?.lastError).toMatch(/^The history does not match from entry \d+: entry \d+ was edited/);
    expect(said.join('')).toContain('the history does not match its hash chain');
    // Tried again after its backoff, not at once.
    expect(await makeDue()).toEqual({ made: 0, failed: 0 });
  });

  it('runs a history of 500 acts over pages, with names and browsers outside the fonts drawn safely', async () => {
    const at = new Date('2026-11-28T12:00:00Z');
    const facts: CertificateFacts = {
      transactionId: '00000000-0000-4000-8000-000000000001',
      organizationId: '00000000-0000-4000-8000-000000000002',
      title: 'Fund subscription - Zoë 李 Ltd',
      organizationName: 'Test Capital',
      template: { name: 'Fund subscription', key: 'subscription', version: 3 },
      sender: { name: 'Test Capital Fund I, L.P.', email: null },
      investorName: 'Zoë 李 Ltd',
      notice: { name: 'Zoë 李', email: 'zoe@example.com' },
      state: 'completed',
      createdAt: at,
      completedAt: at,
      madeAt: at,
      parties: [{ name: 'Zoë 李', role: 'Investor', email: 'zoe@example.com', identifiedBy: 'the link' }],
      signatures: [],
      consents: [],
      acts: Array.from({ length: 500 }, (_, index) => ({
        position: index + 1,
        at,
        what: `Saved: About you ${'x'.repeat(index % 3 === 0 ? 300 : 5)}`,
        by: 'Zoë 李',
        ipAddress: '2001:db8::1',
        userAgent: `agent-${String(index)} ${'🙂'.repeat(200)}`,
        identifiedBy: 'the link mailed to zoe@example.com',
      })),
      files: [],
      chain: { position: 500, head: 'ab'.repeat(32) },
    };
    const pdf = await world.workers.certify(facts);
    const text = await pdftotext(pdf);
    const pages = /page 1 of (\d+)/.exec(text);
    expect(Number(pages?.[1])).toBeGreaterThan(5);
    expect(text).toContain('Zoë ? Ltd');
    expect(text).toMatch(/\b500\s+2026-11-28T12:00:00Z/);
    expect(text).toMatch(/agent-499 +the link mailed to\n +\?{19}/);
  });
});
