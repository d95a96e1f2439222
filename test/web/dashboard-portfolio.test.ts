/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, PHONE } from '../support/browser/browser.ts';
import { useDashboardInChromium, type DashboardWorld } from '../support/browser/dashboard-chromium.ts';
import { createTestPortfolio } from '../support/data/portfolio.ts';

/** Companies a page of the list shows. */
const PAGE = 20;

/** Once every chart of the page (none on most pages) has drawn its plot, which comes in a module of its own. */
async function chartsDrawn(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector('.trend-chart-plot:not(:has(svg))') === null);
}
const NAMES = ['Cedar', 'Harbor', 'Lumen', 'Orbit', 'Quartz'];

/**
 * The customer dashboard in Chromium (test/support/browser/dashboard-chromium.ts): the portfolio's pages, a phone, the
 * keyboard alone, the dark setting, and another instance's pages, with a screenshot of each page.
 */
describe('the customer dashboard at /dashboard in Chromium: the portfolio, on a phone, by keyboard, in the dark', () => {
  // Two pages of companies, some of them named Analytics.
  const dashboard = useDashboardInChromium({
    companies: 25,
    legalName: (index) =>
      `${NAMES[index % NAMES.length] ?? 'Cedar'} ${index % 3 === 0 ? 'Analytics' : 'Labs'} Inc.`,
  });
  const { newBrowser, screenshot, signIn } = dashboard;
  let database: DashboardWorld['database'];
  let origin: string;
  let portfolio: DashboardWorld['portfolio'];
  let admin: DashboardWorld['admin'];
  beforeAll(() => {
    ({ database, origin, portfolio, admin } = dashboard.world());
  });

  it('searches and pages through the companies, keeping both in the address across a reload', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${portfolio.slug}/companies`);
    await signIn(page, admin);
    const rows = page.getByRole('table', { name: 'Companies' }).getByRole('row');
    const total = portfolio.companies;
    // The summary first (a wait as long as the page's), then the rows it counts.
    await page.getByText(`1–${String(PAGE)} of ${String(total)} · page 1 of 2`).waitFor();
    await expect.poll(() => rows.count()).toBe(PAGE + 1);
    await screenshot(page, 'companies');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByText(`${String(PAGE + 1)}–${String(total)} of ${String(total)} · page 2 of 2`).waitFor();
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
    expect(found).toHaveLength(portfolio.legalNames.filter((name) => name.includes('Analytics')).length);
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
    await page.goto(`${origin}/dashboard/${portfolio.slug}/companies`);
    await signIn(page, admin);
    await page.getByText(`${String(portfolio.companies)} companies in your portfolio.`).waitFor();
    await page.getByRole('combobox', { name: 'Fund' }).click();
    const [fund] = portfolio.fundHoldings;
    if (!fund) throw new Error('the portfolio has funds');
    const held = fund.companies;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(portfolio.companies);
    await page.getByRole('option', { name: `${fund.name} (${String(held)})`, exact: true }).click();
    const summary = `${String(held)} companies held by ${fund.name}.`;
    await page.getByText(summary).waitFor();
    expect(new URL(page.url()).searchParams.get('fund')).toMatch(/^[0-9a-f-]{36}$/);
    await page.reload();
    await page.getByText(summary).waitFor();
    const rows = page.getByRole('table', { name: 'Companies' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(Math.min(held, PAGE) + 1);
    await screenshot(page, 'companies-fund');
  });

  it("shows a company's cash in bank, runway and customers as charts, its latest summaries and its investments by round", async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${portfolio.slug}/companies/${portfolio.companyId}`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Investments' }).waitFor();
    for (const chart of ['Cash in bank', 'Runway (months)', 'Customers']) {
      const figure = page.getByRole('figure', { name: chart });
      // Drawn: an SVG with a plotted series, and a summary for screen readers.
      await figure.locator('svg .trend-plot-line, svg .trend-plot-bar').first().waitFor();
      expect(await figure.getAttribute('aria-describedby')).toBeTruthy();
      expect(await figure.locator('table').getByRole('row').count()).toBeGreaterThan(2);
      // The keyboard reaches the values too: End shows the latest update's, as the table's last row has it.
      const plot = figure.getByRole('img', { name: `${chart} by update` });
      await plot.focus();
      await page.keyboard.press('End');
      const lastRow = await figure.locator('table tbody tr').last().locator('td').allTextContents();
      const latest = lastRow[1] === 'not reported' ? undefined : lastRow[1];
      if (latest !== undefined)
        await expect.poll(() => figure.locator('.trend-plot-tooltip').textContent()).toContain(latest);
      await page.keyboard.press('Escape');
      await expect.poll(() => figure.locator('.trend-plot-tooltip').isHidden()).toBe(true);
    }
    await page.getByRole('heading', { name: 'Latest summaries' }).waitFor();
    const rounds = await page.getByRole('heading', { level: 3 }).allTextContents();
    expect(rounds.some((heading) => /Seed|Series|Pre-Seed/.test(heading))).toBe(true);
    await chartsDrawn(page);
    // Each plot came after the page's words into a room as tall as it, busy until then: nothing under it moved.
    const rooms = page.locator('.trend-chart-plot');
    expect(await page.locator('.trend-chart-plot[aria-busy]').count()).toBe(0);
    expect(
      await rooms.evaluateAll((each) =>
        each.map((room) => [room.clientHeight, room.querySelector('svg')?.getBoundingClientRect().height]),
      ),
    ).toEqual([
      [200, 200],
      [200, 200],
      [200, 200],
    ]);
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
      ['companies', `/dashboard/${portfolio.slug}/companies`, 'Companies'],
      ['company', `/dashboard/${portfolio.slug}/companies/${portfolio.companyId}`, 'Investments'],
      ['people', `/dashboard/${portfolio.slug}/settings/people`, 'People'],
      ['keys', `/dashboard/${portfolio.slug}/settings/api-keys`, 'API keys'],
    ] as const;
    for (const [name, path, heading] of pages) {
      await page.goto(`${origin}${path}`);
      await page.getByRole('heading', { name: heading }).waitFor();
      await chartsDrawn(page);
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
    await page.goto(`${origin}/dashboard/${portfolio.slug}/companies/${portfolio.companyId}`);
    await page.getByRole('heading', { name: 'Investments' }).waitFor();
    await chartsDrawn(page);
    await screenshot(page, 'dark-company');
    await page.goto(`${origin}/dashboard/${portfolio.slug}/settings/api-keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await screenshot(page, 'dark-keys');
  });

  it("tells a person signed in to one instance that another instance's page is not theirs, and shows none of it", async () => {
    const other = await createTestPortfolio(database.db, { companies: 2 });
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
