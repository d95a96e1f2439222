/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/config.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { DESKTOP, listenForBrowser, PHONE, useChromium } from '../support/browser/browser.ts';
import { keysIssueArgs, runPortico } from '../support/cli.ts';
import { mailTo, smtpWithMailer } from '../support/data/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { testTls } from '../support/peers/tls-listener.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../support/data/transactions.ts';

/**
 * Key delivery in Chromium, for a staging and a production deployment of the Transactions service over real
 * HTTPS, the operator's commands run as `portico`, and mail received by a real SMTP server on loopback.
 */
describe('key delivery at /key-delivery in Chromium', () => {
  const chromium = useChromium('key-delivery');
  const { screenshot } = chromium;
  /** A staging and a production deployment on one database, mailing through a real SMTP server. */
  const world = madeBeforeAll('the deployments', async (closeAfterAll) => {
    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
    const tls = await testTls();
    const deployments = {} as Record<Environment, { origin: string }>;
    for (const environment of ['staging', 'production'] as const) {
      const app = await buildTransactionsApp({
        db,
        files,
        environment,
        tls,
        apiKeyCacheMs: 0,
        keyDelivery: { mailer },
      });
      deployments[environment] = { origin: await listenForBrowser(app, closeAfterAll) };
    }
    return { db, smtp, deployments };
  });

  function newPage(origin: string, viewport = DESKTOP): Promise<Page> {
    return chromium.newPage(origin, { viewport, permissions: ['clipboard-read', 'clipboard-write'] });
  }

  /** `portico <args>` on the test's database, mailing through the test's SMTP server with links to `origin`. */
  async function portico(args: string[], origin: string) {
    const ran = await runPortico(args, {
      database: world.db,
      env: { PORTICO_SMTP_URL: world.smtp.url(), PORTICO_TRANSACTIONS_URL: origin },
    });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    return ran;
  }

  /** A new organization, and a key delivered for it to `emails`: the delivery id and the mailed link. */
  async function issue(environment: Environment, emails: string[]) {
    const { origin } = world.deployments[environment];
    const handle = uniqueHandle('kd');
    await portico(['org', 'create', '--handle', handle, '--name', 'Acme Funds'], origin);
    const received = world.smtp.received.length;
    const ran = await portico(keysIssueArgs(handle, { environment, emails, json: true }), origin);
    const issued = JSON.parse(ran.stdout) as { delivery: { id: string; keyPrefix: string } };
    expect(ran.stdout).not.toMatch(/sk_(test|live)_[0-9A-Za-z]{38}/);
    const mail = await mailTo(world.smtp, emails[0] ?? '', { after: received });
    const link = new RegExp(`${origin}/key-delivery/[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}`).exec(
      mail.parsed.text ?? '',
    )?.[0];
    if (link === undefined) throw new Error(`no delivery link in ${mail.parsed.text ?? ''}`);
    return { handle, id: issued.delivery.id, link };
  }

  /** On the page of `link`: the address, the code mailed to it, and the key shown. */
  async function reveal(page: Page, email: string): Promise<string> {
    await page.getByLabel('Your e-mail address').fill(email);
    const received = world.smtp.received.length;
    await page.getByRole('button', { name: 'Mail me a code' }).click();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    const mail = await mailTo(world.smtp, email, { after: received });
    const code = /\b(\d{8})\b/.exec(mail.parsed.text ?? '')?.[1];
    if (code === undefined) throw new Error(`no code in ${mail.parsed.text ?? ''}`);
    expect(mail.parsed.subject).not.toContain(code);
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Show my key' }).click();
    await page.getByText('This is the only time the key is shown').waitFor();
    return page.getByLabel(/^API key/).inputValue();
  }

  /** Asks for the organization behind a key at a deployment's /beta. */
  async function viewer(page: Page, environment: Environment, key: string): Promise<number> {
    const response = await page.request.post(`${world.deployments[environment].origin}/beta`, {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      data: { query: '{ viewer { handle } }' },
    });
    return response.status();
  }

  for (const environment of ['staging', 'production'] as const) {
    const other: Environment = environment === 'staging' ? 'production' : 'staging';

    it(`delivers a ${environment} key to a named address, once, which works at once against /beta of ${environment} only`, async () => {
      const { origin } = world.deployments[environment];
      const { link } = await issue(environment, ['ada@example.com', 'max@example.com']);
      const page = await newPage(origin);
      await page.goto(link);
      await page.getByRole('heading', { name: 'Your API key' }).waitFor();
      await expect.poll(() => page.textContent('body')).toContain('Acme Funds');
      await screenshot(page, `${environment}-address`);

      const key = await reveal(page, 'Ada@Example.com');
      expect(key).toMatch(environment === 'staging' ? /^sk_test_/ : /^sk_live_/);
      await page.getByRole('button', { name: 'Copy key' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await screenshot(page, `${environment}-shown`);
      expect(await viewer(page, environment, key)).toBe(200);
      expect(await viewer(page, other, key)).toBe(401);

      // A second view: the same person reloading, or the other listed address, is refused.
      await page.reload();
      await page.getByRole('heading', { name: 'This key has been shown already' }).waitFor();
      expect(await page.content()).not.toContain(key);
      await screenshot(page, `${environment}-second-view`);
      const theirs = await newPage(origin, PHONE);
      await theirs.goto(link);
      await theirs.getByRole('heading', { name: 'This key has been shown already' }).waitFor();
    });

    it(`refuses another address, an expired link, a revoked delivery and a changed link on ${environment}`, async () => {
      const { origin } = world.deployments[environment];
      const listed = await issue(environment, ['ada@example.com']);
      const page = await newPage(origin, PHONE);
      await page.goto(listed.link);
      await page.getByLabel('Your e-mail address').fill('eve@example.com');
      await page.getByRole('button', { name: 'Mail me a code' }).click();
      await page.getByRole('heading', { name: 'This key was not issued to your address' }).waitFor();
      expect(world.smtp.received.some((mail) => mail.envelope.to.includes('eve@example.com'))).toBe(false);
      await screenshot(page, `${environment}-not-listed`);

      const expiring = await issue(environment, ['ada@example.com']);
      await world.db.query(
        "update key_deliveries set expires_at = clock_timestamp() - interval '1 second' where id = $1",
        [expiring.id],
      );
      await page.goto(expiring.link);
      await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
      await screenshot(page, `${environment}-expired`);

      const revoked = await issue(environment, ['ada@example.com']);
      await portico(['keys', 'revoke-delivery', revoked.id], origin);
      await page.goto(revoked.link);
      await page.getByRole('heading', { name: 'This key delivery was revoked' }).waitFor();
      await screenshot(page, `${environment}-revoked`);

      await page.goto(`${listed.link.slice(0, -4)}AAAA`);
      await page.getByRole('heading', { name: 'This link cannot be used' }).waitFor();
      await page.goto(listed.link.split('#')[0] ?? '');
      await page.getByText('The end of this link (after the #) is missing or changed').waitFor();
      await screenshot(page, `${environment}-changed-link`);

      const deliveries = await portico(['keys', 'deliveries', '--org', revoked.handle], origin);
      expect(deliveries.stdout).toContain(`${revoked.id}  revoked`);
    });
  }

  it('says a wrong code is wrong, with the tries left, and takes the right one after it', async () => {
    const { origin } = world.deployments.staging;
    const { link } = await issue('staging', ['ada@example.com']);
    const page = await newPage(origin);
    await page.goto(link);
    await page.getByLabel('Your e-mail address').fill('ada@example.com');
    const received = world.smtp.received.length;
    await page.getByRole('button', { name: 'Mail me a code' }).click();
    const code = /\b(\d{8})\b/.exec(
      (await mailTo(world.smtp, 'ada@example.com', { after: received })).parsed.text ?? '',
    )?.[1];
    await page.getByLabel('Code').fill(code === '00000000' ? '11111111' : '00000000');
    await page.getByRole('button', { name: 'Show my key' }).click();
    await page.getByText('The code is not right: 4 tries left.').waitFor();
    await screenshot(page, 'wrong-code');
    // A reload keeps the step: the code was sent to this address.
    await page.reload();
    await page.getByRole('heading', { name: 'Enter the code' }).waitFor();
    await page.getByLabel('Code').fill(code ?? '');
    await page.getByRole('button', { name: 'Show my key' }).click();
    await page.getByText('This is the only time the key is shown').waitFor();
  });
});
