/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { buildPortfolioApp } from '../../../src/portfolio/app.ts';
import { DESKTOP, listenForBrowser, useChromium } from './browser.ts';
import { countOf, smtpWithMailer } from '../data/dashboard.ts';
import { createTestDatabase, type TestDatabase } from '../db/database.ts';
import { madeBeforeAll } from '../made-before-all.ts';
import type { TestSmtpServer } from '../peers/smtp.ts';
import { portfolioStory, type PortfolioStory } from '../data/stories.ts';
import { testTls } from '../peers/tls-listener.ts';

/** What a dashboard browser test works with, once its `beforeAll` has run. */
export interface DashboardWorld {
  database: TestDatabase;
  smtp: TestSmtpServer;
  /** `https://localhost:<port>`, where the Portfolio service listens. */
  origin: string;
  /** The file's portfolio in an instance of its own (see `portfolioStory`), with its admin. */
  portfolio: PortfolioStory;
  /** The instance's admin. */
  admin: { email: string; password: string };
}

/**
 * The customer dashboard in Chromium, served by the Portfolio service over real HTTPS with a database, a
 * Chromium (test/support/browser/browser.ts) and an SMTP server of the calling file's own, made in `beforeAll` and
 * closed in `afterAll`, and a portfolio of `companies` companies the file made. Screenshots go to
 * test/web/screenshots/ as `dashboard-<database>-<shot>.png`.
 */
export function useDashboardInChromium(
  options: { companies?: number; legalName?: (index: number) => string } = {},
) {
  const chromium = useChromium('dashboard');
  const world = madeBeforeAll('the dashboard', async (closeAfterAll) => {
    const database = await createTestDatabase();
    closeAfterAll(() => database.close());
    const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
    // Links in mail point to where the service listens, known once it does.
    const mail = { mailer, portfolioUrl: '' };
    const app = await buildPortfolioApp({ db: database.db, tls: await testTls(), dashboard: { mail } });
    const origin = await listenForBrowser(app, closeAfterAll);
    mail.portfolioUrl = origin;
    const portfolio = await portfolioStory(database.db, options);
    return { database, smtp, origin, portfolio, admin: portfolio.admin };
  });

  /** A new browser (its own cookies) on the dashboard, reaching nothing but Portico. */
  function newBrowser(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    return chromium.newPage(world.origin, {
      viewport,
      colorScheme,
      permissions: ['clipboard-read', 'clipboard-write'],
    });
  }

  async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  /** Calls the Portfolio API over HTTPS with a key, as an integrator's program would. */
  async function callApi(page: Page, key: string): Promise<{ status: number; total?: number }> {
    const response = await page.request.get(`${world.origin}/v1/external/companies?limit=1`, {
      headers: { authorization: key },
    });
    const body = (await response.json()) as { total?: number };
    return { status: response.status(), total: body.total };
  }

  const keysOf = (instanceId: string) =>
    countOf(world.database.db, 'select count(*) from portfolio_api_keys where instance_id = $1', [
      instanceId,
    ]);

  return {
    /** The world of the file, once `beforeAll` has run. */
    world: (): DashboardWorld => world,
    newBrowser,
    screenshot: chromium.screenshot,
    signIn,
    callApi,
    keysOf,
  };
}
