/// <reference lib="dom" />
// Kept as one file: the story of a closing, step after step, shares one server and one Chromium, whose start is
// most of a short story's time.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { createClosingRuns } from '../../src/transactions/console/closings/closing-runs.ts';
import { createBulkRuns } from '../../src/transactions/console/bulk/bulk-runs.ts';
import { remindNow } from '../../src/transactions/console/transaction/actions.ts';
import { runConsoleEvent } from '../../src/transactions/console/transaction/console-events.ts';
import { pathOf } from '../../src/transactions/console/transaction/workflow-panel.ts';
import { createTransaction } from '../../src/transactions/create-transaction.ts';
import { formatMoney } from '../../src/transactions/money.ts';
import { createRecipientNotices } from '../../src/transactions/recipients/notice-sender.ts';
import { createAlertDigests } from '../../src/transactions/console/alerts/digest-job.ts';
import { downloadBy, PHONE, useChromium } from '../support/browser/browser.ts';
import { consoleForBrowser, signIn } from '../support/browser/console-chromium.ts';
import { countOf, createPerson, mailTo, smtpMailer, uniqueEmail } from '../support/data/dashboard.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { transactionStory } from '../support/data/stories.ts';

/**
 * The story of a closing in the organization console, end to end in one Chromium over real HTTPS, on an
 * organization of its own with the example template: an operator starting one transaction from the work queue's
 * "New transaction" (the form kept through a reload, the invitation previewed, sent once for a double click,
 * mailed by real SMTP with the operator's personal line), and a viewer shown the button greyed with why; then a
 * closing made from a list of 30 investors, checked row by row, fixed, run, and followed live by an admin in the
 * work queue, its invitations mailed by real SMTP, its export read back as CSV and Excel; an admin importing a
 * template with a mistake shown at its line, then the fixed version and the changes between them; a reviewer's
 * mail alerts, picked on the page, mailed as one digest for several submissions, and stopped by the digest's link;
 * and a bulk reminder on transactions selected in the work queue, checked before it runs. Screenshots go to
 * test/web/screenshots/ as `console-<database>-<step>-…png` (start, closing, templates, alerts, bulk).
 */
describe('a closing in the organization console, in Chromium', () => {
  const chromium = useChromium('console');
  const world = madeBeforeAll('the closing story', async (closeAfterAll) => {
    const { db, files, smtp, origin } = await consoleForBrowser(closeAfterAll);
    const tenant = await createEmptyTenant(db);
    const people = { kind: 'organization' as const, id: tenant.organizationId };
    const operator = await createPerson(db, { tenant: people, role: 'operator', name: 'Olive Operator' });
    const viewer = await createPerson(db, { tenant: people, role: 'viewer', name: 'Vic Viewer' });
    const admin = await createPerson(db, { tenant: people, role: 'admin', name: 'Ada Admin' });
    // A closing's rows are created by the service's job (closing-runs.ts), here as another node would run it:
    // it looks for running closings every few hundred milliseconds, and each transaction made kicks the mail of
    // its invitation, which goes to the story's SMTP server.
    const mailer = smtpMailer(smtp.url());
    closeAfterAll(() => {
      mailer.close();
    });
    const notices = createRecipientNotices({ db, mailer, transactionsUrl: () => origin, intervalMs: 0 });
    closeAfterAll(() => notices.stop());
    const closingRuns = createClosingRuns({
      db,
      intervalMs: 300,
      onCreated: () => {
        notices.kick();
      },
    });
    closeAfterAll(() => closingRuns.stop());
    return { db, files, smtp, origin, tenant, operator, viewer, admin };
  });

  it(
    'lets an operator start a transaction from the work queue with a prefilled commitment and a personal line, kept through a reload, previewed, sent once for a double click and mailed to the investor; a viewer sees the button greyed with why',
    { timeout: 120_000 },
    async () => {
      const { db, smtp, origin, tenant, operator, viewer } = world;
      const investorEmail = uniqueEmail('trustee');
      const line = 'We look forward to welcoming the Redwood Family Trust to Fund I.';

      // The operator opens the form from the work queue.
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}/console`);
      await signIn(page, operator);
      await page.getByRole('heading', { name: 'Work queue' }).waitFor();
      await page.getByText('No transactions yet').waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'start-queue');
      await page.getByRole('link', { name: 'New transaction' }).click();
      await page.getByRole('heading', { level: 1, name: 'New transaction' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/console/transactions/new');

      // The template by its name, the organization's one sender chosen; the investor, a trust.
      const template = page.getByLabel('Template');
      await template.selectOption({ label: 'Fund subscription' });
      expect(await page.getByLabel('Sender').inputValue()).toBe(tenant.senderEntityId);
      await page.getByLabel('Name', { exact: true }).fill('Redwood Family Trust');
      await page.getByLabel('E-mail address').fill(investorEmail);
      const investsAs = page.getByLabel('Invests as');
      expect(await investsAs.inputValue()).toBe('individual');
      await investsAs.selectOption({ label: 'Trust' });

      // The commitment the template lets the sender prefill: by its titles, never its key, read as money.
      const answers = page.getByRole('region', { name: 'Answers you give now' });
      await answers.getByText('Subscription amount', { exact: true }).waitFor();
      expect(await answers.getByText('subscription_amount', { exact: false }).count()).toBe(0);
      const amount = page.getByLabel('Amount', { exact: true });
      await amount.fill('250,000');
      await page.getByText('Reads as $250,000.00').waitFor();
      expect(await page.getByLabel('Currency of Amount').inputValue()).toBe('USD');
      const days = page.getByLabel('Link works for (days)');
      expect(await days.inputValue()).toBe('90');
      await page.getByLabel('Personal line in the invitation (optional)').fill(line);

      // A reload keeps everything typed. Opened by its address, the page reads what its form offers once, early,
      // and nothing of a transaction named "new".
      const requestedBefore = chromium.requested(page).length;
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'New transaction' }).waitFor();
      await page.getByText('Reads as $250,000.00').waitFor();
      const reads = chromium
        .requested(page)
        .slice(requestedBefore)
        .map((url) => new URL(url).pathname);
      expect(reads.filter((path) => path === '/console/api/start/options')).toHaveLength(1);
      expect(reads.filter((path) => path.startsWith('/console/api/transactions'))).toEqual([]);
      expect({
        template: await template.locator('option:checked').textContent(),
        name: await page.getByLabel('Name', { exact: true }).inputValue(),
        email: await page.getByLabel('E-mail address').inputValue(),
        investsAs: await investsAs.inputValue(),
        amount: await amount.inputValue(),
        line: await page.getByLabel('Personal line in the invitation (optional)').inputValue(),
      }).toEqual({
        template: 'Fund subscription',
        name: 'Redwood Family Trust',
        email: investorEmail,
        investsAs: 'trust',
        amount: '250,000',
        line,
      });
      await chromium.screenshotPhoneAndDesktop(page, 'start-form');

      // What is plainly wrong is said beside its field before anything is sent.
      await days.fill('0');
      await page.getByRole('button', { name: 'Preview invitation' }).click();
      await page.getByText('Enter a number of days from 1 to 365.').waitFor();
      expect(await days.getAttribute('aria-invalid')).toBe('true');
      expect(await days.getAttribute('aria-describedby')).toContain('start-days-error');
      await days.fill('45');
      // What the server refuses is said beside the field it names, which takes the keyboard.
      await amount.fill('500');
      await page.getByRole('button', { name: 'Preview invitation' }).click();
      await page.getByText('The amount must be at least $1,000.00.').waitFor();
      expect(await amount.getAttribute('aria-invalid')).toBe('true');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.id))
        .toBe(await amount.getAttribute('id'));
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshot(page, 'start-refused');
      await amount.fill('250,000');

      // The invitation as the investor will get it, with the personal line.
      await page.getByRole('button', { name: 'Preview invitation' }).click();
      const preview = page.getByRole('dialog', { name: 'The invitation' });
      await preview.getByText(line).waitFor();
      expect(await preview.textContent()).toContain(investorEmail);
      await preview.getByText('Test Capital asks you to complete: Fund subscription').waitFor();
      // From the top, so that the dialog is drawn over the page's first screen in the whole page's picture.
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshotPhoneAndDesktop(page, 'start-preview');

      // Sent from the preview with a double click: one transaction, whose page opens.
      const mailed = smtp.received.length;
      await preview.getByRole('button', { name: 'Send invitation' }).dblclick();
      await page.getByRole('heading', { level: 1, name: 'Redwood Family Trust' }).waitFor();
      const transactionId = /\/console\/transactions\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
      expect(transactionId).toBeDefined();
      expect(
        await countOf(db, 'select count(*) from transactions where organization_id = $1', [
          tenant.organizationId,
        ]),
      ).toBe(1);
      const [started] = await db.query<{ inputData: unknown; type: string; linkDays: number }>(
        `select t.input_data as "inputData", e.type,
           round(extract(epoch from t.transmit_token_expires_at - t.created_at) / 86400)::int as "linkDays"
         from transactions t
         join transaction_recipients r on r.transaction_id = t.id
         join entities e on e.id = r.entity_id
         where t.id = $1`,
        [transactionId],
      );
      expect(started).toEqual({
        inputData: { subscription_amount: { amount: { currency: 'USD', amount: 25_000_000 } } },
        type: 'trust',
        linkDays: 45,
      });

      // The invitation arrives by SMTP, with the personal line.
      const invitation = await mailTo(smtp, investorEmail, { after: mailed });
      expect(invitation.parsed.subject).toBe('Test Capital asks you to complete: Fund subscription');
      expect(invitation.parsed.text).toContain(line);

      // Sent, the form is forgotten: opened again, it starts empty.
      await page.goto(`${origin}/console/transactions/new`);
      await page.getByRole('heading', { level: 1, name: 'New transaction' }).waitFor();
      await page.getByLabel('Template').waitFor();
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('');
      expect(await page.getByLabel('Personal line in the invitation (optional)').inputValue()).toBe('');

      // A viewer finds the button greyed, with why beside it.
      const viewerPage = await chromium.newPage(origin, { viewport: PHONE });
      await viewerPage.goto(`${origin}/console`);
      await signIn(viewerPage, viewer);
      await viewerPage.getByRole('heading', { name: 'Work queue' }).waitFor();
      const greyed = viewerPage.getByRole('button', { name: 'New transaction' });
      expect(await greyed.isDisabled()).toBe(true);
      const why = await greyed.getAttribute('aria-describedby');
      expect(await viewerPage.locator(`#${why ?? 'none'}`).textContent()).toBe(
        'Only admins and operators start transactions.',
      );
      expect(await viewerPage.getByRole('link', { name: 'New transaction' }).count()).toBe(0);
      await chromium.screenshot(viewerPage, 'start-queue-viewer');
    },
  );

  it(
    'lets an operator make a closing from a list of 30 investors, see the two bad rows named, fix one and drop the other, and run it; an admin sees the 29 transactions arrive in the work queue without a reload, each investor is mailed, the closing shows them created with the money committed, and its list downloads as CSV and Excel with a name written as a formula given back as text',
    { timeout: 180_000 },
    async () => {
      const { db, smtp, origin, tenant, operator, admin } = world;
      // 28 good rows with amounts, one with an address that is not one (row 8), one with an amount written as a
      // European spreadsheet writes it (row 21); the header is row 1, as the spreadsheet numbers it.
      // One investor is named as a spreadsheet formula (row 6): the export must give it back as text.
      const FORMULA = 4;
      const formulaName = '=HYPERLINK("https://example.com","Limited Partner 05")';
      const investors = Array.from({ length: 30 }, (_, index) => ({
        name: index === FORMULA ? formulaName : `Limited Partner ${String(index + 1).padStart(2, '0')}`,
        email: uniqueEmail(`lp${String(index + 1)}`),
        dollars: 100_000 + (index + 1) * 1_000,
      }));
      const BAD_EMAIL = 6;
      const BAD_AMOUNT = 19;
      const quoted = (cell: string) => `"${cell.replaceAll('"', '""')}"`;
      const csv = [
        'Name,E-mail,Amount',
        ...investors.map((investor, index) => {
          const email = index === BAD_EMAIL ? 'lp7-at-example.com' : investor.email;
          const amount = index === BAD_AMOUNT ? '1.000,00' : investor.dollars.toLocaleString('en-US');
          return [investor.name, email, amount].map(quoted).join(',');
        }),
      ].join('\r\n');
      const created = investors.filter((_, index) => index !== BAD_AMOUNT);
      const committed = formatMoney(
        { currency: 'USD', amount: created.reduce((sum, investor) => sum + investor.dollars * 100, 0) },
        'en-US',
      );

      // The operator finds the closings in the console's navigation: none yet.
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}/console`);
      await signIn(page, operator);
      await page.getByRole('heading', { name: 'Work queue' }).waitFor();
      await page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Closings' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Closings' }).waitFor();
      await page.getByText('No closings yet').waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'closing-list-empty');

      // A new closing: its name, the template's latest version and the one sender chosen first.
      await page.getByRole('link', { name: 'New closing' }).click();
      await page.getByRole('heading', { level: 1, name: 'New closing' }).waitFor();
      await page.getByLabel('Template').waitFor();
      expect(await page.getByLabel('Template').locator('option:checked').textContent()).toBe(
        'Fund subscription',
      );
      expect(await page.getByLabel('Sender').inputValue()).toBe(tenant.senderEntityId);
      expect(await page.getByLabel('Links work for (days)').inputValue()).toBe('90');
      // A name left blank is said beside its field.
      await page.getByRole('button', { name: 'Create closing' }).click();
      await page.getByText('Enter a name for the closing').waitFor();
      await page.getByLabel('Name of the closing').fill('Fund I, first close');
      // What is typed stays through a reload.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'New closing' }).waitFor();
      await expect
        .poll(() => page.getByLabel('Name of the closing').inputValue())
        .toBe('Fund I, first close');
      await chromium.screenshotPhoneAndDesktop(page, 'closing-new');
      await page.getByRole('button', { name: 'Create closing' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fund I, first close' }).waitFor();
      const closingId = /\/console\/closings\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
      expect(closingId).toBeDefined();

      // A file that is no table is refused in words, and nothing is read.
      const chooser = page.getByLabel('Choose a file');
      await chooser.setInputFiles({
        name: 'fund-i.xls',
        mimeType: 'application/vnd.ms-excel',
        buffer: Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
      });
      await page
        .getByRole('alert')
        .getByText('The file is not a CSV or an Excel workbook (.xlsx).')
        .waitFor();
      await chromium.screenshot(page, 'closing-refused');

      // Rows pasted from a spreadsheet (tabs between cells) without an E-mail column: the columns' problem said
      // above the rows, the run greyed with why.
      await page.getByRole('button', { name: 'Paste rows instead' }).click();
      await page
        .getByLabel('Rows from your spreadsheet, the header row first')
        .fill('Name\tAmount\nLimited Partner 01\t101,000');
      await page.getByRole('button', { name: 'Check these rows' }).click();
      await page.getByText('The list has no E-mail column: where the invitation goes.').waitFor();
      expect(await page.getByRole('button', { name: /^Run closing/ }).isDisabled()).toBe(true);
      await page.getByText('The list’s columns have problems: fix the file and upload it again.').waitFor();
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshot(page, 'closing-pasted');

      // The file takes the list's place, checked row by row: the two bad rows named, the run greyed with why.
      await chooser.setInputFiles({
        name: 'fund-i-first-close.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csv),
      });
      await page.getByText('28 ready, 2 with problems, 0 dropped').waitFor();
      const run = page.getByRole('button', { name: /^Run closing/ });
      expect(await run.textContent()).toBe('Run closing: create 28 transactions');
      expect(await run.isDisabled()).toBe(true);
      const why = await run.getAttribute('aria-describedby');
      expect(await page.locator(`#${why ?? 'none'}`).textContent()).toBe(
        '2 rows have problems: fix or drop them first.',
      );
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshotPhoneAndDesktop(page, 'closing-preflight');

      // Only the rows with problems, each problem under its cell; the filter is in the address.
      await page.getByRole('checkbox', { name: /Only rows with problems/ }).click();
      const table = page.getByRole('table', { name: /rows of the list with problems/ });
      const rows = table.locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.locator('th').allTextContents()).toEqual(['Row 8', 'Row 21']);
      expect(await rows.nth(0).textContent()).toContain('"lp7-at-example.com" is not an e-mail address');
      expect(await rows.nth(1).textContent()).toContain('"1.000,00" could be read two ways');
      expect(new URL(page.url()).searchParams.get('problems')).toBe('1');
      await chromium.screenshotPhoneAndDesktop(page, 'closing-problems');

      // Row 8 fixed: its address, typed, stays through a reload; saved, the server checks it again.
      await page.getByRole('button', { name: 'Fix row 8' }).click();
      const email = page.getByLabel('E-mail, row 8');
      // The keyboard goes to the cell with the problem.
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
      await expect.poll(focused).toBe('E-mail, row 8');
      await email.fill(investors[BAD_EMAIL]?.email ?? '');
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Fund I, first close' }).waitFor();
      await expect.poll(() => email.inputValue()).toBe(investors[BAD_EMAIL]?.email);
      await chromium.screenshotPhoneAndDesktop(page, 'closing-fixing');
      await page.getByRole('button', { name: 'Save row 8' }).click();
      await page.getByText('Row 8 is ready.').waitFor();
      await expect.poll(focused).toBe('Fix row 8');
      await page.getByText('29 ready, 1 with problems, 0 dropped').waitFor();
      // Row 21 dropped: it will not be created.
      await page.getByRole('button', { name: 'Drop row 21' }).click();
      await page.getByText('Row 21 dropped: it will not be created.').waitFor();
      await page.getByText('29 ready, 0 with problems, 1 dropped').waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'closing-fixed');

      // An admin keeps the work queue open, filtered to nothing special.
      const adminPage = await chromium.newPage(origin);
      await adminPage.goto(`${origin}/console`);
      await signIn(adminPage, admin);
      await adminPage.getByRole('heading', { name: 'Work queue' }).waitFor();
      const allTab = adminPage
        .getByRole('navigation', { name: 'States' })
        .getByRole('link', { name: /^All/ });
      const before = await countOf(db, 'select count(*) from transactions where organization_id = $1', [
        tenant.organizationId,
      ]);
      await expect.poll(() => allTab.textContent()).toBe(`All${String(before)}`);
      await adminPage.evaluate(() => {
        (window as unknown as { notReloaded: boolean }).notReloaded = true;
      });

      // The operator runs it, having read what follows.
      expect(await run.textContent()).toBe('Run closing: create 29 transactions');
      const mailed = smtp.received.length;
      await run.click();
      const confirm = page.getByRole('alertdialog', { name: 'Run “Fund I, first close”?' });
      await confirm.getByText('29 transactions of Fund subscription are created now').waitFor();
      await chromium.screenshot(page, 'closing-run-dialog');
      await confirm.getByRole('button', { name: 'Create 29 transactions' }).click();
      // Its page turns to the run's progress.
      await page.getByText(/^\d+ of 29 created$/).waitFor();
      await chromium.screenshot(page, 'closing-running');

      // The admin's queue shows the 29 new transactions as they are made, without a reload.
      await expect.poll(() => allTab.textContent(), { timeout: 30_000 }).toBe(`All${String(before + 29)}`);
      await adminPage.getByRole('row', { name: /Limited Partner 01/ }).waitFor();
      expect(
        await adminPage.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
      ).toBe(true);
      await chromium.screenshotPhoneAndDesktop(adminPage, 'closing-queue-live');

      // Each investor is invited by SMTP, the dropped one not.
      await Promise.all(
        created.map((investor) => mailTo(smtp, investor.email, { after: mailed, timeoutMs: 30_000 })),
      );
      expect(
        smtp.received
          .slice(mailed)
          .some((mail) => mail.envelope.to.includes(investors[BAD_AMOUNT]?.email.toLowerCase() ?? '')),
      ).toBe(false);

      // The closing's page follows: 29 created, finished, the money committed.
      await page.getByText('29 of 29 created').waitFor({ timeout: 30_000 });
      await page.getByText(committed).waitFor();
      await page
        .getByText(/^Finished/)
        .first()
        .waitFor({ timeout: 15_000 });
      await page.getByText('1 row was dropped before the run.').waitFor();
      const where = page.getByRole('region', { name: 'Where they are' });
      expect(await where.getByRole('listitem').allTextContents()).toEqual(['Draft29']);
      await page.evaluate(() => {
        window.scrollTo(0, 0);
      });
      await chromium.screenshotPhoneAndDesktop(page, 'closing-finished');

      // Its transactions in the work queue, the filter named and removable.
      await page.getByRole('link', { name: 'Open in the work queue' }).click();
      await page.getByRole('heading', { name: 'Work queue' }).waitFor();
      expect(new URL(page.url()).search).toBe(`?closing=${closingId ?? ''}`);
      await page.getByText('Closing: Fund I, first close').waitFor();
      await expect.poll(() => page.locator('tbody tr').count()).toBe(29);
      await chromium.screenshotPhoneAndDesktop(page, 'closing-queue-filtered');
      // The list as filtered, as the fund's administrator gets it: a CSV file and an Excel workbook, a row each.
      const downloaded = async (name: string) =>
        (await downloadBy(page, () => page.getByRole('link', { name }).click())).body;
      const records: string[][] = parse(await downloaded('Export CSV'), { bom: true });
      expect(records).toHaveLength(2 + 29);
      expect(records[1]).toContain('subscription_amount.amount');
      // The formula comes back as text: a ' before it in the CSV, a string cell in the workbook.
      expect(records.flat()).toContain(`'${formulaName}`);
      expect(records.flat()).not.toContain(formulaName);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load((await downloaded('Export Excel')) as unknown as ExcelJS.Buffer);
      const sheet = book.worksheets[0];
      expect(sheet?.rowCount).toBe(2 + 29);
      const cells: ExcelJS.Cell[] = [];
      sheet?.eachRow((row) => {
        row.eachCell((cell) => cells.push(cell));
      });
      const formulaCells = cells.filter((cell) => cell.text === formulaName);
      expect(formulaCells.length).toBeGreaterThan(0);
      for (const cell of formulaCells) {
        expect(cell.type).toBe(ExcelJS.ValueType.String);
        expect(cell.formula).toBeUndefined();
      }
      await page.getByRole('link', { name: 'Remove the filter Closing: Fund I, first close' }).click();
      await expect.poll(() => new URL(page.url()).search).toBe('');
      await expect.poll(() => page.locator('tbody tr').count()).toBe(before + 29);

      // The list of closings says how far it is.
      await page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Closings' })
        .click();
      const listed = page.getByRole('row', { name: /Fund I, first close/ });
      await listed.waitFor();
      expect(await listed.textContent()).toContain('29 of 29 created');
      expect(await listed.textContent()).toContain('Finished');
      await chromium.screenshotPhoneAndDesktop(page, 'closing-list');
    },
  );

  it(
    'an admin imports a template with an error and sees it on its line, then imports the fixed version and sees the diff',
    { timeout: 120_000 },
    async () => {
      const { db, origin, tenant, admin } = world;
      const example = await readFile(
        new URL('../../templates/examples/subscription.yaml', import.meta.url),
        'utf8',
      );
      const first = example
        .replace('key: subscription\n', 'key: fund_two\n')
        .replace(/^name: .*$/m, 'name: Fund II subscription');
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}/console/templates`);
      await signIn(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
      await page.getByRole('link', { name: 'Import a template' }).click();
      await page.getByRole('heading', { level: 1, name: 'Import a template' }).waitFor();

      // The first version, from a file: a new template, and its page with its workflow drawn by titles.
      await page.getByLabel('Choose a YAML or JSON file').setInputFiles({
        name: 'fund-two.yaml',
        mimeType: 'application/yaml',
        buffer: Buffer.from(first),
      });
      await page.getByText('Imported: a new template.').waitFor();
      await page.getByRole('heading', { level: 1, name: 'Fund II subscription' }).waitFor();
      await page.getByRole('img', { name: /The workflow drawn/ }).waitFor();
      expect(await page.getByText('in_review').count()).toBe(0);
      // A transaction runs on it, so a change makes the next version.
      const [template] = await db.query<{ id: string }>(
        "select id from templates where organization_id = $1 and key = 'fund_two'",
        [tenant.organizationId],
      );
      await db.transaction((tx) =>
        createTransaction(tx, {
          organizationId: tenant.organizationId,
          actor: { type: 'system', id: null },
          input: {
            templateId: template?.id ?? '',
            senderEntityId: tenant.senderEntityId,
            noticeName: 'Grace Hopper',
            noticeEmail: uniqueEmail('grace'),
          },
        }),
      );

      // A pasted change with a mistake: refused, the mistake marked on its line with the CLI's code.
      const fixed = first
        .replace('    - key: in_review\n', '    - key: in_review\n      title: Under review\n')
        .replace('            minimum: 1000\n', '            minimum: 5000\n');
      const broken = fixed.replace('      to: changes_requested\n', '      to: changes_requestd\n');
      const line = broken.split('\n').findIndex((text) => text.includes('changes_requestd')) + 1;
      await page.goto(`${origin}/console/templates/import`);
      await page.getByLabel('Or paste its text').fill(broken);
      await page.getByRole('button', { name: 'Import the pasted text' }).click();
      await page.getByText(/Not imported: 1 problem in pasted.yaml/).waitFor();
      await page.getByText('BAD_USER_INPUT').waitFor();
      const marked = page.locator(`#problem-line-${String(line)}`);
      await marked.waitFor();
      expect(await marked.textContent()).toContain('changes_requestd');
      expect(await marked.textContent()).toContain('workflow.events[2].to');
      await marked.scrollIntoViewIfNeeded();
      await chromium.screenshotPhoneAndDesktop(page, 'templates-import-problem');

      // The fixed text: a new version, as a transaction uses the previous, and the changes in words.
      await page.getByLabel('Or paste its text').fill(fixed);
      await page.getByRole('button', { name: 'Import the pasted text' }).click();
      await page.getByText(/Imported as a new version, v2: transactions use the previous one/).waitFor();
      await page.getByText('State Under review: title was in review, now Under review.').waitFor();
      await page
        .getByText(/Field Amount, in Subscription amount: smallest amount was 1000, now 5000\./)
        .waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'templates-diff');

      // The list: both versions, with their use.
      await page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Templates' })
        .click();
      const row = page.getByRole('row', { name: /Fund II subscription/ });
      await row.waitFor();
      expect(await row.textContent()).toContain('v1');
      expect(await row.textContent()).toContain('1 transaction');
      await chromium.screenshotPhoneAndDesktop(page, 'templates-list');
    },
  );

  it(
    'a reviewer picks alerts and gets one digest for several submissions',
    { timeout: 120_000 },
    async () => {
      const { db, files, smtp, origin } = world;
      // An organization of its own, so that nothing another story did shows in the digest.
      const tenant = await createEmptyTenant(db);
      const reviewer = await createPerson(db, {
        tenant: { kind: 'organization', id: tenant.organizationId },
        role: 'reviewer',
        name: 'Rita Reviewer',
      });

      // The reviewer picks "submitted" on the page, and it says what was saved.
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}/console`);
      await signIn(page, reviewer);
      await page.getByRole('heading', { name: 'Work queue' }).waitFor();
      await page.getByRole('button', { name: 'account menu' }).click();
      await page.getByRole('menuitem', { name: 'Mail alerts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Mail alerts' }).waitFor();
      const submitted = page.getByRole('checkbox', { name: 'An investor submitted a transaction' });
      expect(await submitted.getAttribute('aria-checked')).toBe('false');
      await submitted.click();
      await page.getByRole('button', { name: 'Save alerts' }).click();
      await page
        .getByRole('status')
        .getByText('Saved: you get this alert by mail, at most once every 15 minutes.')
        .waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'alerts-picked');

      // Three investors submit; the digest job runs as a node would, and one mail lists them all.
      const made = [];
      for (const index of [0, 1, 2]) {
        made.push(await transactionStory(db, files, tenant, { state: 'submitted', index: 20 + index }));
      }
      const mailer = smtpMailer(smtp.url());
      const digests = createAlertDigests({
        db,
        mailer,
        transactionsUrl: () => origin,
        intervalMs: 0,
        settleMs: 0,
      });
      const mailed = smtp.received.length;
      await digests.runDue();
      await digests.runDue();
      await digests.stop();
      mailer.close();
      const toReviewer = smtp.received
        .slice(mailed)
        .filter((mail) => mail.envelope.to.includes(reviewer.email.toLowerCase()));
      expect(toReviewer).toHaveLength(1);
      const digest = await mailTo(smtp, reviewer.email, { after: mailed });
      const text = digest.parsed.text ?? '';
      expect(digest.parsed.subject).toBe('Test Capital: 3 submitted');
      for (const transaction of made) {
        expect(text).toContain(`- ${transaction.investor.name} — Fund subscription`);
        expect(text).toContain(`${origin}/console/transactions/${transaction.id}`);
      }

      // Its stop link asks first, then stops, and leads back to the alerts, none picked.
      const stop = /Stop these alerts: (\S+)/.exec(text)?.[1] ?? '';
      expect(stop.startsWith(`${origin}/console/alerts/stop/`)).toBe(true);
      await page.goto(stop);
      await page.getByRole('heading', { level: 1, name: 'Stop mail alerts?' }).waitFor();
      await page.getByText(reviewer.email).waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'alerts-stop-asked');
      await page.getByRole('button', { name: 'Stop these alerts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Alerts stopped' }).waitFor();
      await chromium.screenshotPhoneAndDesktop(page, 'alerts-stopped');
      await page.getByRole('link', { name: 'Choose which alerts you get' }).click();
      await page.getByRole('heading', { level: 1, name: 'Mail alerts' }).waitFor();
      await expect
        .poll(() =>
          page
            .getByRole('checkbox', { name: 'An investor submitted a transaction' })
            .getAttribute('aria-checked'),
        )
        .toBe('false');
    },
  );

  it(
    "lets an operator select transactions in the work queue, see in a bulk remind's preflight which are blocked and why, run it once for a double click and a reload after a lost answer, and see each result",
    { timeout: 120_000 },
    async () => {
      const { db, origin, tenant, operator } = world;
      // Six investors of their own, found by a name no other step uses: four waiting for the investor, one
      // voided, one reminded a moment ago.
      const names = Array.from({ length: 6 }, (_, index) => `Quillfeather Partner ${String(index + 1)}`);
      const ids: string[] = [];
      for (const name of names) {
        const { transactionId } = await db.transaction((tx) =>
          createTransaction(tx, {
            organizationId: tenant.organizationId,
            actor: { type: 'user', id: operator.id },
            input: {
              templateId: tenant.templateId,
              senderEntityId: tenant.senderEntityId,
              noticeName: name,
              noticeEmail: uniqueEmail('quillfeather'),
              inputData: {},
            },
          }),
        );
        ids.push(transactionId);
      }
      const actor = { type: 'user' as const, id: operator.id };
      const [voided = '', reminded = ''] = ids.slice(4);
      await runConsoleEvent(db, {
        organizationId: tenant.organizationId,
        transactionId: voided,
        eventKey: 'void',
        message: 'Sent to the wrong fund.',
        version: (await pathOf(db, voided)).at(-1)?.id ?? null,
        role: 'operator',
        actor,
      });
      await remindNow(db, { organizationId: tenant.organizationId, transactionId: reminded, actor });
      // The bulk job runs as another node would run it: it looks for work every few hundred milliseconds.
      const bulkRuns = createBulkRuns({ db, intervalMs: 300 });
      try {
        const page = await chromium.newPage(origin);
        await page.goto(`${origin}/console/queue?search=Quillfeather`);
        await signIn(page, operator);
        await page.getByRole('heading', { name: 'Work queue' }).waitFor();
        await expect.poll(() => page.locator('tbody tr').count()).toBe(6);

        // Two boxes by hand, then every row the search keeps, kept through a reload.
        await page.getByRole('checkbox', { name: 'Select Quillfeather Partner 1' }).click();
        await page.getByRole('checkbox', { name: 'Select Quillfeather Partner 2' }).click();
        await page.getByText('2 selected').waitFor();
        await page.getByRole('button', { name: 'Select all 6 matching these filters' }).click();
        await page.getByText('All 6 matching selected').waitFor();
        await page.reload();
        await page.getByText('All 6 matching selected').waitFor();
        await chromium.screenshotPhoneAndDesktop(page, 'bulk-queue');
        expect(await page.getByRole('checkbox', { name: 'Select Quillfeather Partner 5' }).isChecked()).toBe(
          true,
        );
        await page.getByRole('link', { name: 'Act on selection…' }).click();

        // The preflight of a reminder: four eligible, two blocked, each with its reason in words.
        await page.getByRole('heading', { level: 1, name: 'Act on 6 transactions' }).waitFor();
        expect(await page.getByLabel('Action').inputValue()).toBe('remind');
        await page.getByRole('heading', { name: 'Remind: what it would do' }).waitFor();
        const status = page.getByRole('status').filter({ hasText: 'eligible' });
        await expect.poll(() => status.textContent()).toContain('4 eligible');
        expect(await status.textContent()).toContain('2 blocked');
        const reasons = page.locator('.bulk-reasons li');
        await expect.poll(() => reasons.count()).toBe(2);
        const reasonTexts = (await reasons.allTextContents()).join('\n');
        expect(reasonTexts).toContain('This transaction is voided');
        expect(reasonTexts).toMatch(/A reminder was asked for \d+ seconds ago/);
        const voidedRow = page.getByRole('row', { name: /Quillfeather Partner 5/ });
        expect(await voidedRow.textContent()).toContain('Voided');
        expect(await voidedRow.textContent()).toContain('Blocked');
        expect(await page.getByRole('row', { name: /Quillfeather Partner 1/ }).textContent()).toContain(
          'Eligible',
        );
        // Words, never keys or ids.
        expect(await page.locator('main').textContent()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
        await chromium.screenshotPhoneAndDesktop(page, 'bulk-preflight');

        // Run, clicked twice, with its answer lost on the way back: the job is made, the page cannot know it.
        // After a reload the page sends the run again as it was, and follows the one job to the end.
        await page.route(
          (url) => url.pathname === '/console/api/bulk',
          async (route) => {
            await route.fetch();
            await route.abort('connectionreset');
          },
          { times: 1 },
        );
        await page.getByRole('button', { name: 'Run on 4 eligible' }).dblclick();
        await page.getByText('Portico could not be reached').waitFor();
        await page.reload();
        await page.waitForURL(/\/console\/bulk\/[0-9a-f-]{36}$/);
        await page.getByRole('heading', { level: 1, name: 'Remind: 6 transactions' }).waitFor();
        await page.getByText('Finished', { exact: true }).waitFor({ timeout: 20_000 });
        await expect
          .poll(() => page.getByRole('status').filter({ hasText: 'done' }).textContent())
          .toContain('4 done');
        for (const name of names.slice(0, 4)) {
          const row = page.getByRole('row', { name: new RegExp(name) });
          expect(await row.textContent()).toContain('Done');
          expect(await row.getByRole('link', { name }).getAttribute('href')).toMatch(
            /\/console\/transactions\//,
          );
        }
        expect(await page.getByRole('row', { name: /Quillfeather Partner 5/ }).textContent()).toContain(
          'Blocked',
        );
        await chromium.screenshotPhoneAndDesktop(page, 'bulk-results');

        const jobs = await db.query<{ count: number }>(
          'select count(*)::int as count from bulk_jobs where organization_id = $1',
          [tenant.organizationId],
        );
        expect(jobs[0]?.count).toBe(1);
        const timeline = await db.query<{ transactionId: string }>(
          `select transaction_id as "transactionId" from transaction_activity
           where transaction_id = any($1::uuid[]) and kind = 'console' and action = 'reminded'`,
          [ids],
        );
        // Each of the four reminded once; the one reminded before, once, by hand.
        expect(timeline.map((entry) => ids.indexOf(entry.transactionId)).sort()).toEqual([0, 1, 2, 3, 5]);
        // The queue lets go of the selection once it ran.
        await page.goto(`${origin}/console/queue?search=Quillfeather`);
        await expect.poll(() => page.locator('tbody tr').count()).toBe(6);
        expect(await page.getByText(/selected/).count()).toBe(0);
      } finally {
        await bulkRuns.stop();
      }
    },
  );
});
