/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTlsMaterial } from '../../src/http/tls.ts';
import type { Mailer } from '../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import {
  accessibilityViolations,
  DESKTOP,
  launchChromium,
  originOnlyContext,
  PHONE,
  SCREENSHOTS,
  type OriginOnlyContext,
} from '../support/chromium.ts';
import {
  countOf,
  createDashboardPerson,
  mailedLink,
  mailTo,
  PASSWORD,
  smtpMailer,
  uniqueEmail,
} from '../support/dashboard.ts';
import { createTestDatabase, DIALECT, type TestDatabase } from '../support/database.ts';
import { createPortfolioInstance, seedPortfolio } from '../support/portfolio.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.ts';

/**
 * The customer dashboard in Chromium, served by the Portfolio service over real HTTPS, its mail received by a
 * real SMTP server on loopback: what a customer's people do there, step by step, with a screenshot of each
 * page in test/web/screenshots/ (named after the database).
 */
describe('the customer dashboard at /dashboard in Chromium', () => {
  let database: TestDatabase;
  let dataDir: string;
  let smtp: TestSmtpServer;
  let mailer: Mailer;
  let app: FastifyInstance;
  let browser: Browser;
  let origin: string;
  /** The demo portfolio in an instance of its own, and its admin. */
  let demo: Awaited<ReturnType<typeof seedPortfolio>>;
  let admin: { email: string; password: string };
  const opened: OriginOnlyContext[] = [];

  beforeAll(async () => {
    browser = await launchChromium('dashboard');
    database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'portico-dashboard-'));
    smtp = await startSmtpServer();
    mailer = smtpMailer(smtp.url());
    const tls = await loadTlsMaterial({ dataDir, tlsCert: undefined, tlsKey: undefined });
    // Links in mail point to where the service listens, known once it does.
    const mail = { mailer, portfolioUrl: '' };
    app = await buildPortfolioApp({ db: database.db, tls, dashboard: { mail } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    origin = `https://localhost:${String((app.server.address() as AddressInfo).port)}`;
    mail.portfolioUrl = origin;
    demo = await seedPortfolio(database.db);
    admin = demo.dashboardSignIn;
  });

  afterAll(async () => {
    for (const browsing of opened) {
      // Nothing came from another origin (no CDN), and the page's Content-Security-Policy refused nothing.
      expect(browsing.requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
      expect(browsing.problems).toEqual([]);
    }
    await browser.close();
    await app.close();
    mailer.close();
    await smtp.close();
    await database.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** A new browser (its own cookies) on the dashboard, reaching nothing but Portico. */
  async function newBrowser(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const browsing = await originOnlyContext(browser, origin, {
      viewport,
      colorScheme,
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    opened.push(browsing);
    return browsing.newPage();
  }

  /**
   * Saves what the page shows, whole, as `dashboard-<database>-<name>.png`, and checks it as it is against
   * WCAG 2.1 A and AA with axe-core: every page and dialog a test looks at is accessible.
   */
  async function screenshot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${DIALECT}-${name}.png`), fullPage: true });
    expect(await accessibilityViolations(page), name).toEqual([]);
  }

  async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Calls the Portfolio API over HTTPS with a key, as an integrator's program would. */
  async function callApi(page: Page, key: string): Promise<{ status: number; total?: number }> {
    const response = await page.request.get(`${origin}/v1/external/companies?limit=1`, {
      headers: { authorization: key },
    });
    const body = (await response.json()) as { total?: number };
    return { status: response.status(), total: body.total };
  }

  const keysOf = (instanceId: string) =>
    countOf(database.db, 'select count(*) from portfolio_api_keys where instance_id = $1', [instanceId]);

  it('signs an admin in, generates a key named "warehouse sync", copies it once, and the API takes it at once', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await expect.poll(() => page.title()).toMatch(/^Companies · Ventures demo-/);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/${demo.slug}/settings/api-keys`);
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('warehouse sync');
    await screenshot(page, 'key-name');
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByRole('heading', { name: 'Copy your new key' }).waitFor();
    await expect.poll(() => dialog.textContent()).toContain('This is the only time the key is shown');
    const shown = await dialog.getByLabel('Your API key').inputValue();
    expect(shown).toMatch(/^pfk_[0-9A-Za-z]{38}$/);
    await dialog.getByRole('button', { name: 'Copy key' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await screenshot(page, 'key-shown-once');

    const answer = await callApi(page, shown);
    expect(answer).toEqual({ status: 200, total: 40 });

    await dialog.getByRole('button', { name: 'I have stored the key' }).click();
    const row = page.getByRole('row', { name: /warehouse sync/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${shown.slice(0, 12)}…`);
    expect(await row.textContent()).toContain('Demo Admin');
    // The key is not on the page any more, nor anywhere the page keeps things.
    expect(await page.content()).not.toContain(shown);
    const stored = await page.evaluate(() =>
      JSON.stringify([localStorage, sessionStorage].flatMap((storage) => Object.values(storage))),
    );
    expect(stored).not.toContain(shown);
    // Its last use shows after a reload (the API call above).
    await page.reload();
    await expect.poll(() => row.textContent()).not.toContain('Never');
    await screenshot(page, 'keys');
  });

  it('revokes a key after a confirmation, and the API refuses it within the documented second', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/settings/api-keys`);
    // Signing in brings the person back to the page they asked for.
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('to be revoked');
    await page.getByRole('dialog').getByRole('button', { name: 'Generate key' }).click();
    const key = await page.getByRole('dialog').getByLabel('Your API key').inputValue();
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    expect((await callApi(page, key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke to be revoked' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByRole('heading', { name: 'Revoke “to be revoked”?' }).waitFor();
    await screenshot(page, 'revoke-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await callApi(page, key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke to be revoked' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    const row = page.getByRole('row', { name: /to be revoked/ });
    await expect.poll(() => row.textContent()).toContain('Revoked');
    // Key lookups are reused for up to a second (docs/dashboard.md): after it, the API refuses the key.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await callApi(page, key)).status).toBe(401);
    await screenshot(page, 'key-revoked');
  });

  it('says what is wrong with a key name, on the page, and writes no key', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/settings/api-keys`);
    await signIn(page, admin);
    const before = await keysOf(demo.instanceId);
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog');
    const name = dialog.getByLabel('Name');
    await name.fill('   ');
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByText('Enter a name, so that you can tell the key from others later.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('x'.repeat(101));
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByText('A key name has at most 100 characters; this one has 101.').waitFor();
    await screenshot(page, 'key-name-refused');
    expect(await keysOf(demo.instanceId)).toBe(before);
  });

  it('says that the e-mail address or the password is not right, without saying which, and signs no one in', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await signIn(page, { email: admin.email, password: 'not the password' });
    const alert = page.getByRole('alert');
    await alert.getByText('The e-mail address or the password is not right.').waitFor();
    await signIn(page, { email: uniqueEmail('nobody'), password: 'not the password' });
    await expect
      .poll(() => alert.textContent())
      .toContain('The e-mail address or the password is not right.');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await screenshot(page, 'sign-in-refused');
    await page.goto(`${origin}/dashboard/${demo.slug}/companies`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('asks which instance to open when the address and password open two, and opens the one chosen', async () => {
    const [first, second] = await Promise.all([
      createPortfolioInstance(database.db, { name: 'Alpha Partners' }),
      createPortfolioInstance(database.db, { name: 'Beta Growth' }),
    ]);
    const email = uniqueEmail('both');
    await createDashboardPerson(database.db, { instanceId: first.instanceId, role: 'member', email });
    await createDashboardPerson(database.db, { instanceId: second.instanceId, role: 'member', email });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await signIn(page, { email, password: PASSWORD });
    const choice = page.getByRole('radiogroup', { name: /several instances/ });
    await choice.getByRole('radio', { name: /Beta Growth/ }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Choose the instance to sign in to.').waitFor();
    await screenshot(page, 'sign-in-choose-instance');
    await choice.getByRole('radio', { name: /Beta Growth/ }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/${second.slug}/companies`);
  });

  it('invites a colleague by e-mail, who sets a password from the link and signs in as a member who sees keys but cannot make them', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/settings/people`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'People' }).waitFor();
    const colleague = uniqueEmail('colleague');
    const received = smtp.received.length;
    await page.getByRole('button', { name: 'Invite someone' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('E-mail address').fill(colleague);
    await dialog.getByLabel('Name').fill('Max Colleague');
    await screenshot(page, 'invite');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation mailed to ${colleague}.`).waitFor();
    await expect
      .poll(() => page.getByRole('row', { name: /Max Colleague/ }).textContent())
      .toContain('Invited');
    await screenshot(page, 'people');

    const mail = await mailTo(smtp, colleague, { after: received });
    expect(mail.parsed.subject).toBe(`You are invited to Ventures ${demo.slug}`);
    const { link } = mailedLink(mail, 'invitation', origin);

    const theirs = await newBrowser();
    await theirs.goto(link);
    await theirs.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
    await theirs.getByLabel('New password', { exact: true }).fill('short');
    await theirs.getByLabel('Repeat the new password').fill('short');
    await theirs.getByRole('button', { name: 'Set password and sign in' }).click();
    await theirs.getByText('Use at least 10 characters.').waitFor();
    // A reload keeps the link working: the token stays in the address's fragment.
    await theirs.reload();
    await theirs.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await theirs.getByLabel('Repeat the new password').fill(PASSWORD);
    await screenshot(theirs, 'invitation');
    await theirs.getByRole('button', { name: 'Set password and sign in' }).click();
    await theirs.getByRole('heading', { name: 'Companies' }).waitFor();

    await theirs.getByRole('link', { name: 'Settings' }).click();
    await theirs.getByRole('heading', { name: 'API keys' }).waitFor();
    await theirs.getByRole('row', { name: /warehouse sync/ }).waitFor();
    await theirs.getByText('Only admins generate and revoke keys.').waitFor();
    expect(await theirs.getByRole('button', { name: 'Generate key' }).count()).toBe(0);
    expect(await theirs.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    await screenshot(theirs, 'member-keys');

    // The link worked once: opened again, it says so.
    const again = await newBrowser();
    await again.goto(link);
    await again.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await again.getByLabel('Repeat the new password').fill(PASSWORD);
    await again.getByRole('button', { name: 'Set password and sign in' }).click();
    await again.getByText('This invitation has been used already: it works once.').waitFor();
    await screenshot(again, 'invitation-used');
  });

  it('shows an expired invitation as such, with whom to ask', async () => {
    const instance = await createPortfolioInstance(database.db);
    const person = uniqueEmail('late');
    const inviter = await createDashboardPerson(database.db, {
      instanceId: instance.instanceId,
      role: 'admin',
    });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${instance.slug}/settings/people`);
    await signIn(page, inviter);
    const received = smtp.received.length;
    await page.getByRole('button', { name: 'Invite someone' }).click();
    await page.getByRole('dialog').getByLabel('E-mail address').fill(person);
    await page.getByRole('dialog').getByRole('button', { name: 'Send invitation' }).click();
    const { link } = mailedLink(await mailTo(smtp, person, { after: received }), 'invitation', origin);
    await database.db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 minute'
       where user_id = (select id from users where email = $1)`,
      [person],
    );

    const theirs = await newBrowser();
    await theirs.goto(link);
    await theirs.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await theirs.getByLabel('Repeat the new password').fill(PASSWORD);
    await theirs.getByRole('button', { name: 'Set password and sign in' }).click();
    await theirs.getByText('This invitation has expired: ask an admin to invite you again.').waitFor();
    await screenshot(theirs, 'invitation-expired');
  });

  it('resets a forgotten password by e-mail: the new one signs in, the old one no longer does', async () => {
    const person = await createDashboardPerson(database.db, { instanceId: demo.instanceId, role: 'member' });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    const received = smtp.received.length;
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.getByText(`If ${person.email} has an account, a reset link is on its way there.`).waitFor();
    await screenshot(page, 'forgot-password');

    const { link } = mailedLink(
      await mailTo(smtp, person.email, { after: received }),
      'reset-password',
      origin,
    );
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    const newPassword = 'a brand new passphrase';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Repeat the new password').fill('a different passphrase');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('The two passwords are not the same.').waitFor();
    await page.getByLabel('Repeat the new password').fill(newPassword);
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password is changed. Sign in with it.').waitFor();

    await signIn(page, { email: person.email, password: person.password });
    await page.getByText('The e-mail address or the password is not right.').waitFor();
    await signIn(page, { email: person.email, password: newPassword });
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
  });

  it('signs out: the pages then ask to sign in again, also after a reload', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await page.getByRole('button', { name: /account menu$/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await page.goto(`${origin}/dashboard/${demo.slug}/settings/api-keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('searches and pages through the companies, keeping both in the address across a reload', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/companies`);
    await signIn(page, admin);
    const rows = page.getByRole('table', { name: 'Companies' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(21);
    await page.getByText('1–20 of 40 · page 1 of 2').waitFor();
    await screenshot(page, 'companies');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByText('21–40 of 40 · page 2 of 2').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');

    await page.getByLabel('Search companies by legal name').fill('ANALYTICS');
    await expect.poll(() => new URL(page.url()).searchParams.get('search')).toBe('ANALYTICS');
    await page.getByText('companies whose name contains “ANALYTICS”', { exact: false }).waitFor();
    const names = async () =>
      (await page.getByRole('table', { name: 'Companies' }).getByRole('rowheader').allTextContents()).filter(
        Boolean,
      );
    // The rows of the page before stay (dimmed) until the search's arrive.
    await expect
      .poll(async () => {
        const shown = await names();
        return shown.length > 0 && shown.every((name) => name.includes('Analytics'));
      })
      .toBe(true);
    const found = await names();
    await page.reload();
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    expect(await page.getByLabel('Search companies by legal name').inputValue()).toBe('ANALYTICS');
    await expect.poll(names).toEqual(found);
    await screenshot(page, 'companies-search');

    await page.getByLabel('Search companies by legal name').fill('no such company anywhere');
    await page.getByText('No company matches').waitFor();
  });

  it('narrows the companies to those a fund holds, named in the address and kept across a reload', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/companies`);
    await signIn(page, admin);
    await page.getByText('40 companies in your portfolio.').waitFor();
    await page.getByRole('combobox', { name: 'Fund' }).click();
    const option = page.getByRole('option', { name: /^Northwind Ventures I \(\d+\)$/ });
    const held = Number(/\((\d+)\)/.exec((await option.textContent()) ?? '')?.[1]);
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(40);
    await option.click();
    const summary = `${String(held)} companies held by Northwind Ventures I.`;
    await page.getByText(summary).waitFor();
    expect(new URL(page.url()).searchParams.get('fund')).toMatch(/^[0-9a-f-]{36}$/);
    await page.reload();
    await page.getByText(summary).waitFor();
    const rows = page.getByRole('table', { name: 'Companies' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(Math.min(held, 20) + 1);
    await screenshot(page, 'companies-fund');
  });

  it("shows a company's cash in bank, runway and customers as charts, its latest summaries and its investments by round", async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${demo.slug}/companies/${demo.companyId}`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Investments' }).waitFor();
    for (const chart of ['Cash in bank', 'Runway (months)', 'Customers']) {
      const figure = page.getByRole('figure', { name: chart });
      // Drawn: an SVG with a plotted series, and a summary for screen readers.
      await figure.locator('svg .recharts-layer path, svg .recharts-bar-rectangle').first().waitFor();
      expect(await figure.getAttribute('aria-describedby')).toBeTruthy();
      expect(await figure.locator('table').getByRole('row').count()).toBeGreaterThan(2);
    }
    await page.getByRole('heading', { name: 'Latest summaries' }).waitFor();
    const rounds = await page.getByRole('heading', { level: 3 }).allTextContents();
    expect(rounds.some((heading) => /Seed|Series|Pre-Seed/.test(heading))).toBe(true);
    await page.waitForTimeout(500);
    await screenshot(page, 'company');

    await page.getByRole('link', { name: 'All companies' }).click();
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
  });

  it('fits a phone: no page is wider than the screen, and the key table keeps its actions in view', async () => {
    const page = await newBrowser(PHONE);
    await page.goto(`${origin}/dashboard`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    const pages = [
      ['companies', `/dashboard/${demo.slug}/companies`, 'Companies'],
      ['company', `/dashboard/${demo.slug}/companies/${demo.companyId}`, 'Investments'],
      ['people', `/dashboard/${demo.slug}/settings/people`, 'People'],
      ['keys', `/dashboard/${demo.slug}/settings/api-keys`, 'API keys'],
    ] as const;
    for (const [name, path, heading] of pages) {
      await page.goto(`${origin}${path}`);
      await page.getByRole('heading', { name: heading }).waitFor();
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, name).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, `phone-${name}`);
    }
    // The last page is the keys'.
    const revoke = await page
      .getByRole('button', { name: /^Revoke/ })
      .first()
      .boundingBox();
    expect(revoke && revoke.x + revoke.width).toBeLessThanOrEqual(PHONE.width);
  });

  it('works with the keyboard alone: sign in, open Settings, generate and copy a key, revoke it', async () => {
    const page = await newBrowser();
    /** Presses Tab (or Shift+Tab) until `target` has the focus, then Enter; fails if it never gets it. */
    const tabTo = async (target: Locator, direction: 'Tab' | 'Shift+Tab' = 'Tab') => {
      for (let presses = 0; presses < 40; presses += 1) {
        if (await target.evaluate((element) => element === document.activeElement)) {
          await page.keyboard.press('Enter');
          return;
        }
        await page.keyboard.press(direction);
      }
      throw new Error(`the keyboard never reached ${target.toString()}`);
    };
    await page.goto(`${origin}/dashboard/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Companies' }).waitFor();

    await tabTo(page.getByRole('link', { name: 'Settings' }), 'Shift+Tab');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await tabTo(page.getByRole('button', { name: 'Generate key' }));
    const dialog = page.getByRole('dialog');
    await expect
      .poll(() => dialog.getByLabel('Name').evaluate((input) => input === document.activeElement))
      .toBe(true);
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    const key = await dialog.getByLabel('Your API key').inputValue();
    await tabTo(dialog.getByRole('button', { name: 'Copy key' }));
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await tabTo(dialog.getByRole('button', { name: 'I have stored the key' }));
    await dialog.waitFor({ state: 'detached' });

    await tabTo(page.getByRole('button', { name: 'Revoke keyboard key' }));
    const confirm = page.getByRole('alertdialog');
    await tabTo(confirm.getByRole('button', { name: 'Revoke key' }));
    await expect
      .poll(() => page.getByRole('row', { name: /keyboard key/ }).textContent())
      .toContain('Revoked');
  });

  it("follows the device's dark setting, with every page as legible as in light", async () => {
    const page = await newBrowser(DESKTOP, 'dark');
    await page.goto(`${origin}/dashboard`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    // A dark background: each of red, green and blue under a quarter of full brightness.
    const channels = (/\d+, \d+, \d+/.exec(background)?.[0] ?? '').split(', ').map(Number);
    expect(
      channels.every((channel) => channel < 64),
      background,
    ).toBe(true);
    await screenshot(page, 'dark-companies');
    await page.goto(`${origin}/dashboard/${demo.slug}/companies/${demo.companyId}`);
    await page.getByRole('heading', { name: 'Investments' }).waitFor();
    await page.waitForTimeout(500);
    await screenshot(page, 'dark-company');
    await page.goto(`${origin}/dashboard/${demo.slug}/settings/api-keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await screenshot(page, 'dark-keys');
  });

  it("tells a person signed in to one instance that another instance's page is not theirs, and shows none of it", async () => {
    const other = await seedPortfolio(database.db);
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await page.goto(`${origin}/dashboard/${other.slug}/companies/${other.companyId}`);
    await page.getByRole('heading', { name: 'This page belongs to another instance' }).waitFor();
    expect(await page.content()).not.toContain(other.companyId);
    await screenshot(page, 'wrong-instance');
  });
});
