import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import type { Mailer } from '../../../src/mail/mailer.ts';
import { DASHBOARD_API_PATH } from '../../../src/portfolio/dashboard/dashboard.ts';
import { createTestDatabase } from '../db/database.ts';
import {
  Browser,
  countOf,
  createDashboardPerson,
  dashboardApp,
  signedInBrowser,
  smtpWithMailer,
  stubDashboardBuild,
  type DashboardPerson,
} from './dashboard.ts';
import { madeBeforeAll } from '../made-before-all.ts';
import {
  createPortfolioInstance,
  expectApiError,
  type ApiResponse,
  type PortfolioInstanceFixture,
} from './portfolio.ts';
import type { TestSmtpServer } from '../peers/smtp.ts';

/** The dashboard's session route: GET reads it, POST signs in, DELETE signs out. */
export const SESSION = `${DASHBOARD_API_PATH}/session`;
/** Where an invitation's token and the new person's password are posted. */
export const INVITATION = `${DASHBOARD_API_PATH}/invitation`;
/** Where a reset link is asked for, and where its token and the new password are posted. */
export const PASSWORD_RESET = `${DASHBOARD_API_PATH}/password-reset`;
export const PASSWORD_RESET_CONFIRM = `${DASHBOARD_API_PATH}/password-reset/confirm`;

/**
 * What one test file of the customer dashboard's JSON routes (/dashboard/api) shares: one database, an SMTP server
 * on loopback with a mailer that hands it every message, a stand-in for the built pages, and the Portfolio app with
 * its dashboard, booted once. Every request comes "through a TLS-terminating proxy" (x-forwarded-proto: https), as
 * the session cookie is Secure. Data is not shared: each `describe` makes its own instance (`useInstance`).
 */
export interface DashboardSuite {
  readonly db: Database;
  readonly app: FastifyInstance;
  readonly smtp: TestSmtpServer;
  readonly mailer: Mailer;
  /** Where the stand-in for the built pages is (see `stubDashboardBuild`), for another app beside the suite's. */
  readonly distDir: string;
  /** A browser that has read GET /session, so that it holds a CSRF token but no one is signed in. */
  anonymousBrowser(): Promise<Browser>;
  /** A new instance and its admin, who signs in with a password. */
  instanceWithAdmin(): Promise<{ instance: PortfolioInstanceFixture; admin: DashboardPerson }>;
  /** How many keys the instance has, revoked ones included. */
  keyCount(instanceId: string): Promise<number>;
  revokedKeyCount(instanceId: string): Promise<number>;
  /** How many people the instance has, invited ones included. */
  peopleCount(instanceId: string): Promise<number>;
  sessionCount(userId: string): Promise<number>;
  /** How many invitation and reset links the people of the instance were sent, used and expired ones included. */
  linkCount(instanceId: string): Promise<number>;
}

/**
 * Boots a {@link DashboardSuite} before the tests of the calling file and closes it after them. Its fields may be
 * read inside tests and hooks only.
 *
 * @example
 * const suite = useDashboardSuite();
 * it('…', async () => {
 *   const browser = await suite.anonymousBrowser();
 * });
 */
export function useDashboardSuite(): DashboardSuite {
  return madeBeforeAll('the dashboard suite', async (closeAfterAll): Promise<DashboardSuite> => {
    const testDb = await createTestDatabase();
    closeAfterAll(() => testDb.close());
    const { db } = testDb;
    const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
    const build = await stubDashboardBuild();
    closeAfterAll(build.cleanup);
    const app = await dashboardApp(db, { mailer, distDir: build.distDir });
    closeAfterAll(() => app.close());
    return {
      db,
      app,
      smtp,
      mailer,
      distDir: build.distDir,
      anonymousBrowser: async () => {
        const browser = new Browser(app);
        expect((await browser.session()).status).toBe(200);
        return browser;
      },
      instanceWithAdmin: async () => {
        const instance = await createPortfolioInstance(db);
        return {
          instance,
          admin: await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'admin' }),
        };
      },
      keyCount: (instanceId) =>
        countOf(db, 'select count(*) from portfolio_api_keys where instance_id = $1', [instanceId]),
      revokedKeyCount: (instanceId) =>
        countOf(
          db,
          'select count(*) from portfolio_api_keys where instance_id = $1 and revoked_at is not null',
          [instanceId],
        ),
      peopleCount: (instanceId) =>
        countOf(db, 'select count(*) from users where instance_id = $1', [instanceId]),
      sessionCount: (userId) =>
        countOf(db, 'select count(*) from user_sessions where user_id = $1', [userId]),
      linkCount: (instanceId) =>
        countOf(
          db,
          'select count(*) from user_links l join users u on u.id = l.user_id where u.instance_id = $1',
          [instanceId],
        ),
    };
  });
}

/** An instance of the calling describe's own and its admin, made before its tests. */
export function useInstance(suite: DashboardSuite) {
  return madeBeforeAll('the instance', () => suite.instanceWithAdmin());
}

/** As {@link useInstance}, with a member too, and a browser signed in as each. */
export function useSignedInInstance(suite: DashboardSuite) {
  return madeBeforeAll('the instance', async () => {
    const { instance, admin } = await suite.instanceWithAdmin();
    const member = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role: 'member' });
    const [adminBrowser, memberBrowser] = await Promise.all([
      signedInBrowser(suite.app, admin),
      signedInBrowser(suite.app, member),
    ]);
    return { instance, admin, member, adminBrowser, memberBrowser };
  });
}

/** What GET /session says of a browser: the person and instance signed in, or nulls. */
export async function whoIsSignedIn(browser: Browser): Promise<{ user: unknown; instance: unknown }> {
  const { status, body } = await browser.session();
  expect(status).toBe(200);
  return { user: body.user, instance: body.instance };
}

/**
 * An answer as another instance would compare it: the request id dropped and each id of `ids` written as its
 * name, so that an answer about instance B's records and one about random ids read the same when nothing leaks.
 */
export function comparable(response: ApiResponse, ids: Record<string, string> = {}): unknown {
  let text = response.text;
  for (const [name, id] of Object.entries(ids)) text = text.replaceAll(id, `<${name}>`);
  return {
    status: response.status,
    body: JSON.parse(text, (key, value: unknown) => (key === 'requestId' ? undefined : value)) as unknown,
  };
}

/** The instance as the dashboard names it. */
export const shownInstance = (instance: PortfolioInstanceFixture) => ({
  slug: instance.slug,
  name: `Instance ${instance.slug}`,
});

/** The person as the dashboard shows who is signed in. */
export const shownUser = (person: DashboardPerson) => ({
  id: person.id,
  email: person.email,
  name: person.name,
  role: person.role,
});

/** A DELETE of a record of `url` (`url('/<id>')`) that does not exist: 404 NOT_FOUND, whose message it returns. */
export async function deletedNothing(browser: Browser, url: (path: string) => string): Promise<string> {
  return expectApiError(await browser.request('DELETE', url(`/${randomUUID()}`)), 404, 'NOT_FOUND');
}
