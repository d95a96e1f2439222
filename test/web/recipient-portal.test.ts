import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { createRecipientNotices } from '../../src/transactions/recipients/notice-sender.ts';
import { startWebhookWorker } from '../../src/webhooks/delivery.ts';
import {
  accessibilityViolations,
  DESKTOP,
  downloadBy,
  listenForBrowser,
  PHONE,
  useChromium,
} from '../support/browser/browser.ts';
import { mailTo, smtpWithMailer } from '../support/data/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { pdfText } from '../support/pdf-text.ts';
import { testTls } from '../support/peers/tls-listener.ts';
import { CREATE_TRANSACTION, graphql, TRIGGER_TRANSACTION_EVENT } from '../support/data/transactions.ts';
import { addEntity, createEmptyTenant } from '../support/data/transactions-suite.ts';
import { testDatabaseAndFiles } from '../support/data/transactions.ts';
import { EXECUTABLE, samplePdf } from '../support/data/uploads.ts';
import { startWebhookReceiver } from '../support/peers/webhook-receiver.ts';

/**
 * The recipient portal in Chromium, end to end: a transaction created through GraphQL, its invitation received
 * by a real SMTP server, the investor's whole flow in the browser (forms, an upload, a signature, a submit), a
 * request for changes and a second round, the sponsor's approval and countersignature, the signed PDF
 * downloaded and the completion webhook received by a real HTTP receiver, over real HTTPS.
 */
describe('the recipient portal at /r in Chromium', () => {
  const chromium = useChromium('recipient');
  const { screenshot } = chromium;
  /**
   * The Transactions service over HTTPS with its recipient notices and webhook worker, a real SMTP server and
   * webhook receiver, an organization with the example template, and the files the investor uploads.
   */
  const world = madeBeforeAll('the service', async (closeAfterAll) => {
    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    const dataDir = await mkdtemp(join(tmpdir(), 'portico-recipient-'));
    closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
    const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
    const receiver = await startWebhookReceiver('/hooks/portico');
    closeAfterAll(() => receiver.close());
    let origin = '';
    // Everything the service logs, as written: the story ends by reading it for credentials.
    const log: string[] = [];
    const logger = createLogger('debug', { write: (line: string) => void log.push(line) });
    const notices = createRecipientNotices({
      db,
      mailer,
      transactionsUrl: () => origin,
      intervalMs: 0,
      logger,
    });
    const app = await buildTransactionsApp({
      db,
      files,
      environment: 'staging',
      logger,
      tls: await testTls(),
      apiKeyCacheMs: 0,
      webhooksAllowInsecure: true,
      recipientNotices: notices,
    });
    origin = await listenForBrowser(app, closeAfterAll);
    closeAfterAll(() => notices.stop());
    const worker = startWebhookWorker(db, { allowInsecure: true, pollMs: 100 });
    closeAfterAll(() => worker.stop());
    const tenant = await createEmptyTenant(db);
    await writeFile(join(dataDir, 'W-9 Grace Hopper.pdf'), await samplePdf('Form W-9: Grace Hopper'));
    await writeFile(join(dataDir, 'W-9.pdf'), EXECUTABLE);
    return { db, app, origin, smtp, receiver, tenant, dataDir, log };
  });

  function newPage(viewport = DESKTOP): Promise<Page> {
    return chromium.newPage(world.origin, { viewport });
  }

  async function api(query: string, variables: Record<string, unknown>) {
    const { body } = await graphql(world.app, world.tenant.apiKey, query, variables);
    expect(body.errors).toBeUndefined();
    return body.data!;
  }

  /** A new transaction for `email`, and the link its invitation mailed. */
  async function invite(email: string): Promise<{ transactionId: string; link: string }> {
    const received = world.smtp.received.length;
    const created = await api(CREATE_TRANSACTION, {
      input: {
        templateId: world.tenant.templateId,
        senderEntityId: world.tenant.senderEntityId,
        noticeName: 'Grace Hopper',
        noticeEmail: email,
      },
    });
    const mail = await mailTo(world.smtp, email, { after: received });
    expect(mail.parsed.subject).toMatch(/Test Capital/);
    const link = new RegExp(`${world.origin}/r/[0-9a-f-]{36}`).exec(mail.parsed.text ?? '')?.[0];
    if (link === undefined) throw new Error(`no recipient link in ${mail.parsed.text ?? ''}`);
    return { transactionId: created.createTransaction.transactionId, link };
  }

  const event = (transactionId: string, eventKey: string, message?: string) =>
    api(TRIGGER_TRANSACTION_EVENT, { input: { transactionId, eventKey, ...(message ? { message } : {}) } });

  async function signAndContinue(page: Page): Promise<void> {
    await page.getByRole('heading', { name: 'Sign', exact: true }).waitFor();
    await page.getByLabel('Your full name').fill('Grace Hopper');
    await page.getByLabel(/I agree to sign electronically/).check();
    await page.getByRole('button', { name: 'Sign' }).click();
    await page.getByText(/You signed as/).waitFor();
  }

  // The whole story, six steps twice over with mail and a webhook: about 16 s alone, more beside other work.
  it(
    'takes an invited investor from the mailed link through forms, an upload, signing and two submissions to the signed PDF, with the completion webhook',
    { timeout: 120_000 },
    async () => {
      await api(
        `mutation ($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { webhookEndpoint { id } } }`,
        { input: { url: world.receiver.url, eventTypes: ['TRANSACTION_COMPLETED'] } },
      );
      const { transactionId, link } = await invite('grace@example.com');
      const page = await newPage();

      // The invitation's link opens what is asked, step by step.
      await page.goto(link);
      await page.getByRole('heading', { name: 'Fund subscription' }).waitFor();
      await page.getByText('Test Capital asks you to complete:').waitFor();
      await screenshot(page, '01-overview');
      await page.getByRole('link', { name: 'Start' }).click();

      // About you: a bad value is refused on the page, with its message, before anything is saved.
      await page.getByRole('heading', { name: 'About you' }).waitFor();
      await page.getByLabel('E-mail address').fill('grace@');
      await page.getByLabel('E-mail address').blur();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').first().waitFor();
      await page.getByText('Enter an e-mail address, like').first().waitFor();
      await screenshot(page, '02-about-you-problems');
      await page.getByLabel('Full legal name').fill('Grace Hopper');
      await page.getByLabel('E-mail address').fill('grace@example.com');
      await page.getByLabel('Residential or registered address').fill('1 Navy Way\nArlington, VA 22201');
      await page.getByText(/Saved at/).waitFor();
      await screenshot(page, '03-about-you');
      await page.getByRole('button', { name: 'Continue' }).click();

      // Tax forms: a ".pdf" that is an executable is refused, then the real W-9 is uploaded.
      await page.getByRole('heading', { name: 'Tax residency and forms' }).waitFor();
      await page.getByLabel('Country of tax residence').click();
      await page.getByRole('option', { name: 'United States', exact: true }).click();
      await page.getByRole('listbox').waitFor({ state: 'detached' });
      await page.getByLabel('I am a U.S. person for tax purposes').check();
      const upload = page.getByLabel('W-9 (U.S. persons) or W-8BEN (others)');
      await upload.setInputFiles(join(world.dataDir, 'W-9.pdf'));
      await page.getByText(/whatever its name says/).waitFor();
      await screenshot(page, '04-tax-wrong-type');
      await upload.setInputFiles(join(world.dataDir, 'W-9 Grace Hopper.pdf'));
      await page.getByText('Uploaded W-9 Grace Hopper.pdf.').waitFor();
      await page.getByText(/Saved at/).waitFor();
      await screenshot(page, '05-tax-uploaded');
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Accreditation' }).waitFor();
      await page.getByLabel('Net worth over $1,000,000, excluding your home').check();
      await page.getByLabel('I confirm that what I have given here is true and complete').check();
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Subscription amount' }).waitFor();
      // Money as people write it: the page reads "250,000" in the chosen currency and says what it reads.
      await page.getByLabel('Currency').click();
      await page.getByRole('option', { name: 'USD' }).click();
      await page.getByRole('listbox').waitFor({ state: 'detached' });
      await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('250,000');
      await page.getByText('$250,000.00').waitFor();
      await screenshot(page, '06-amount');
      await page.getByRole('button', { name: 'Continue' }).click();

      // Sign: the preview is the PDF the answers make; signing needs the consent.
      await page.getByRole('heading', { name: 'Sign', exact: true }).waitFor();
      const preview = await page.getByRole('link', { name: /Open the PDF/ }).getAttribute('href');
      const previewPdf = await page.request.get(`${world.origin}${preview ?? ''}`);
      expect(previewPdf.headers()['content-type']).toBe('application/pdf');
      // The preview is the fund's (sample) agreement with the answers filled in, stamped as a preview.
      const previewed = pdfText(await previewPdf.body()).replace(/\s+/g, ' ');
      expect(previewed).toContain('PREVIEW - NOT SIGNED');
      expect(previewed).toContain('SAMPLE AGREEMENT.');
      expect(previewed).toContain(
        '(the "Fund") and Grace Hopper of 1 Navy Way, Arlington, VA 22201 (the "Investor")',
      );
      expect(previewed).toMatch(/capital commitment of \$250,000\.00 ?, on the terms/);
      expect(previewed).toContain('Amount: $250,000.00');
      // Before the first signature, the disclosure about electronic records: accepted with a button, never a
      // ticked box, and recorded with the browser's address and user agent.
      await page.getByRole('heading', { name: 'Electronic records and signatures' }).waitFor();
      expect(await page.getByLabel('Your full name').count()).toBe(0);
      await screenshot(page, '07-disclosure');
      // By keyboard: the button takes Enter, and the focus goes on to the name to sign with.
      await page.getByRole('button', { name: 'I agree to use electronic records and signatures' }).focus();
      await page.keyboard.press('Enter');
      await page.getByLabel('Your full name').waitFor();
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.id))
        .toBe('sign-subscription_agreement-name');
      const consents = await world.db.query<{ ip: string; userAgent: string }>(
        `select ip_address as ip, user_agent as "userAgent" from esign_consents
         where transaction_id = $1 and act = 'consented'`,
        [transactionId],
      );
      expect(consents).toEqual([
        { ip: expect.stringMatching(/127\.0\.0\.1|::1/), userAgent: expect.stringMatching(/Chrome/) },
      ]);
      await page.getByLabel('Your full name').fill('Grace Hopper');
      await page.getByRole('button', { name: 'Sign' }).click();
      await page
        .getByText(/agree to sign electronically/)
        .first()
        .waitFor();
      await screenshot(page, '07-sign');
      await signAndContinue(page);
      await page.getByRole('link', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Review and submit' }).waitFor();
      await page.getByText('$250,000.00').waitFor();
      // The consent says when it was given.
      await page.getByText(/^Given .*\d{4}/).waitFor();
      await screenshot(page, '08-review');
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('heading', { name: 'Submitted' }).waitFor();
      await screenshot(page, '09-submitted');

      // The sponsor asks for changes: the investor is mailed the message and their link at once, and sees the
      // message on the page; they change the amount, sign and submit again.
      const mailed = world.smtp.received.length;
      await event(
        transactionId,
        'request_changes',
        'Please subscribe 500,000.00 USD, as agreed on the phone.',
      );
      const changesMail = await mailTo(world.smtp, 'grace@example.com', { after: mailed });
      expect(changesMail.parsed.subject).toBe('Test Capital asks for changes: Fund subscription');
      expect(changesMail.parsed.text).toContain('Please subscribe 500,000.00 USD, as agreed on the phone.');
      expect(changesMail.parsed.text).toContain(link);
      await page.reload();
      await page.getByText('Please subscribe 500,000.00 USD, as agreed on the phone.').waitFor();
      await screenshot(page, '10-changes-requested');
      await page.goto(`${link}/subscription/items/subscription_amount`);
      await page.getByRole('heading', { name: 'Subscription amount' }).waitFor();
      await page.getByRole('textbox', { name: 'Amount', exact: true }).fill('500,000');
      await page.getByText(/Saved at/).waitFor();
      // The amount is one answer on its step, marked as changed since the last submission (it was stored as
      // {currency, amount}, and its parts were compared one by one, so no field of the step was marked).
      await page.getByText('Changed since your last submission', { exact: true }).waitFor();
      await screenshot(page, '11-changed-answer');
      await page.getByRole('button', { name: 'Continue' }).click();
      await signAndContinue(page);
      await page.getByRole('link', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Review and submit' }).waitFor();
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByRole('heading', { name: 'Submitted' }).waitFor();

      // The sponsor approves and countersigns: the investor downloads the signed PDF; the webhook fires.
      await event(transactionId, 'approve');
      await api(
        `mutation ($input: SignTransactionDocumentInput!) { signTransactionDocument(input: $input) { state } }`,
        {
          input: {
            transactionId,
            documentKey: 'subscription_agreement',
            signedName: 'Alex Morgan',
            consent: true,
          },
        },
      );
      const beforeCompletion = world.smtp.received.length;
      await event(transactionId, 'countersign');
      // Completion mails the investor their signed copy: a link to the portal, not an attachment.
      const signedMail = await mailTo(world.smtp, 'grace@example.com', { after: beforeCompletion });
      expect(signedMail.parsed.subject).toBe('Signed by everyone: Fund subscription with Test Capital');
      expect(signedMail.parsed.text).toContain(link);
      expect(signedMail.parsed.attachments).toEqual([]);
      await page.reload();
      await page.getByRole('heading', { name: 'Completed' }).waitFor();
      await screenshot(page, '12-completed');
      // A download that fails names what the service logged of the file's requests.
      const download = await downloadBy(
        page,
        () => page.getByRole('link', { name: /Download Subscription agreement/ }).click(),
        () => `; the service logged:\n${world.log.filter((line) => line.includes('"/files/')).join('\n')}`,
      );
      const signed = download.body;
      expect(signed.subarray(0, 5).toString()).toBe('%PDF-');
      expect(download.suggestedFilename).toMatch(/Subscription agreement - signed\.pdf/);
      // The signed copy is the agreement filled in with the answers as they were last submitted, signed by both.
      const signedText = pdfText(signed).replace(/\s+/g, ' ');
      expect(signedText).toContain('SAMPLE AGREEMENT.');
      expect(signedText).toMatch(/capital commitment of \$500,000\.00 ?, on the terms/);
      expect(signedText).toContain('it is resident for tax purposes in United States (US);');
      expect(signedText).toContain('Signed electronically by Grace Hopper (investor) on');
      expect(signedText).toContain('Signed electronically by Alex Morgan (countersigner) on');
      expect(signedText).toContain('Appendix: the answers given');
      expect(signedText).not.toContain('PREVIEW');

      await expect.poll(() => world.receiver.bodies.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const webhook = JSON.parse(world.receiver.bodies[0] ?? '{}') as {
        type?: string;
        data?: { id?: string };
      };
      expect(webhook.type).toBe('transaction.completed');
      expect(JSON.stringify(webhook)).toContain(transactionId);

      // The service logged every page and route the investor used, and none of the credentials they carried:
      // the link's token, the download's signature.
      const token = link.split('/r/')[1] ?? '';
      const signature = new URL(download.url).searchParams.get('signature') ?? '';
      expect(token).not.toBe('');
      expect(signature).not.toBe('');
      const requests = world.log.map((line) => JSON.parse(line) as { req?: { url?: string } });
      expect(requests.some((line) => line.req?.url?.startsWith('/r/[redacted]/') === true)).toBe(true);
      expect(requests.some((line) => line.req?.url?.startsWith('/recipient/[redacted]/') === true)).toBe(
        true,
      );
      expect(world.log.filter((line) => line.includes(token) || line.includes(signature))).toEqual([]);
    },
  );

  it('starts a fresh transaction with every consent unticked and nothing done, on a phone and a desktop, and saves no consent until it is ticked', async () => {
    for (const [name, viewport] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      const { link } = await invite(`grace.fresh.${name}@example.com`);
      const token = link.slice(link.lastIndexOf('/') + 1);
      const page = await newPage(viewport);
      await page.goto(`${link}/subscription/items/accreditation`);
      await page.getByRole('heading', { name: 'Accreditation' }).waitFor();
      const consent = page.getByLabel('I confirm that what I have given here is true and complete');
      expect(await consent.isChecked()).toBe(false);
      expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);
      // Nothing done, and no word of answers kept back: the investor has typed nothing.
      if (name === 'phone') await page.getByRole('progressbar', { name: '0 of 6 steps done' }).waitFor();
      else {
        const wide = page.getByRole('navigation', { name: 'Steps' }).filter({ visible: true });
        expect(await wide.getByText('To fill in').count()).toBe(4);
      }
      expect(await page.getByText(/% done|kept on this device|Not saved/).count()).toBe(0);
      // A phone says "Step n of 6" once, and the step's title once.
      expect(
        await page
          .getByText(/^Step 3 of 6/)
          .filter({ visible: true })
          .count(),
      ).toBe(1);
      const titles = page.getByText('Accreditation', { exact: true }).filter({ visible: true });
      if (name === 'phone') expect(await titles.count()).toBe(1);
      await screenshot(page, `${name}-fresh-consent`);

      // Ticking a basis saves it, and it alone: the consent waits for its own tick.
      await page.getByLabel('Net worth over $1,000,000, excluding your home').check();
      await page.getByText(/Saved at/).waitFor();
      const view = await world.app.inject({ method: 'GET', url: `/recipient/${token}` });
      const { processes } = view.json<{
        processes: { items: { vulcanKey: string; consents: unknown }[] }[];
      }>();
      const item = processes[0]?.items.find((each) => each.vulcanKey === 'accreditation');
      expect(item).toMatchObject({ data: { basis: ['net_worth'] }, completionPercentage: 50, consents: {} });
    }
  });

  it('lets an investor on a phone ask to sign on paper from the footer of any page, with a message to the organization, and says where they stand', async () => {
    const { transactionId, link } = await invite('grace.paper@example.com');
    const page = await newPage(PHONE);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Fund subscription' }).waitFor();
    await page.getByRole('link', { name: /Electronic records/ }).click();
    await page.getByRole('heading', { name: 'Electronic records and signatures', level: 1 }).waitFor();
    await page.getByText('You have not agreed to use electronic records and signatures yet.').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-electronic-records');

    await page
      .getByLabel('A message to Test Capital (optional)')
      .fill('Please post the papers to 1 Navy Way.');
    await page.getByRole('button', { name: 'Ask to sign on paper' }).click();
    await page.getByText('Done: Test Capital has been told you want to sign on paper.').waitFor();
    await page.getByText(/^You asked to sign on paper on/).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-paper-requested');
    const acts = await world.db.query<{ act: string; message: string }>(
      'select act, message from esign_consents where transaction_id = $1',
      [transactionId],
    );
    expect(acts).toEqual([{ act: 'paper_requested', message: 'Please post the papers to 1 Navy Way.' }]);
  });

  it('lands a click on a checkbox made right after leaving a field, with an answer missing above it, and shows the message on Continue', async () => {
    const { link } = await invite('grace.pointer@example.com');
    const page = await newPage();
    await page.goto(`${link}/subscription/items/tax_forms`);
    await page.getByRole('heading', { name: 'Tax residency and forms' }).waitFor();
    // The country above is not answered yet: a message on blur would push the checkbox down under the pointer.
    await page.getByLabel('Taxpayer identification number').fill('123-45-6789');
    // The pointer goes from the wrong answer straight to the checkbox below it: the blur happens on the way.
    const usPerson = page.getByLabel('I am a U.S. person for tax purposes');
    await usPerson.click();
    expect(await usPerson.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').first().waitFor();
    await page
      .getByText(/Country of tax residence:/)
      .first()
      .waitFor();
    await screenshot(page, 'pointer-lands');
  });

  it("starts the investor's answers from their entity type: a trust is a trust and is not asked a date of birth", async () => {
    await addEntity(world.db, world.tenant.organizationId, {
      name: 'Hopper Family Trust',
      email: 'trustee@example.com',
      type: 'trust',
    });
    const { link } = await invite('trustee@example.com');
    const page = await newPage(PHONE);
    await page.goto(`${link}/subscription/items/investor_details`);
    await page.getByRole('heading', { name: 'About you' }).waitFor();
    expect(await page.getByRole('radio', { name: 'A trust' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Date of birth').count()).toBe(0);
    await screenshot(page, 'phone-about-you-trust');
    // Investing as a person after all: the form asks their date of birth, and forgets it when they go back.
    await page.getByRole('radio', { name: 'An individual' }).check();
    await page.getByLabel('Date of birth').fill('1906-12-09');
    await page.getByRole('radio', { name: 'A trust' }).check();
    await page.getByLabel('Date of birth').waitFor({ state: 'detached' });
    await page.getByLabel('Full legal name').fill('Hopper Family Trust');
    // "Saved at" shows already for the choices saved before: wait for what the server holds instead.
    const token = link.slice(link.lastIndexOf('/') + 1);
    const saved = async () => {
      const view = await world.app.inject({ method: 'GET', url: `/recipient/${token}` });
      return view
        .json<{ processes: { items: { vulcanKey: string; data: Record<string, unknown> }[] }[] }>()
        .processes[0]?.items.find((each) => each.vulcanKey === 'investor_details')?.data;
    };
    await expect
      .poll(saved, { timeout: 10_000 })
      .toEqual({ investorType: 'trust', legalName: 'Hopper Family Trust' });
  });

  it('fits a phone, and tells the holder of a replaced link what to do', async () => {
    const { transactionId, link } = await invite('grace.phone@example.com');
    const page = await newPage(PHONE);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Fund subscription' }).waitFor();
    await screenshot(page, 'phone-overview');
    await page.getByRole('link', { name: 'Start' }).click();
    await page.getByRole('heading', { name: 'About you' }).waitFor();
    await screenshot(page, 'phone-about-you');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    await api(
      'mutation ($input: ResetTransmitTokenInput!) { resetTransmitToken(input: $input) { transmitToken } }',
      { input: { transactionId } },
    );
    await page.goto(link);
    await page.getByRole('heading', { name: 'This link was replaced' }).waitFor();
    await screenshot(page, 'phone-link-replaced');
  });

  it('shows the recipient of a voided transaction its own page with the reason, and mails them the same', async () => {
    const email = 'grace.voided@example.com';
    const { transactionId, link } = await invite(email);
    const page = await newPage(PHONE);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Fund subscription' }).waitFor();

    const received = world.smtp.received.length;
    const reason = 'The fund closed before your subscription could be accepted.';
    await event(transactionId, 'void', reason);
    const mail = await mailTo(world.smtp, email, { after: received });
    expect(mail.parsed.subject).toMatch(/^Cancelled: /);
    expect(mail.parsed.text).toContain(reason);

    await page.goto(link);
    await page.getByRole('heading', { name: 'This transaction was voided' }).waitFor();
    await page.getByText(`“${reason}”`).waitFor();
    expect(await page.getByText(/Test Capital voided it on/).count()).toBe(1);
    await screenshot(page, 'phone-voided');
  });
});
