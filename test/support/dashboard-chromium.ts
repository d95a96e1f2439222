/// <reference lib="dom" />
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadTlsMaterial } from '../../src/http/tls.ts';
import type { Mailer } from '../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import {
  accessibilityViolations,
  DESKTOP,
  launchChromium,
  originOnlyContext,
  SCREENSHOTS,
  type OriginOnlyContext,
} from './chromium.ts';
import { countOf, smtpMailer } from './dashboard.ts';
import { createTestDatabase, DIALECT, type TestDatabase } from './database.ts';
import { seedPortfolio } from './portfolio.ts';
import { startSmtpServer, type TestSmtpServer } from './smtp.ts';

/** What a dashboard browser test works with, once its `beforeAll` has run. */
export interface DashboardWorld {
  database: TestDatabase;
  smtp: TestSmtpServer;
  /** `https://localhost:<port>`, where the Portfolio service listens. */
  origin: string;
  /** The demo portfolio in an instance of its own. */
  demo: Awaited<ReturnType<typeof seedPortfolio>>;
  /** The demo instance's admin. */
  admin: { email: string; password: string };
}

/**
 * The customer dashboard in Chromium, served by the Portfolio service over real HTTPS with a database, a
 * Chromium and an SMTP server of the calling file's own, made in `beforeAll` and closed in `afterAll`; after
 * them, every page opened reached nothing but Portico and its Content-Security-Policy refused nothing.
 * Screenshots go to test/web/screenshots/ as `<name>-<database>-<shot>.png`.
 */
export function useDashboardInChromium(name: string) {
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
    browser = await launchChromium(name);
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
   * Saves what the page shows, whole, as `<name>-<database>-<shot>.png`, and checks it as it is against
   * WCAG 2.1 A and AA with axe-core: every page and dialog a test looks at is accessible.
   */
  async function screenshot(page: Page, shot: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${DIALECT}-${shot}.png`), fullPage: true });
    expect(await accessibilityViolations(page), shot).toEqual([]);
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

  return {
    /** The world of the file, once `beforeAll` has run. */
    world: (): DashboardWorld => ({ database, smtp, origin, demo, admin }),
    newBrowser,
    screenshot,
    signIn,
    callApi,
    keysOf,
  };
}
