import type { ConsoleRole } from '../../../src/accounts/roles.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../../../src/transactions/console/links.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import type { CloseAfterAll } from '../made-before-all.ts';
import { createTestDatabase } from '../db/database.ts';
import {
  Browser,
  createPerson,
  smtpWithMailer,
  stubDashboardBuild,
  type DashboardPerson,
  type SignInSurface,
} from './dashboard.ts';
import { organizationStory, type TransactionState } from './stories.ts';
import { createTestFileStore, uniqueHandle } from './transactions.ts';

/**
 * The console's JSON routes under test: a Transactions app of a test file's own (its database, files, a real
 * SMTP server on loopback, a stub page build), reached "through a TLS-terminating proxy"
 * (x-forwarded-proto: https), as the session cookie is Secure; and the organizations and people a test makes.
 */

/** Where the console's links in mail point. */
export const TRANSACTIONS_URL = 'https://transactions.test';
/** The console as a signed-in surface, for `Browser`. */
export const CONSOLE: SignInSurface = { apiPath: CONSOLE_API_PATH, cookie: CONSOLE_SESSION_COOKIE };
/** A route of the console's JSON API, e.g. `api('/team')`. */
export const api = (path: string) => `${CONSOLE_API_PATH}${path}`;

/** The app, its database, files and SMTP server, closed after the test file's tests. */
export async function consoleApiWorld(closeAfterAll: CloseAfterAll) {
  const testDb = await createTestDatabase();
  closeAfterAll(() => testDb.close());
  const store = await createTestFileStore();
  closeAfterAll(store.cleanup);
  const build = await stubDashboardBuild();
  closeAfterAll(build.cleanup);
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  const app = await buildTransactionsApp({
    db: testDb.db,
    files: store.files,
    environment: 'staging',
    trustProxy: true,
    webDistDir: build.distDir,
    console: { mailer, transactionsUrl: () => TRANSACTIONS_URL },
  });
  closeAfterAll(() => app.close());
  return { db: testDb.db, files: store.files, smtp, app };
}

export type ConsoleApiWorld = Awaited<ReturnType<typeof consoleApiWorld>>;

/** A new organization of its own, with a person of each role asked for (admin first). */
export async function organizationWith(
  world: Pick<ConsoleApiWorld, 'db'>,
  roles: ConsoleRole[] = ['admin'],
  prefix = 'console',
) {
  const handle = uniqueHandle(prefix);
  const organization = await createOrganization(world.db, { handle, name: `Fund <${handle}>` });
  const people: Partial<Record<ConsoleRole, DashboardPerson>> = {};
  for (const role of roles) {
    people[role] = await createPerson(world.db, {
      tenant: { kind: 'organization', id: organization.id },
      role,
    });
  }
  return { organization, people, handle };
}

/** A new browser of the console, signed in as no one: no cookie yet, and a client address of its own. */
export function browser(world: Pick<ConsoleApiWorld, 'app'>): Browser {
  return new Browser(world.app, undefined, CONSOLE);
}

/** A browser of the console, signed in as `person`. */
export async function signedIn(
  world: Pick<ConsoleApiWorld, 'app'>,
  person: DashboardPerson | undefined,
): Promise<Browser> {
  if (!person) throw new Error('no such person in this organization');
  return browser(world).signInOrThrow({
    email: person.email,
    password: person.password,
  });
}

/** A transaction of a new organization's story, in `state`, with a person of each role of the organization. */
export async function transactionWithTeam(
  world: Pick<ConsoleApiWorld, 'db' | 'files'>,
  state: TransactionState,
) {
  const story = await organizationStory(world.db, world.files, { transactions: [state] });
  const people: Partial<Record<ConsoleRole, DashboardPerson>> = {};
  for (const role of ['admin', 'operator', 'reviewer', 'viewer'] as const) {
    people[role] = await createPerson(world.db, {
      tenant: { kind: 'organization', id: story.organizationId },
      role,
    });
  }
  const path = (rest = '') => api(`/transactions/${story.transactionId}${rest}`);
  return { story, people, path };
}

/** Where an investor's browser is, as the proxy says: their address and user agent. */
export interface InvestorClient {
  ip: string;
  userAgent: string;
}

/** A request of an investor's portal (`/recipient/<token><path>`), from `client` through the proxy. */
export async function portalRequest(
  world: Pick<ConsoleApiWorld, 'app'>,
  client: InvestorClient,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  payload?: Record<string, unknown>,
) {
  const response = await world.app.inject({
    method,
    url: `/recipient/${token}${path}`,
    headers: { 'x-forwarded-for': client.ip, 'x-forwarded-proto': 'https', 'user-agent': client.userAgent },
    ...(payload ? { payload } : {}),
  });
  // The portal answers JSON: its view, an act's outcome, or an error, each read as the test expects it.
  return { status: response.statusCode, body: response.json() };
}
