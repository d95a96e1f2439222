/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createDocumentWorkers } from '../../src/transactions/documents/document-workers.ts';
import { readBundle, writeBundle, type BundlePart } from '../../src/transactions/evidence/bundle-zip.ts';
import { createCertificateRuns } from '../../src/transactions/evidence/certificate-runs.ts';
import { loadSealCredential } from '../../src/transactions/evidence/seal-credential.ts';
import { downloadBy, useChromium } from '../support/browser/browser.ts';
import { consoleForBrowser, signIn } from '../support/browser/console-chromium.ts';
import { runPortico } from '../support/cli.ts';
import { createPerson, uniqueEmail } from '../support/data/dashboard.ts';
import { useTempFolder } from '../support/data/sealed-documents.ts';
import { CREATE_TRANSACTION, graphql } from '../support/data/transactions.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { answerThroughLink } from '../support/data/uploads.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';

const pdfsig = promisify(execFile);

/**
 * The evidence a fund's counsel checks, end to end in one Chromium over real HTTPS (issue 41): an investor whose
 * answers are in accepts the disclosure about electronic records (kept with the browser's address and user
 * agent), signs and submits in the portal; the sponsor's admin approves and countersigns in the console, and
 * the transaction completes; poppler's `pdfsig` finds the signed document and the certificate of completion
 * sealed and unmodified; the console's button downloads the evidence bundle, which `portico verify` passes
 * offline, and fails naming `files/…` once one byte of the W-9 in it changes; an event row edited in the
 * database makes the page and `portico verify --transaction` name its entry. Screenshots go to
 * test/web/screenshots/ as `console-<database>-evidence-…png`.
 */
describe('the evidence of a completed transaction in Chromium', () => {
  const chromium = useChromium('console');
  const folder = useTempFolder('portico-evidence-story-');
  const world = madeBeforeAll('the evidence story', async (closeAfterAll) => {
    const seal = await loadSealCredential({ dataDir: folder.path() });
    const documentWorkers = createDocumentWorkers({ seal });
    closeAfterAll(() => documentWorkers.close());
    const served = await consoleForBrowser(closeAfterAll, { documentWorkers });
    // Certificates are made as serve makes them: on the commit that completes a transaction.
    const certificates = createCertificateRuns({
      db: served.db,
      files: served.files,
      workers: documentWorkers,
    });
    closeAfterAll(() => certificates.stop());
    const tenant = await createEmptyTenant(served.db);
    const admin = await createPerson(served.db, {
      tenant: { kind: 'organization', id: tenant.organizationId },
      role: 'admin',
      name: 'Ada Admin',
    });
    return { ...served, tenant, admin };
  });

  /** What `pdfsig` says of a PDF saved at `path`. */
  async function signatureOf(path: string): Promise<string> {
    const { stdout } = await pdfsig('pdfsig', [path]);
    return stdout;
  }

  it(
    'seals the signed document and the certificate of completion, bundles them with the history for portico verify, and names a changed byte of the W-9 and an edited event',
    { timeout: 180_000 },
    async () => {
      const { app, db, origin, tenant, admin } = world;
      const investorEmail = uniqueEmail('grace');
      const created = await graphql(app, tenant.apiKey, CREATE_TRANSACTION, {
        input: {
          templateId: tenant.templateId,
          senderEntityId: tenant.senderEntityId,
          noticeName: 'Grace Hopper',
          noticeEmail: investorEmail,
        },
      });
      expect(created.body.errors).toBeUndefined();
      const { transactionId, transmitToken: token } = created.body.data?.createTransaction as {
        transactionId: string;
        transmitToken: string;
      };
      // Her answers and her W-9 are in (the portal's forms have a story of their own).
      await answerThroughLink(app, token, { legalName: 'Grace Hopper', email: investorEmail });

      // 1. The investor accepts the disclosure, signs and submits in the portal: the consent keeps where it came
      // from.
      const investor = await chromium.newPage(origin);
      await investor.goto(`${origin}/r/${token}/subscription/sign`);
      await investor.getByRole('heading', { name: 'Electronic records and signatures' }).waitFor();
      await investor
        .getByRole('button', { name: 'I agree to use electronic records and signatures' })
        .click();
      await investor.getByLabel('Your full name').fill('Grace Hopper');
      await investor.getByLabel(/I agree to sign electronically/).check();
      await investor.getByRole('button', { name: 'Sign' }).click();
      await investor.getByText(/You signed as/).waitFor();
      await investor.getByRole('link', { name: 'Continue' }).click();
      await investor.getByRole('heading', { name: 'Review and submit' }).waitFor();
      await investor.getByRole('button', { name: 'Submit' }).click();
      await investor.getByRole('heading', { name: 'Submitted' }).waitFor();
      const consents = await db.query<{ ip: string; userAgent: string }>(
        `select ip_address as ip, user_agent as "userAgent" from esign_consents
         where transaction_id = $1 and act = 'consented'`,
        [transactionId],
      );
      expect(consents).toEqual([
        { ip: expect.stringMatching(/127\.0\.0\.1|::1/), userAgent: expect.stringMatching(/Chrome/) },
      ]);

      // 2. The sponsor's admin approves, signs for the organization and countersigns: it completes.
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}/console/transactions/${transactionId}`);
      await signIn(page, admin);
      const workflow = page.getByRole('region', { name: 'Workflow' });
      await workflow.getByText(/^Now in review/).waitFor();
      await runEvent('Approve', 'in review', 'countersigning');
      await page.getByLabel('Your name, as you sign').fill('Ada Admin for Test Capital Fund I, L.P.');
      await page.getByLabel(/I agree to sign this document electronically/).check();
      await page.getByRole('button', { name: 'Sign for the organization' }).click();
      await page.getByRole('heading', { name: /^Sign for/ }).waitFor({ state: 'detached' });
      await runEvent('Countersign', 'countersigning', 'completed');

      async function runEvent(event: string, from: string, to: string): Promise<void> {
        await workflow.getByRole('button', { name: event, exact: true }).click();
        const dialog = page.getByRole('dialog', { name: `${event}?` });
        await dialog.getByText(new RegExp(`Moves it from ${from} to ${to}`)).waitFor();
        await dialog.getByRole('button', { name: event, exact: true }).click();
        await page.getByText(`Done: ${event} moved it from ${from} to ${to}.`).waitFor();
      }

      // 3. The signed document and the certificate, downloaded from the page's files: pdfsig finds each sealed,
      // its signature valid and the whole document covered.
      const files = page.getByRole('region', { name: 'Files' });
      const certificateLink = files.getByRole('link', { name: /certificate of completion/i });
      await certificateLink.waitFor();
      // From the top, so that the sticky header is drawn where it belongs in the whole page's picture.
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshot(page, 'evidence-completed');
      for (const link of [files.getByRole('link', { name: /signed\.pdf$/ }), certificateLink]) {
        const href = (await link.getAttribute('href')) ?? '';
        const pdf = await page.request.get(`${origin}${href}`);
        expect(pdf.status()).toBe(200);
        const path = join(folder.path(), `${String(Date.now())}.pdf`);
        await writeFile(path, await pdf.body());
        const said = await signatureOf(path);
        expect(said).toContain('Signature Type: ETSI.CAdES.detached');
        expect(said).toContain('Signature Validation: Signature is Valid.');
        expect(said).toContain('Total document signed');
      }

      // 4. The console's button downloads the bundle; portico verify passes it, offline.
      const download = await downloadBy(page, () =>
        page.getByRole('link', { name: 'Download evidence bundle' }).click(),
      );
      const bundle = join(folder.path(), 'evidence.zip');
      await writeFile(bundle, download.body);
      const passed = await runPortico(['verify', bundle], { database: db });
      expect(passed.stderr).toBe('');
      expect(passed.code).toBe(0);

      // 5. The same bundle with one byte of the W-9 changed fails, naming the file.
      const parts: BundlePart[] = [];
      await readBundle(bundle, async (entry) => {
        parts.push({ name: entry.name, content: await buffer(await entry.open()) });
      });
      const w9Name = parts.find((part) => part.name.startsWith('files/'))?.name;
      expect(w9Name).toMatch(/^files\/.*W-9 Grace Hopper\.pdf$/);
      const changed = join(folder.path(), 'evidence-changed.zip');
      await writeBundle(
        createWriteStream(changed),
        Readable.from(
          parts.map((part) => {
            if (part.name !== w9Name) return part;
            const bytes = Buffer.from(part.content as Uint8Array);
            bytes[100] = (bytes[100] ?? 0) ^ 1;
            return { name: part.name, content: bytes };
          }),
        ),
      );
      const failed = await runPortico(['verify', changed], { database: db });
      expect(failed.code).toBe(1);
      expect(failed.stdout + failed.stderr).toContain(w9Name ?? 'files/');

      // 6. An event row edited in the database: the page and portico verify --transaction name its entry.
      const [edited] = await db.query<{ position: number }>(
        `update transaction_events set message = 'Edited afterwards.'
         where transaction_id = $1 and event_key = 'approve' returning chain_position::int as position`,
        [transactionId],
      );
      const position = String(edited?.position);
      const mismatch = `The history does not match from entry ${position}: entry ${position} was edited: its content no longer matches its hash.`;
      await page.reload();
      await page.getByRole('region', { name: 'Timeline' }).getByRole('alert').getByText(mismatch).waitFor();
      await chromium.screenshot(page, 'evidence-history-edited');
      const history = await runPortico(['verify', '--transaction', transactionId], { database: db });
      expect(history.code).toBe(1);
      expect(history.stdout.trim()).toBe(mismatch);
    },
  );
});
