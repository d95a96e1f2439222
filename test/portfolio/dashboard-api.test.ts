// The customer dashboard's JSON routes on the Portfolio service (/dashboard/api): sign-in and its limits,
// sessions and CSRF, API keys, people and their mailed links, the portfolio pages, and that no instance reads
// or changes another's. Mail goes through a real SMTP server on loopback; every request comes "through a
// TLS-terminating proxy" (x-forwarded-proto: https), as the session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import type { Mailer } from '../../src/mail/mailer.ts';
import { createPortfolioKey } from '../../src/portfolio/instances.ts';
import { DASHBOARD_API_PATH } from '../../src/portfolio/dashboard/dashboard.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import {
  Browser,
  PASSWORD,
  PORTFOLIO_URL,
  countOf,
  createDashboardPerson,
  dashboardApp,
  instanceApi,
  linkToken,
  mailTo,
  sessionIdHash,
  signedInBrowser,
  smtpMailer,
  stubDashboardBuild,
  uniqueEmail,
  type DashboardPerson,
} from '../support/dashboard.ts';
import {
  ISO_TIMESTAMP,
  companiesUrl,
  createPortfolioInstance,
  expectApiError,
  get,
  importDocument,
  investmentsUrl,
  newCompany,
  newInvestment,
  newUpdate,
  records,
  updatesUrl,
  walk,
  type ApiResponse,
  type PortfolioInstanceFixture,
  type Query,
} from '../support/portfolio.ts';
import { routeName, routesOf } from '../support/routes.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { UUID } from '../support/uuid.ts';

const SESSION = `${DASHBOARD_API_PATH}/session`;
const INVITATION = `${DASHBOARD_API_PATH}/invitation`;
const PASSWORD_RESET = `${DASHBOARD_API_PATH}/password-reset`;
const PASSWORD_RESET_CONFIRM = `${DASHBOARD_API_PATH}/password-reset/confirm`;
const INVALID_CREDENTIALS_MESSAGE = 'The e-mail address or the password is not right.';

let testDb: TestDatabase;
let db: Database;
let smtp: TestSmtpServer;
let mailer: Mailer;
let build: Awaited<ReturnType<typeof stubDashboardBuild>>;
let app: FastifyInstance;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.db;
  smtp = await startSmtpServer();
  mailer = smtpMailer(smtp.url());
  build = await stubDashboardBuild();
  app = await dashboardApp(db, { mailer, distDir: build.distDir });
});

afterAll(async () => {
  await app.close();
  mailer.close();
  await smtp.close();
  await build.cleanup();
  await testDb.close();
});

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => {
        resolve(port);
      });
    });
  });
}

/** How many answers had each status, e.g. `{ 401: 10, 429: 40 }`. */
function statusCounts(answers: readonly ApiResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** A browser that has read GET /session, so that it holds a CSRF token but no one is signed in. */
async function anonymousBrowser(): Promise<Browser> {
  const browser = new Browser(app);
  expect((await browser.session()).status).toBe(200);
  return browser;
}

/** `count` values made by `make`, one a call (the same address again, or a new one each time). */
const times = <T>(count: number, make: () => T): T[] => Array.from({ length: count }, make);

/**
 * Signs in from the browser with a wrong password once for each address, ten at a time (each failure costs an
 * argon2 check), and asserts that each is refused with 401 INVALID_CREDENTIALS.
 */
async function failSignIns(browser: Browser, addresses: string[]): Promise<void> {
  for (let start = 0; start < addresses.length; start += 10) {
    const answers = await Promise.all(
      addresses
        .slice(start, start + 10)
        .map((email) => browser.signIn({ email, password: 'a guessed password' })),
    );
    for (const answer of answers) expectApiError(answer, 401, 'INVALID_CREDENTIALS');
  }
}

/** What GET /session says of a browser: the person and instance signed in, or nulls. */
async function whoIsSignedIn(browser: Browser): Promise<{ user: unknown; instance: unknown }> {
  const { status, body } = await browser.session();
  expect(status).toBe(200);
  return { user: body.user, instance: body.instance };
}

/**
 * An answer as another instance would compare it: the request id dropped and each id of `ids` written as its
 * name, so that an answer about instance B's records and one about random ids read the same when nothing leaks.
 */
function comparable(response: ApiResponse, ids: Record<string, string> = {}): unknown {
  let text = response.text;
  for (const [name, id] of Object.entries(ids)) text = text.replaceAll(id, `<${name}>`);
  return {
    status: response.status,
    body: JSON.parse(text, (key, value: unknown) => (key === 'requestId' ? undefined : value)) as unknown,
  };
}

const keyCount = (instanceId: string) =>
  countOf(db, 'select count(*) from portfolio_api_keys where instance_id = $1', [instanceId]);
const revokedKeyCount = (instanceId: string) =>
  countOf(db, 'select count(*) from portfolio_api_keys where instance_id = $1 and revoked_at is not null', [
    instanceId,
  ]);
const peopleCount = (instanceId: string) =>
  countOf(db, 'select count(*) from users where instance_id = $1', [instanceId]);
const sessionCount = (userId: string) =>
  countOf(db, 'select count(*) from user_sessions where user_id = $1', [userId]);
const linkCount = (instanceId: string) =>
  countOf(db, 'select count(*) from user_links l join users u on u.id = l.user_id where u.instance_id = $1', [
    instanceId,
  ]);

/** An instance route of the dashboard, and a request to it. */
interface InstanceRoute {
  name: string;
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  path: () => string;
  payload?: object;
}

/** The instance as the dashboard names it. */
const shownInstance = (instance: PortfolioInstanceFixture) => ({
  slug: instance.slug,
  name: `Instance ${instance.slug}`,
});

/** The person as the dashboard shows who is signed in. */
const shownUser = (person: DashboardPerson) => ({
  id: person.id,
  email: person.email,
  name: person.name,
  role: person.role,
});

/** A DELETE of a record of `url` (`url('/<id>')`) that does not exist: 404 NOT_FOUND, whose message it returns. */
async function deletedNothing(browser: Browser, url: (path: string) => string): Promise<string> {
  return expectApiError(await browser.request('DELETE', url(`/${randomUUID()}`)), 404, 'NOT_FOUND');
}

/** A new instance and its admin, who signs in with a password. */
async function instanceWithAdmin() {
  const instance = await createPortfolioInstance(db);
  return {
    instance,
    admin: await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'admin' }),
  };
}

/** An instance of the calling describe's own and its admin, made before its tests. */
function useInstance() {
  return madeBeforeAll('the instance', instanceWithAdmin);
}

/** As {@link useInstance}, with a member too, and a browser signed in as each. */
function useSignedInInstance() {
  return madeBeforeAll('the instance', async () => {
    const { instance, admin } = await instanceWithAdmin();
    const member = await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'member' });
    const [adminBrowser, memberBrowser] = await Promise.all([
      signedInBrowser(app, admin),
      signedInBrowser(app, member),
    ]);
    return { instance, admin, member, adminBrowser, memberBrowser };
  });
}

describe('signing in', () => {
  const given = useInstance();
  const newMember = () =>
    createDashboardPerson(db, { instanceId: given.instance.instanceId, role: 'member' });

  it('answers a wrong password and an unknown address alike: 401 INVALID_CREDENTIALS, and no one is signed in', async () => {
    const browser = await anonymousBrowser();
    const wrongPassword = await browser.signIn({
      email: given.admin.email,
      password: 'not the password at all',
    });
    const unknownAddress = await browser.signIn({ email: uniqueEmail('nobody'), password: PASSWORD });

    expect(expectApiError(wrongPassword, 401, 'INVALID_CREDENTIALS')).toBe(INVALID_CREDENTIALS_MESSAGE);
    expectApiError(unknownAddress, 401, 'INVALID_CREDENTIALS');
    expect(comparable(unknownAddress)).toEqual(comparable(wrongPassword));
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expect(await sessionCount(given.admin.id)).toBe(0);
  });

  it('signs in with the right password under a new session id, and GET /session then shows the person and the instance', async () => {
    const browser = await anonymousBrowser();
    const before = browser.sessionId();

    const signedIn = await browser.signIn({
      email: given.admin.email.toUpperCase(),
      password: given.admin.password,
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toEqual({
      csrfToken: expect.any(String),
      user: shownUser(given.admin),
      instance: shownInstance(given.instance),
    });
    // A session fixed before sign-in (by whoever could set the cookie) never becomes a signed-in one.
    const after = browser.sessionId();
    expect(after).not.toBe(before);
    expect(
      await countOf(db, 'select count(*) from user_sessions where id_hash = $1', [sessionIdHash(before)]),
    ).toBe(0);
    // The row is found by the id's hash: the id itself is only in the cookie.
    expect(
      await countOf(db, 'select count(*) from user_sessions where id_hash = $1 and user_id = $2', [
        sessionIdHash(after),
        given.admin.id,
      ]),
    ).toBe(1);
    expect(browser.cookieAttributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', `Path=${DASHBOARD_API_PATH}`]),
    );

    expect(await whoIsSignedIn(browser)).toEqual({
      user: shownUser(given.admin),
      instance: shownInstance(given.instance),
    });
    const keys = await browser.get(instanceApi(given.instance.slug, '/keys'));
    expect(keys.status).toBe(200);
  });

  it('refuses a blank address or password with 400 BAD_USER_INPUT, before checking anything', async () => {
    const browser = await anonymousBrowser();
    const blankEmail = await browser.signIn({ email: '  ', password: given.admin.password });
    expect(expectApiError(blankEmail, 400, 'BAD_USER_INPUT')).toBe('Enter your e-mail address.');
    const blankPassword = await browser.signIn({ email: given.admin.email, password: '' });
    expect(expectApiError(blankPassword, 400, 'BAD_USER_INPUT')).toBe('Enter your password.');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });

  it('refuses the 11th sign-in for an address after 10 failures with 429 RATE_LIMITED and Retry-After, even with the right password, while another address from the same client still signs in', async () => {
    const locked = await newMember();
    const browser = await anonymousBrowser();
    await failSignIns(browser, Array<string>(10).fill(locked.email));

    const refused = await browser.signIn({ email: locked.email, password: locked.password });
    expect(expectApiError(refused, 429, 'RATE_LIMITED')).toMatch(/^Too many failed sign-ins; try again in/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The address is counted whatever its case, and from any client.
    const elsewhere = await anonymousBrowser();
    const otherCase = await elsewhere.signIn({
      email: locked.email.toUpperCase(),
      password: locked.password,
    });
    expectApiError(otherCase, 429, 'RATE_LIMITED');
    expect(await sessionCount(locked.id)).toBe(0);

    const other = await browser.signIn({ email: given.admin.email, password: given.admin.password });
    expect(other.status).toBe(200);
    expect(other.body.user).toEqual(shownUser(given.admin));
  });

  it('refuses every address from a client after 50 failed sign-ins from it, with a right password too, while other clients sign in', async () => {
    const client = await anonymousBrowser();
    await failSignIns(
      client,
      times(50, () => uniqueEmail('guess')),
    );

    const refused = await client.signIn({ email: given.admin.email, password: given.admin.password });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await whoIsSignedIn(client)).toEqual({ user: null, instance: null });
    const otherClient = await new Browser(app).signIn({
      email: given.admin.email,
      password: given.admin.password,
    });
    expect(otherClient.status).toBe(200);
  });

  it("counts the failure that uses up an address's limit toward its client's limit too", async () => {
    // 10 failures for one address, then 40 for others: 50 failures from this client, so the next is refused.
    const client = await anonymousBrowser();
    const spent = uniqueEmail('spent');
    await failSignIns(client, [...times(10, () => spent), ...times(40, () => uniqueEmail('guess'))]);

    const next = await client.signIn({ email: given.admin.email, password: given.admin.password });
    expectApiError(next, 429, 'RATE_LIMITED');
  });

  it('checks no more than 10 passwords for an address when 50 wrong ones arrive at once: the other 40 get 429 before any check', async () => {
    const target = await newMember();
    const clients = await Promise.all(Array.from({ length: 50 }, () => anonymousBrowser()));
    const answers = await Promise.all(
      clients.map((client) => client.signIn({ email: target.email, password: 'a guessed password' })),
    );
    expect(statusCounts(answers)).toEqual({ 401: 10, 429: 40 });
    // Ten failures were counted, so the right password is refused until the window ends.
    const again = await new Browser(app).signIn({ email: target.email, password: target.password });
    expectApiError(again, 429, 'RATE_LIMITED');
  });

  it('checks no more than 50 passwords from one client when 70 wrong ones for different addresses arrive at once', async () => {
    const client = await anonymousBrowser();
    const answers = await Promise.all(
      Array.from({ length: 70 }, () =>
        client.signIn({ email: uniqueEmail('guess'), password: 'a guessed password' }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 401: 50, 429: 20 });
  });

  it("does not count a right password as a failure: an address's own sign-ins never lock it", async () => {
    const person = await newMember();
    const browser = await anonymousBrowser();
    await failSignIns(browser, Array<string>(9).fill(person.email));
    for (let i = 0; i < 3; i += 1) {
      const signedIn = await new Browser(app).signIn({ email: person.email, password: person.password });
      expect(signedIn.status).toBe(200);
    }
    await failSignIns(browser, [person.email]);
    expectApiError(
      await browser.signIn({ email: person.email, password: person.password }),
      429,
      'RATE_LIMITED',
    );
  });

  it('locks an address after 10 failed sign-ins while the Redis of the rate limits cannot be reached', async () => {
    const closed = await closedPort();
    const withoutRedis = await dashboardApp(db, {
      mailer,
      distDir: build.distDir,
      rateLimit: { perKey: 1000, perAddress: 1000, redisUrl: `redis://127.0.0.1:${String(closed)}` },
    });
    try {
      const person = await createDashboardPerson(db, {
        instanceId: given.instance.instanceId,
        role: 'member',
      });
      const browser = new Browser(withoutRedis);
      expect((await browser.session()).status).toBe(200);
      await failSignIns(browser, Array<string>(10).fill(person.email));
      const refused = await browser.signIn({ email: person.email, password: person.password });
      expect(expectApiError(refused, 429, 'RATE_LIMITED')).toMatch(/^Too many failed sign-ins/);
    } finally {
      await withoutRedis.close();
    }
  });

  it('asks which instance when the address and password open two (409 INSTANCE_CHOICE_REQUIRED), then signs in to the one named', async () => {
    const first = await createPortfolioInstance(db);
    const second = await createPortfolioInstance(db);
    const email = uniqueEmail('both');
    await createDashboardPerson(db, { instanceId: first.instanceId, role: 'admin', email });
    const inSecond = await createDashboardPerson(db, {
      instanceId: second.instanceId,
      role: 'member',
      email,
    });
    const browser = await anonymousBrowser();

    const choice = await browser.signIn({ email, password: PASSWORD });
    expectApiError(choice, 409, 'INSTANCE_CHOICE_REQUIRED');
    expect(choice.body.error.details).toEqual({
      instances: [shownInstance(first), shownInstance(second)].toSorted((a, b) =>
        a.name.localeCompare(b.name),
      ),
    });
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });

    const chosen = await browser.signIn({ email, password: PASSWORD, instance: second.slug });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ user: shownUser(inSecond), instance: shownInstance(second) });
    expect(await whoIsSignedIn(browser)).toEqual({
      user: shownUser(inSecond),
      instance: shownInstance(second),
    });
  });

  it('answers 401 INVALID_CREDENTIALS for an instance the address and password do not open', async () => {
    const other = await createPortfolioInstance(db);
    const browser = await anonymousBrowser();
    const refused = await browser.signIn({
      email: given.admin.email,
      password: given.admin.password,
      instance: other.slug,
    });
    expect(expectApiError(refused, 401, 'INVALID_CREDENTIALS')).toBe(INVALID_CREDENTIALS_MESSAGE);
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });
});

describe('CSRF tokens', () => {
  const given = useInstance();

  it("refuses a sign-in without a token, with a forged one, or with another session's, with 403 CSRF_INVALID, and signs no one in", async () => {
    const browser = await anonymousBrowser();
    const other = await anonymousBrowser();
    const credentials = { email: given.admin.email, password: given.admin.password };
    const own = browser.csrfToken;
    const forged = `${String(own).slice(0, -4)}AAAA`;

    for (const csrfToken of [null, forged, 'forged', other.csrfToken]) {
      const refused = await browser.request('POST', SESSION, credentials, { csrfToken });
      expectApiError(refused, 403, 'CSRF_INVALID');
    }
    // Without a session at all (no cookie), there is no secret to check a token against.
    const cookieless = new Browser(app);
    const noSession = await cookieless.request('POST', SESSION, credentials, { csrfToken: own ?? null });
    expectApiError(noSession, 403, 'CSRF_INVALID');
    expect(await sessionCount(given.admin.id)).toBe(0);
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });

    // The same request with the session's own token signs in: the refusals were the token's.
    expect((await browser.request('POST', SESSION, credentials)).status).toBe(200);
  });

  it("refuses generating or revoking a key without a token, with a forged one, with another session's or with the one from before sign-in, and changes no key", async () => {
    const browser = await anonymousBrowser();
    const beforeSignIn = browser.csrfToken;
    await browser.signInOrThrow({ email: given.admin.email, password: given.admin.password });
    // Another session of the same person: its token is not this session's.
    const otherSession = await signedInBrowser(app, given.admin);
    const { record } = await createPortfolioKey(db, { instanceId: given.instance.instanceId, name: 'kept' });
    const keys = await keyCount(given.instance.instanceId);
    const forged = `${String(browser.csrfToken).slice(0, -4)}AAAA`;

    const keysUrl = instanceApi(given.instance.slug, '/keys');
    const keyUrl = instanceApi(given.instance.slug, `/keys/${record.id}`);
    for (const csrfToken of [null, forged, otherSession.csrfToken, beforeSignIn]) {
      expectApiError(
        await browser.request('POST', keysUrl, { name: 'x' }, { csrfToken }),
        403,
        'CSRF_INVALID',
      );
      expectApiError(await browser.request('DELETE', keyUrl, undefined, { csrfToken }), 403, 'CSRF_INVALID');
    }
    expect(await keyCount(given.instance.instanceId)).toBe(keys);
    expect(await revokedKeyCount(given.instance.instanceId)).toBe(0);
    // The session stays signed in: a bad token refuses the request, it does not sign out.
    expect((await whoIsSignedIn(browser)).user).toEqual(shownUser(given.admin));
    expect((await browser.request('POST', keysUrl, { name: 'with token' })).status).toBe(201);
  });
});

describe('sessions', () => {
  const given = useSignedInInstance();
  const keysOf = (browser: Browser) => browser.get(instanceApi(given.instance.slug, '/keys'));

  it('ends a session at sign-out: the old cookie then gets 401 UNAUTHENTICATED', async () => {
    const browser = await signedInBrowser(app, given.admin);
    const stolen = browser.copy();
    const signedInId = sessionIdHash(browser.sessionId());
    expect((await keysOf(stolen)).status).toBe(200);

    const signedOut = await browser.request('DELETE', SESSION);
    expect(signedOut.status).toBe(200);
    expect(signedOut.body).toEqual({ csrfToken: expect.any(String) });

    expect(expectApiError(await keysOf(stolen), 401, 'UNAUTHENTICATED')).toBe(
      'You are not signed in, or your session has ended: sign in again.',
    );
    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await countOf(db, 'select count(*) from user_sessions where id_hash = $1', [signedInId])).toBe(0);
    expect(await whoIsSignedIn(stolen)).toEqual({ user: null, instance: null });
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    // The other sessions of the person go on.
    expect((await keysOf(given.adminBrowser)).status).toBe(200);
  });

  it('ends a session whose idle expiry has passed', async () => {
    const browser = await signedInBrowser(app, given.admin);
    await db.query(
      `update user_sessions set expires_at = clock_timestamp() - interval '1 second' where id_hash = $1`,
      [sessionIdHash(browser.sessionId())],
    );
    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });

  it('ends a session signed in more than 12 hours ago, though it was used a moment ago', async () => {
    const browser = await signedInBrowser(app, given.admin);
    const signedInAt = async (hoursAgo: number) => {
      await db.query(
        `update user_sessions set data = jsonb_set(data, '{signedInAt}', $2::jsonb) where id_hash = $1`,
        [sessionIdHash(browser.sessionId()), JSON.stringify(Date.now() - hoursAgo * 3600_000)],
      );
    };
    await signedInAt(11.9);
    expect((await keysOf(browser)).status).toBe(200);

    await signedInAt(12.1);
    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });

  it("ends the person's other sessions when they set a new password through a mailed reset link", async () => {
    const person = await createDashboardPerson(db, { instanceId: given.instance.instanceId, role: 'member' });
    const laptop = await signedInBrowser(app, person);
    const phone = await signedInBrowser(app, person);
    const received = smtp.received.length;

    const forgetful = await anonymousBrowser();
    expect((await forgetful.request('POST', PASSWORD_RESET, { email: person.email })).status).toBe(202);
    const token = linkToken(await mailTo(smtp, person.email, { after: received }), 'reset-password');
    const confirmed = await forgetful.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'a brand new passphrase',
    });
    expect(confirmed.status).toBe(200);

    expectApiError(await keysOf(laptop), 401, 'UNAUTHENTICATED');
    expectApiError(await keysOf(phone), 401, 'UNAUTHENTICATED');
    expect(await sessionCount(person.id)).toBe(0);
    // Other people's sessions go on.
    expect((await keysOf(given.adminBrowser)).status).toBe(200);
  });

  it('ends the sessions of a person an admin removes', async () => {
    const person = await createDashboardPerson(db, { instanceId: given.instance.instanceId, role: 'member' });
    const browser = await signedInBrowser(app, person);
    expect((await keysOf(browser)).status).toBe(200);

    const removed = await given.adminBrowser.request(
      'DELETE',
      instanceApi(given.instance.slug, `/people/${person.id}`),
    );
    expect(removed.status).toBe(200);
    expect(removed.body.person).toMatchObject({ id: person.id, email: person.email, active: true });

    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await sessionCount(person.id)).toBe(0);
    expect(await countOf(db, 'select count(*) from users where id = $1', [person.id])).toBe(0);
    expectApiError(
      await new Browser(app).signIn({ email: person.email, password: person.password }),
      401,
      'INVALID_CREDENTIALS',
    );
  });

  it("answers a session of instance A on instance B's routes, and on a slug that does not exist, with the same 403 WRONG_INSTANCE", async () => {
    const other = await createPortfolioInstance(db);
    const onOther = await given.adminBrowser.get(instanceApi(other.slug, '/keys'));
    expect(expectApiError(onOther, 403, 'WRONG_INSTANCE')).toBe(
      `You are signed in to Instance ${given.instance.slug}, not to this instance: sign out, then sign in with an account of this one.`,
    );
    const nowhere = await given.adminBrowser.get(instanceApi('no-such-instance', '/keys'));
    expect(comparable(nowhere, { slug: 'no-such-instance' })).toEqual(
      comparable(onOther, { slug: other.slug }),
    );
  });
});

describe('API keys', () => {
  const given = useSignedInInstance();
  const keysUrl = (path = '') => instanceApi(given.instance.slug, `/keys${path}`);
  const generate = (name: string, browser = given.adminBrowser) =>
    browser.request('POST', keysUrl(), { name });
  const listed = async (browser = given.adminBrowser) => {
    const response = await browser.get(keysUrl());
    expect(response.status).toBe(200);
    return response;
  };

  it('lets an admin generate a key, shown once, that the API takes at once', async () => {
    const created = await generate('warehouse sync');
    expect(created.status).toBe(201);
    const { key, secret } = created.body;
    expect(secret).toMatch(/^pfk_/);
    expect(key).toEqual({
      id: expect.stringMatching(UUID),
      name: 'warehouse sync',
      prefix: expect.any(String),
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
      lastUsedAt: null,
      revokedAt: null,
      createdBy: { name: given.admin.name, email: given.admin.email },
    });
    expect(secret.startsWith(key.prefix)).toBe(true);
    expect(key.prefix.length).toBeLessThan(secret.length);

    const api = await get(app, companiesUrl(), secret);
    expect(api.status).toBe(200);

    const list = await listed();
    expect(list.body.keys).toContainEqual({ ...key, lastUsedAt: expect.stringMatching(ISO_TIMESTAMP) });
    // The secret is never shown again.
    expect(list.text).not.toContain(secret);
  });

  it('lists the keys newest first, revoked ones included, with who made each', async () => {
    const older = (await generate('older')).body.key;
    const newer = (await generate('newer')).body.key;
    await given.adminBrowser.request('DELETE', keysUrl(`/${older.id}`));
    const { keys } = (await listed()).body;
    expect(keys.map((each: { id: string }) => each.id).slice(0, 2)).toEqual([newer.id, older.id]);
    expect(keys[1]).toMatchObject({ name: 'older', revokedAt: expect.stringMatching(ISO_TIMESTAMP) });
    // The key the instance was made with was generated by no one on the dashboard.
    expect(keys.at(-1)).toMatchObject({ name: 'test', createdBy: null });
    expect(keys).toHaveLength(await keyCount(given.instance.instanceId));
  });

  it('refuses a blank name and one of 101 characters with 400 BAD_USER_INPUT saying which, and writes no key', async () => {
    const before = await keyCount(given.instance.instanceId);
    expect(expectApiError(await generate('   '), 400, 'BAD_USER_INPUT')).toBe(
      'A key name must not be blank.',
    );
    expect(expectApiError(await generate('k'.repeat(101)), 400, 'BAD_USER_INPUT')).toBe(
      'A key name has at most 100 characters.',
    );
    expect(await keyCount(given.instance.instanceId)).toBe(before);
    // 100 characters, and a name padded with spaces to more, are names.
    expect((await generate('k'.repeat(100))).status).toBe(201);
    expect((await generate(`  ${'p'.repeat(100)}  `)).body.key.name).toBe('p'.repeat(100));
  });

  it('lets a member list the keys but not generate or revoke one: 403 FORBIDDEN, and nothing changes', async () => {
    const { key } = (await generate('kept by the admin')).body;
    const keys = await keyCount(given.instance.instanceId);
    const before = (await listed(given.adminBrowser)).body;

    expect(expectApiError(await generate('by a member', given.memberBrowser), 403, 'FORBIDDEN')).toBe(
      `Only admins generate keys: ask an admin of Instance ${given.instance.slug}.`,
    );
    const revoke = await given.memberBrowser.request('DELETE', keysUrl(`/${key.id}`));
    expectApiError(revoke, 403, 'FORBIDDEN');

    expect(await keyCount(given.instance.instanceId)).toBe(keys);
    expect((await listed(given.memberBrowser)).body).toEqual(before);
  });

  it('revokes a key: the API refuses it at once (401) and the list says when', async () => {
    const { key, secret } = (await generate('to revoke')).body;
    expect((await get(app, companiesUrl(), secret)).status).toBe(200);

    const revoked = await given.adminBrowser.request('DELETE', keysUrl(`/${key.id}`));
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toMatchObject({ id: key.id, revokedAt: expect.stringMatching(ISO_TIMESTAMP) });

    expectApiError(await get(app, companiesUrl(), secret), 401, 'UNAUTHENTICATED');
    const { keys } = (await listed()).body;
    expect(keys.find((each: { id: string }) => each.id === key.id)).toEqual(revoked.body.key);
  });

  it('answers 404 NOT_FOUND for revoking a key that does not exist, and 400 for an id that is not a UUID', async () => {
    const revoked = await revokedKeyCount(given.instance.instanceId);
    expect(await deletedNothing(given.adminBrowser, keysUrl)).toBe('There is no such key.');
    expectApiError(
      await given.adminBrowser.request('DELETE', keysUrl('/pfk_notauuid')),
      400,
      'BAD_USER_INPUT',
    );
    expect(await revokedKeyCount(given.instance.instanceId)).toBe(revoked);
  });
});

describe('people', () => {
  const given = useSignedInInstance();
  const peopleUrl = (path = '') => instanceApi(given.instance.slug, `/people${path}`);

  /** Invites an address as the admin, and the token of the invitation mailed to it. */
  async function invite(email: string, role: 'admin' | 'member' = 'member', name?: string) {
    const received = smtp.received.length;
    const invited = await given.adminBrowser.request('POST', peopleUrl(), {
      email,
      role,
      ...(name ? { name } : {}),
    });
    expect(invited.status, invited.text).toBe(201);
    const mail = await mailTo(smtp, email, { after: received });
    return { person: invited.body.person, mail, token: linkToken(mail, 'invitation') };
  }

  /** Posts an invitation link's token and password from a new browser. */
  async function accept(token: string, password = 'my own long passphrase') {
    const browser = await anonymousBrowser();
    const response = await browser.request('POST', INVITATION, { token, password });
    return { browser, response };
  }

  it('invites a person by mail with a link that signs them in as a member, once', async () => {
    const email = uniqueEmail('grace');
    const { person, mail, token } = await invite(email.toUpperCase(), 'member', 'Grace Hopper');
    expect(person).toEqual({
      id: expect.stringMatching(UUID),
      email,
      name: 'Grace Hopper',
      role: 'member',
      active: false,
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.parsed.subject).toBe(`You are invited to Instance ${given.instance.slug}`);
    expect(mail.parsed.text).toContain(`${PORTFOLIO_URL}/dashboard/invitation#token=${token}`);

    const { browser, response } = await accept(token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      csrfToken: expect.any(String),
      user: { id: person.id, email, name: 'Grace Hopper', role: 'member' },
      instance: shownInstance(given.instance),
    });
    const people = await browser.get(peopleUrl());
    expect(people.status).toBe(200);
    expect(people.body.people).toContainEqual({ ...person, active: true });
    // A member cannot invite.
    expectApiError(
      await browser.request('POST', peopleUrl(), { email: uniqueEmail(), role: 'member' }),
      403,
      'FORBIDDEN',
    );

    const again = await accept(token, 'someone elses passphrase');
    expect(expectApiError(again.response, 410, 'LINK_USED')).toBe(
      'This invitation has been used already: it works once.',
    );
    expect(await whoIsSignedIn(again.browser)).toEqual({ user: null, instance: null });
    expect(await whoIsSignedIn(browser)).toMatchObject({ user: { id: person.id } });
  });

  it('answers 410 LINK_EXPIRED for an invitation past its time, and the person stays inactive', async () => {
    const { person, token } = await invite(uniqueEmail('late'));
    await db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1`,
      [person.id],
    );
    const { browser, response } = await accept(token);
    expect(expectApiError(response, 410, 'LINK_EXPIRED')).toBe(
      'This invitation has expired: ask an admin to invite you again.',
    );
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expect(
      await countOf(db, 'select count(*) from users where id = $1 and password_hash is null', [person.id]),
    ).toBe(1);
  });

  it('ends the older invitation when a person who has not accepted is invited again, with the new role', async () => {
    const email = uniqueEmail('twice');
    const first = await invite(email, 'member');
    const second = await invite(email, 'admin');
    expect(second.person).toMatchObject({ id: first.person.id, role: 'admin', active: false });
    expect(second.token).not.toBe(first.token);

    expectApiError((await accept(first.token)).response, 410, 'LINK_EXPIRED');
    const accepted = await accept(second.token);
    expect(accepted.response.status).toBe(200);
    expect(accepted.response.body.user).toMatchObject({ id: first.person.id, role: 'admin' });
  });

  it('answers 400 LINK_INVALID for a token no invitation has', async () => {
    const { browser, response } = await accept('garbage');
    expectApiError(response, 400, 'LINK_INVALID');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expectApiError((await accept('A'.repeat(43))).response, 400, 'LINK_INVALID');
  });

  it('refuses a password under 10 characters with 400 BAD_USER_INPUT and leaves the link working', async () => {
    const email = uniqueEmail('short');
    const { token } = await invite(email);
    const tooShort = await accept(token, 'short');
    expect(expectApiError(tooShort.response, 400, 'BAD_USER_INPUT')).toBe(
      'The password must have at least 10 characters.',
    );
    expect(tooShort.response.body.error.details).toEqual({ field: 'password' });
    const theAddress = await accept(token, email.toUpperCase());
    expect(expectApiError(theAddress.response, 400, 'BAD_USER_INPUT')).toBe(
      'The password must not be the e-mail address.',
    );
    expect(await whoIsSignedIn(tooShort.browser)).toEqual({ user: null, instance: null });

    expect((await accept(token)).response.status).toBe(200);
  });

  it('answers 409 CONFLICT for inviting a person who is already active, and mails and writes nothing', async () => {
    const people = await peopleCount(given.instance.instanceId);
    const links = await linkCount(given.instance.instanceId);
    const received = smtp.received.length;

    const conflict = await given.adminBrowser.request('POST', peopleUrl(), {
      email: given.member.email,
      role: 'admin',
    });
    expect(expectApiError(conflict, 409, 'CONFLICT')).toBe(
      `${given.member.email} has an account here already.`,
    );

    expect(await peopleCount(given.instance.instanceId)).toBe(people);
    expect(await linkCount(given.instance.instanceId)).toBe(links);
    expect(smtp.received.length).toBe(received);
    // The member keeps their role.
    expect((await whoIsSignedIn(given.memberBrowser)).user).toEqual(shownUser(given.member));
  });

  it('refuses an admin removing themselves with 409 CONFLICT', async () => {
    const refused = await given.adminBrowser.request('DELETE', peopleUrl(`/${given.admin.id}`));
    expect(expectApiError(refused, 409, 'CONFLICT')).toBe('You cannot remove yourself: ask another admin.');
    expect(await countOf(db, 'select count(*) from users where id = $1', [given.admin.id])).toBe(1);
    expect((await whoIsSignedIn(given.adminBrowser)).user).toEqual(shownUser(given.admin));
  });

  it('refuses a member inviting or removing people with 403 FORBIDDEN, and writes and mails nothing', async () => {
    const people = await peopleCount(given.instance.instanceId);
    const received = smtp.received.length;
    const email = uniqueEmail('by-member');
    const invited = await given.memberBrowser.request('POST', peopleUrl(), { email, role: 'admin' });
    expect(expectApiError(invited, 403, 'FORBIDDEN')).toBe(
      `Only admins invite people: ask an admin of Instance ${given.instance.slug}.`,
    );
    expectApiError(
      await given.memberBrowser.request('DELETE', peopleUrl(`/${given.admin.id}`)),
      403,
      'FORBIDDEN',
    );

    expect(await peopleCount(given.instance.instanceId)).toBe(people);
    expect(smtp.received.length).toBe(received);
    expect((await given.memberBrowser.get(peopleUrl())).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for removing a person who does not exist', async () => {
    const people = await peopleCount(given.instance.instanceId);
    expect(await deletedNothing(given.adminBrowser, peopleUrl)).toBe('There is no such user.');
    expect(await peopleCount(given.instance.instanceId)).toBe(people);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the invitation cannot be mailed, and the person stays invited', async () => {
    const closed = await startSmtpServer();
    const unreachable = closed.url();
    await closed.close();
    const brokenMailer = smtpMailer(unreachable);
    const broken = await dashboardApp(db, { mailer: brokenMailer, distDir: build.distDir });
    try {
      const browser = await new Browser(broken).signInOrThrow({
        email: given.admin.email,
        password: given.admin.password,
      });
      const email = uniqueEmail('unmailed');
      const refused = await browser.request('POST', peopleUrl(), { email, role: 'member' });
      const message = expectApiError(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(message).toBe(
        `${email} is invited, but the invitation could not be mailed just now: invite them again once mail works.`,
      );
      // What the mail server answered, and where it is, is for operators (the log, the CLI), not for a customer.
      expect(message).not.toMatch(/SMTP|127\.0\.0\.1|ECONNREFUSED/);
      expect(
        await countOf(db, 'select count(*) from users where instance_id = $1 and email = $2', [
          given.instance.instanceId,
          email,
        ]),
      ).toBe(1);
    } finally {
      await broken.close();
      brokenMailer.close();
    }
  });
});

describe('password reset', () => {
  let instance: PortfolioInstanceFixture;
  beforeAll(async () => {
    instance = await createPortfolioInstance(db);
  });

  /** A person of the instance with `role` who asked for a reset from a browser, and the token mailed to them. */
  async function resetRequested(role: 'admin' | 'member') {
    const person = await createDashboardPerson(db, { instanceId: instance.instanceId, role });
    const browser = await anonymousBrowser();
    const received = smtp.received.length;
    await browser.request('POST', PASSWORD_RESET, { email: person.email });
    const token = linkToken(await mailTo(smtp, person.email, { after: received }), 'reset-password');
    return { person, browser, token };
  }

  it('answers a known address and an unknown one alike with 202, mailing a reset link only to the known one', async () => {
    const person = await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'member' });
    const unknown = uniqueEmail('unknown');
    const browser = await anonymousBrowser();
    const received = smtp.received.length;

    const forUnknown = await browser.request('POST', PASSWORD_RESET, { email: unknown });
    const forKnown = await browser.request('POST', PASSWORD_RESET, { email: person.email.toUpperCase() });
    expect(forKnown.status).toBe(202);
    expect(forKnown.body).toEqual({});
    expect({ status: forUnknown.status, body: forUnknown.text }).toEqual({
      status: 202,
      body: forKnown.text,
    });

    const mail = await mailTo(smtp, person.email, { after: received });
    expect(mail.parsed.subject).toBe(`Reset your password for Instance ${instance.slug}`);
    expect(mail.parsed.text).toContain(
      `${PORTFOLIO_URL}/dashboard/reset-password#token=${linkToken(mail, 'reset-password')}`,
    );
    // The unknown address's request came first; give it time to have mailed, had it mailed anything.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.received.slice(received).map((each) => each.envelope.to)).toEqual([[person.email]]);
  });

  it('mails at most 5 reset links an hour for an address: the 6th request gets 429 RATE_LIMITED and mails nothing', async () => {
    const person = await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'member' });
    const received = smtp.received.length;
    // From a new client each time: the address's limit, not the client's.
    const clients = await Promise.all(Array.from({ length: 5 }, () => anonymousBrowser()));
    const asked = await Promise.all(
      clients.map((client) => client.request('POST', PASSWORD_RESET, { email: person.email })),
    );
    expect(asked.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    await mailTo(smtp, person.email, { after: received, nth: 5 });
    const sixth = await anonymousBrowser();
    const refused = await sixth.request('POST', PASSWORD_RESET, { email: person.email });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mails = smtp.received.slice(received).filter((mail) => mail.envelope.to.includes(person.email));
    expect(mails).toHaveLength(5);
  });

  it('sets the new password through the link: the old one is then refused and the new one signs in, once', async () => {
    const { person, browser, token } = await resetRequested('admin');

    const tooShort = await browser.request('POST', PASSWORD_RESET_CONFIRM, { token, password: 'short' });
    expectApiError(tooShort, 400, 'BAD_USER_INPUT');
    const confirmed = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'the new passphrase',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ csrfToken: expect.any(String) });
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });

    const reused = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'yet another passphrase',
    });
    expectApiError(reused, 410, 'LINK_USED');
    // An invitation's page does not take a reset link.
    expectApiError(
      await browser.request('POST', INVITATION, { token, password: 'yet another one' }),
      400,
      'LINK_INVALID',
    );

    expectApiError(
      await browser.signIn({ email: person.email, password: person.password }),
      401,
      'INVALID_CREDENTIALS',
    );
    const signedIn = await browser.signIn({ email: person.email, password: 'the new passphrase' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toEqual(shownUser(person));
  });

  it('answers a new password with a fresh CSRF token, which the browser signs in with at once', async () => {
    const { person, browser, token } = await resetRequested('member');
    const before = browser.csrfToken;
    await browser.request('POST', PASSWORD_RESET_CONFIRM, { token, password: 'the new passphrase' });
    expect(browser.csrfToken).not.toBe(before);

    // No GET /session in between: the token of the answer is the one the new session takes.
    const signedIn = await browser.signIn({ email: person.email, password: 'the new passphrase' });
    expect(signedIn.status).toBe(200);
  });

  it('answers 410 LINK_EXPIRED for a reset link past its hour, and the password stays', async () => {
    const { person, browser, token } = await resetRequested('member');
    await db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1 and purpose = 'password_reset'`,
      [person.id],
    );
    const expired = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'the new passphrase',
    });
    expect(expectApiError(expired, 410, 'LINK_EXPIRED')).toBe(
      'This password reset link has expired: ask for a new one.',
    );
    expect((await browser.signIn({ email: person.email, password: person.password })).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  let a: PortfolioInstanceFixture;
  let b: PortfolioInstanceFixture;
  let aBrowser: Browser;
  /** Instance B's records, which A asks for. */
  let owned: { keyId: string; personId: string; companyId: string; fundId: string };
  beforeAll(async () => {
    [a, b] = await Promise.all([createPortfolioInstance(db), createPortfolioInstance(db)]);
    const [aAdmin, bPerson] = await Promise.all([
      createDashboardPerson(db, { instanceId: a.instanceId, role: 'admin' }),
      createDashboardPerson(db, { instanceId: b.instanceId, role: 'member' }),
    ]);
    aBrowser = await signedInBrowser(app, aAdmin);
    const fund = { id: randomUUID(), name: "B's fund" };
    const company = newCompany({ funds: [fund] });
    await importDocument(db, b.instanceId, { companies: [company] });
    const [key] = await db.query<{ id: string }>('select id from portfolio_api_keys where instance_id = $1', [
      b.instanceId,
    ]);
    owned = { keyId: String(key?.id), personId: bPerson.id, companyId: String(company.id), fundId: fund.id };
  });

  /** What A's admin may not see or change of B: B's keys, people and companies, as they are. */
  async function instanceB() {
    return {
      keys: await db.query(
        'select id, revoked_at from portfolio_api_keys where instance_id = $1 order by id',
        [b.instanceId],
      ),
      people: await db.query('select id, role, password_hash from users where instance_id = $1 order by id', [
        b.instanceId,
      ]),
      companies: await db.query('select id, legal_name from portfolio_companies where instance_id = $1', [
        b.instanceId,
      ]),
    };
  }

  it.each([
    { route: 'DELETE keys/:id', method: 'DELETE', path: (id: string) => `/keys/${id}`, of: 'keyId' },
    { route: 'DELETE people/:id', method: 'DELETE', path: (id: string) => `/people/${id}`, of: 'personId' },
    { route: 'GET companies/:id', method: 'GET', path: (id: string) => `/companies/${id}`, of: 'companyId' },
  ] as const)(
    "answers $route on A's routes for B's id exactly like for a random id, and B is unchanged",
    async (row) => {
      const before = await instanceB();
      const id = owned[row.of];
      const random = randomUUID();
      const ask = (which: string) => aBrowser.request(row.method, instanceApi(a.slug, row.path(which)));

      const forB = await ask(id);
      expectApiError(forB, 404, 'NOT_FOUND');
      expect(comparable(forB, { id })).toEqual(comparable(await ask(random), { id: random }));

      expect(await instanceB()).toEqual(before);
      expect((await get(app, companiesUrl(), b.apiKey)).status).toBe(200);
    },
  );

  it("lists none of B's funds on A's routes, and finds no company of A or B in B's fund", async () => {
    const funds = await aBrowser.get(instanceApi(a.slug, '/funds'));
    expect(funds.body).toEqual({ funds: [] });
    const inB = await aBrowser.get(instanceApi(a.slug, `/companies?fund=${owned.fundId}`));
    const inRandom = await aBrowser.get(instanceApi(a.slug, `/companies?fund=${randomUUID()}`));
    expect(inB.body).toEqual({ companies: [], total: 0, page: 1, pageSize: 20 });
    expect(inB.body).toEqual(inRandom.body);
  });

  it("answers A's own ids on the same routes otherwise, so the sameness is not a request that fails anyway", async () => {
    const { record } = await createPortfolioKey(db, { instanceId: a.instanceId, name: 'own' });
    const person = await createDashboardPerson(db, { instanceId: a.instanceId, role: 'member' });
    const company = newCompany();
    await importDocument(db, a.instanceId, { companies: [company] });
    expect((await aBrowser.request('DELETE', instanceApi(a.slug, `/keys/${record.id}`))).status).toBe(200);
    expect((await aBrowser.request('DELETE', instanceApi(a.slug, `/people/${person.id}`))).status).toBe(200);
    expect((await aBrowser.get(instanceApi(a.slug, `/companies/${String(company.id)}`))).status).toBe(200);
  });

  /** Every instance route (GET ones with their HEAD), with a request that names instance B's records. */
  const INSTANCE_ROUTES = (
    [
      { name: 'GET /keys', method: 'GET', path: () => '/keys' },
      { name: 'POST /keys', method: 'POST', path: () => '/keys', payload: { name: 'planted' } },
      { name: 'DELETE /keys/:id', method: 'DELETE', path: () => `/keys/${owned.keyId}` },
      { name: 'GET /people', method: 'GET', path: () => '/people' },
      {
        name: 'POST /people',
        method: 'POST',
        path: () => '/people',
        payload: { email: 'planted@example.com', role: 'admin' },
      },
      { name: 'DELETE /people/:id', method: 'DELETE', path: () => `/people/${owned.personId}` },
      { name: 'GET /companies', method: 'GET', path: () => `/companies?fund=${owned.fundId}` },
      { name: 'GET /companies/:id', method: 'GET', path: () => `/companies/${owned.companyId}` },
      { name: 'GET /funds', method: 'GET', path: () => '/funds' },
    ] satisfies InstanceRoute[]
  ).flatMap((route): InstanceRoute[] =>
    route.method === 'GET'
      ? [route, { ...route, name: route.name.replace('GET', 'HEAD'), method: 'HEAD' }]
      : [route],
  );

  it('names every instance route of the app in its table', () => {
    const prefix = `${DASHBOARD_API_PATH}/instances/:slug`;
    const appRoutes = routesOf(app)
      .filter((route) => route.url.startsWith(prefix))
      .map((route) => routeName({ method: route.method, url: route.url.slice(prefix.length) }));
    expect(appRoutes.toSorted()).toEqual(INSTANCE_ROUTES.map((route) => route.name).toSorted());
  });

  it.each(INSTANCE_ROUTES)(
    "answers $name with A's session on B's slug 403 WRONG_INSTANCE, and without a session 401, and changes nothing of B",
    async (route) => {
      const before = await instanceB();
      const received = smtp.received.length;
      const url = instanceApi(b.slug, route.path());

      const wrong = await aBrowser.request(route.method, url, route.payload);
      const stranger = await anonymousBrowser();
      const signedOut = await stranger.request(route.method, url, route.payload);
      if (route.method === 'HEAD') {
        expect([wrong.status, signedOut.status]).toEqual([403, 401]);
      } else {
        expectApiError(wrong, 403, 'WRONG_INSTANCE');
        expectApiError(signedOut, 401, 'UNAUTHENTICATED');
      }

      expect(await instanceB()).toEqual(before);
      expect(smtp.received.length).toBe(received);
    },
  );
});

describe('companies', () => {
  let instance: PortfolioInstanceFixture;
  let browser: Browser;
  const NAMES = [
    'Acme Rockets',
    'ACME ROBOTICS',
    'acme labs',
    'Acme 100% Organic',
    'Acme_Labs',
    'AcmeXLabs',
    'Beta 50 Percent',
    'Zeta Holdings',
    'Eta Holdings',
    'Theta Holdings',
  ];
  /** A company with updates and investments, imported out of order. */
  const detail = newCompany({ legalName: 'Omega Detail Co' });
  const detailId = String(detail.id);
  /** Holds every other company of NAMES. */
  const secondFund = { id: randomUUID(), name: 'Another Fund' };
  beforeAll(async () => {
    instance = await createPortfolioInstance(db);
    const fund = { id: randomUUID(), name: 'Fund One' };
    await importDocument(db, instance.instanceId, {
      companies: [
        ...NAMES.map((legalName, index) =>
          newCompany({ legalName, funds: index % 2 === 0 ? [fund, secondFund] : [fund] }),
        ),
        detail,
      ],
      updates: ['2025-03-01', '2025-01-01', '2025-02-01'].map((day) =>
        newUpdate(detailId, { updateDate: `${day}T00:00:00.000Z`, title: `Update of ${day}` }),
      ),
      investments: ['2024-05-01', '2024-09-01', '2024-01-01'].map((day) =>
        newInvestment(detailId, { date: `${day}T00:00:00.000Z`, amountCents: '123456789012' }),
      ),
    });
    const person = await createDashboardPerson(db, { instanceId: instance.instanceId, role: 'member' });
    browser = await signedInBrowser(app, person);
  });

  const search = (query: Query) => {
    const parameters = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) parameters.set(name, String(value));
    }
    return browser.get(`${instanceApi(instance.slug, '/companies')}?${parameters.toString()}`);
  };
  const namesOf = (response: ApiResponse): string[] =>
    response.body.companies.map((company: { legalName: string }) => company.legalName);

  it('lists the funds by name with how many companies each holds', async () => {
    const funds = await browser.get(instanceApi(instance.slug, '/funds'));
    expect(funds.status).toBe(200);
    expect(funds.body.funds).toEqual([
      { id: secondFund.id, name: 'Another Fund', companies: NAMES.length / 2 },
      { id: expect.any(String), name: 'Fund One', companies: NAMES.length },
    ]);
  });

  it('finds the companies a fund holds, with the search too', async () => {
    const held = NAMES.filter((_, index) => index % 2 === 0);
    const inFund = await search({ fund: secondFund.id });
    expect(namesOf(inFund).toSorted()).toEqual(held.toSorted());
    expect(inFund.body.total).toBe(held.length);
    const both = await search({ fund: secondFund.id, search: 'acme' });
    expect(namesOf(both).toSorted()).toEqual(held.filter((name) => /acme/i.test(name)).toSorted());
  });

  it('finds companies whose legal name contains the search, in any case, sorted by legal name', async () => {
    const found = await search({ search: 'aCmE' });
    expect(found.status).toBe(200);
    expect(namesOf(found).toSorted()).toEqual(NAMES.filter((name) => /acme/i.test(name)).toSorted());
    expect(found.body).toMatchObject({ total: 6, page: 1, pageSize: 20 });
    expect(found.body.companies[0]).toEqual({
      id: expect.stringMatching(UUID),
      legalName: expect.any(String),
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
      funds: [{ id: expect.stringMatching(UUID), name: 'Fund One' }],
    });

    expect(namesOf(await search({ search: 'holdings' }))).toEqual([
      'Eta Holdings',
      'Theta Holdings',
      'Zeta Holdings',
    ]);
  });

  it('reads % and _ in a search as themselves, not as wildcards', async () => {
    const cases: [string, string[]][] = [
      ['acme_', ['Acme_Labs']],
      ['100%', ['Acme 100% Organic']],
      ['%', ['Acme 100% Organic']],
      ['5_', []],
      ['_', ['Acme_Labs']],
      ['\\', []],
    ];
    for (const [text, names] of cases) {
      const found = await search({ search: text });
      expect({ text, status: found.status, names: namesOf(found), total: found.body.total }).toEqual({
        text,
        status: 200,
        names,
        total: names.length,
      });
    }
  });

  it('pages through every company with the total, the page and the page size', async () => {
    const all = NAMES.length + 1;
    const pages = [];
    for (let page = 1; page <= 4; page += 1) {
      const response = await search({ page, pageSize: 4 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ total: all, page, pageSize: 4 });
      pages.push(namesOf(response));
    }
    expect(pages.map((names) => names.length)).toEqual([4, 4, 3, 0]);
    expect(pages.flat().toSorted()).toEqual([...NAMES, 'Omega Detail Co'].toSorted());
    expect((await search({ pageSize: 100 })).body.companies).toHaveLength(all);
  });

  it.each([
    { refused: 'a page size over 100', query: { pageSize: 101 }, parameter: 'pageSize' },
    { refused: 'a page size of 0', query: { pageSize: 0 }, parameter: 'pageSize' },
    { refused: 'page 0', query: { page: 0 }, parameter: 'page' },
    { refused: 'a search of 201 characters', query: { search: 's'.repeat(201) }, parameter: 'search' },
    { refused: 'an unknown parameter', query: { sort: 'name' }, parameter: 'sort' },
    { refused: 'a fund that is not a UUID', query: { fund: 'fund-one' }, parameter: 'fund' },
    // Ajv reads these as the number Infinity, which its integer and bound checks let through.
    { refused: 'a page size of Infinity', query: { pageSize: 'Infinity' }, parameter: 'pageSize' },
    { refused: 'a page size of 1e309', query: { pageSize: '1e309' }, parameter: 'pageSize' },
    { refused: 'page Infinity', query: { page: 'Infinity' }, parameter: 'page' },
    { refused: 'page 1e309', query: { page: '1e309' }, parameter: 'page' },
  ])('refuses $refused with 400 BAD_USER_INPUT naming the parameter', async ({ query, parameter }) => {
    const refused = await search(query);
    expect(expectApiError(refused, 400, 'BAD_USER_INPUT')).toContain(`"${parameter}"`);
  });

  it("shows a company with its updates oldest first and its investments newest first, as the API's records", async () => {
    const response = await browser.get(instanceApi(instance.slug, `/companies/${detailId}`));
    expect(response.status).toBe(200);
    const { company, updates, investments } = response.body;
    expect(company).toMatchObject({ id: detailId, legalName: 'Omega Detail Co', funds: [] });
    expect(updates.map((update: { updateDate: string }) => update.updateDate.slice(0, 10))).toEqual([
      '2025-01-01',
      '2025-02-01',
      '2025-03-01',
    ]);
    expect(investments.map((investment: { date: string }) => investment.date.slice(0, 10))).toEqual([
      '2024-09-01',
      '2024-05-01',
      '2024-01-01',
    ]);
    expect(updates[0].cashInBankAmountValue).toBe(1_250_000);
    expect(investments[0].amountCents).toBe('123456789012');
    // The same records, field for field, as the Portfolio API gives a key of the instance.
    expect(updates).toEqual(
      records(await walk(app, updatesUrl(detailId), instance.apiKey, 100)).toReversed(),
    );
    expect(investments).toEqual(records(await walk(app, investmentsUrl(detailId), instance.apiKey, 100)));
  });

  it('answers 404 NOT_FOUND for a company the instance does not have', async () => {
    expectApiError(
      await browser.get(instanceApi(instance.slug, `/companies/${randomUUID()}`)),
      404,
      'NOT_FOUND',
    );
  });
});

describe('the page', () => {
  it('answers every client route under /dashboard with the page, under a Content-Security-Policy that allows only this origin', async () => {
    const browser = new Browser(app);
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
    const browser = new Browser(app);
    for (const path of [`${DASHBOARD_API_PATH}/unknown`, DASHBOARD_API_PATH, '/dashboard/favicon.ico']) {
      expectApiError(await browser.get(path), 404, 'NOT_FOUND');
    }
    expectApiError(await browser.request('POST', `${DASHBOARD_API_PATH}/unknown`, {}), 404, 'NOT_FOUND');
  });

  it('answers 503 SERVICE_UNAVAILABLE saying how to build the page when the front end is not built, and still 404 for unknown API routes', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'portico-unbuilt-'));
    const unbuilt = await dashboardApp(db, { mailer, distDir: empty });
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
