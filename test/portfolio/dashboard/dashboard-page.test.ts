// The customer dashboard's page under /dashboard: its headers, the JSON 404 beside it, and what it answers
// before the front end is built.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_API_PATH } from '../../../src/portfolio/dashboard/dashboard.ts';
import { Browser, dashboardApp } from '../../support/data/dashboard.ts';
import { useDashboardSuite } from '../../support/data/dashboard-suite.ts';
import { expectApiError } from '../../support/data/portfolio.ts';

const suite = useDashboardSuite();

describe('the page', () => {
  it('answers every client route under /dashboard with the page, under a Content-Security-Policy that allows only this origin', async () => {
    const browser = new Browser(suite.app);
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/acme/companies', '/dashboard/invitation']) {
      const page = await browser.get(path);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<div id="dashboard">');
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toContain("'unsafe-eval'");
      expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(page.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'strict-transport-security': expect.stringMatching(/^max-age=\d{7,}/),
        'cache-control': 'no-cache',
      });
      // The page sets no session: the JSON routes do.
      expect(page.headers['set-cookie']).toBeUndefined();
    }
  });

  it('answers a JSON 404 NOT_FOUND for an API route that does not exist, and for a file that is not there', async () => {
    const browser = new Browser(suite.app);
    for (const path of [`${DASHBOARD_API_PATH}/unknown`, DASHBOARD_API_PATH, '/dashboard/favicon.ico']) {
      expectApiError(await browser.get(path), 404, 'NOT_FOUND');
    }
    expectApiError(await browser.request('POST', `${DASHBOARD_API_PATH}/unknown`, {}), 404, 'NOT_FOUND');
  });

  it('answers 503 SERVICE_UNAVAILABLE saying how to build the page when the front end is not built, and still 404 for unknown API routes', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'portico-unbuilt-'));
    const unbuilt = await dashboardApp(suite.db, { mailer: suite.mailer, distDir: empty });
    try {
      const browser = new Browser(unbuilt);
      expect(
        expectApiError(await browser.get('/dashboard/acme/companies'), 503, 'SERVICE_UNAVAILABLE'),
      ).toContain('npm run build:web');
      expectApiError(await browser.get(`${DASHBOARD_API_PATH}/unknown`), 404, 'NOT_FOUND');
      expect((await browser.session()).status).toBe(200);
    } finally {
      await unbuilt.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
