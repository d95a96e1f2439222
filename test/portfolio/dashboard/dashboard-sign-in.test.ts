// The customer dashboard's sign-in (POST /dashboard/api/session): right and wrong passwords, the limits on
// failures per address and per client, and the choice of instance when one password opens two.
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_PATH } from '../../../src/portfolio/dashboard/links.ts';
import {
  Browser,
  PASSWORD,
  countOf,
  createDashboardPerson,
  dashboardApp,
  instanceApi,
  sessionIdHash,
  uniqueEmail,
} from '../../support/data/dashboard.ts';
import {
  comparable,
  shownInstance,
  shownUser,
  useDashboardSuite,
  useInstance,
  whoIsSignedIn,
} from '../../support/data/dashboard-suite.ts';
import { createPortfolioInstance, expectApiError, type ApiResponse } from '../../support/data/portfolio.ts';

const INVALID_CREDENTIALS_MESSAGE = 'The e-mail address or the password is not right.';

const suite = useDashboardSuite();

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

describe('signing in', () => {
  const given = useInstance(suite);
  const newMember = () =>
    createDashboardPerson(suite.db, { instanceId: given.instance.instanceId, role: 'member' });

  it('answers a wrong password and an unknown address alike: 401 INVALID_CREDENTIALS, and no one is signed in', async () => {
    const browser = await suite.anonymousBrowser();
    const wrongPassword = await browser.signIn({
      email: given.admin.email,
      password: 'not the password at all',
    });
    const unknownAddress = await browser.signIn({ email: uniqueEmail('nobody'), password: PASSWORD });

    expect(expectApiError(wrongPassword, 401, 'INVALID_CREDENTIALS')).toBe(INVALID_CREDENTIALS_MESSAGE);
    expectApiError(unknownAddress, 401, 'INVALID_CREDENTIALS');
    expect(comparable(unknownAddress)).toEqual(comparable(wrongPassword));
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expect(await suite.sessionCount(given.admin.id)).toBe(0);
  });

  it('signs in with the right password under a new session id, and GET /session then shows the person and the instance', async () => {
    const browser = await suite.anonymousBrowser();
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
      secondFactorRequired: false,
    });
    // A session fixed before sign-in (by whoever could set the cookie) never becomes a signed-in one.
    const after = browser.sessionId();
    expect(after).not.toBe(before);
    expect(
      await countOf(suite.db, 'select count(*) from user_sessions where id_hash = $1', [
        sessionIdHash(before),
      ]),
    ).toBe(0);
    // The row is found by the id's hash: the id itself is only in the cookie.
    expect(
      await countOf(suite.db, 'select count(*) from user_sessions where id_hash = $1 and user_id = $2', [
        sessionIdHash(after),
        given.admin.id,
      ]),
    ).toBe(1);
    expect(browser.cookieAttributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', `Path=${DASHBOARD_PATH}`]),
    );

    expect(await whoIsSignedIn(browser)).toEqual({
      user: shownUser(given.admin),
      instance: shownInstance(given.instance),
    });
    const keys = await browser.get(instanceApi(given.instance.slug, '/keys'));
    expect(keys.status).toBe(200);
  });

  it('refuses a blank address or password with 400 BAD_USER_INPUT, before checking anything', async () => {
    const browser = await suite.anonymousBrowser();
    const blankEmail = await browser.signIn({ email: '  ', password: given.admin.password });
    expect(expectApiError(blankEmail, 400, 'BAD_USER_INPUT')).toBe('Enter your e-mail address.');
    const blankPassword = await browser.signIn({ email: given.admin.email, password: '' });
    expect(expectApiError(blankPassword, 400, 'BAD_USER_INPUT')).toBe('Enter your password.');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });

  it('refuses the 11th sign-in for an address after 10 failures with 429 RATE_LIMITED and Retry-After, even with the right password, while another address from the same client still signs in', async () => {
    const locked = await newMember();
    const browser = await suite.anonymousBrowser();
    await failSignIns(browser, Array<string>(10).fill(locked.email));

    const refused = await browser.signIn({ email: locked.email, password: locked.password });
    expect(expectApiError(refused, 429, 'RATE_LIMITED')).toMatch(/^Too many failed sign-ins; try again in/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    // The address is counted whatever its case, and from any client.
    const elsewhere = await suite.anonymousBrowser();
    const otherCase = await elsewhere.signIn({
      email: locked.email.toUpperCase(),
      password: locked.password,
    });
    expectApiError(otherCase, 429, 'RATE_LIMITED');
    expect(await suite.sessionCount(locked.id)).toBe(0);

    const other = await browser.signIn({ email: given.admin.email, password: given.admin.password });
    expect(other.status).toBe(200);
    expect(other.body.user).toEqual(shownUser(given.admin));
  });

  it('refuses every address from a client after 50 failed sign-ins from it, with a right password too, while other clients sign in', async () => {
    const client = await suite.anonymousBrowser();
    await failSignIns(
      client,
      times(50, () => uniqueEmail('guess')),
    );

    const refused = await client.signIn({ email: given.admin.email, password: given.admin.password });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await whoIsSignedIn(client)).toEqual({ user: null, instance: null });
    const otherClient = await new Browser(suite.app).signIn({
      email: given.admin.email,
      password: given.admin.password,
    });
    expect(otherClient.status).toBe(200);
  });

  it("counts the failure that uses up an address's limit toward its client's limit too", async () => {
    // 10 failures for one address, then 40 for others: 50 failures from this client, so the next is refused.
    const client = await suite.anonymousBrowser();
    const spent = uniqueEmail('spent');
    await failSignIns(client, [...times(10, () => spent), ...times(40, () => uniqueEmail('guess'))]);

    const next = await client.signIn({ email: given.admin.email, password: given.admin.password });
    expectApiError(next, 429, 'RATE_LIMITED');
  });

  it('checks no more than 10 passwords for an address when 50 wrong ones arrive at once: the other 40 get 429 before any check', async () => {
    const target = await newMember();
    const clients = await Promise.all(Array.from({ length: 50 }, () => suite.anonymousBrowser()));
    const answers = await Promise.all(
      clients.map((client) => client.signIn({ email: target.email, password: 'a guessed password' })),
    );
    expect(statusCounts(answers)).toEqual({ 401: 10, 429: 40 });
    // Ten failures were counted, so the right password is refused until the window ends.
    const again = await new Browser(suite.app).signIn({ email: target.email, password: target.password });
    expectApiError(again, 429, 'RATE_LIMITED');
  });

  it('checks no more than 50 passwords from one client when 70 wrong ones for different addresses arrive at once', async () => {
    const client = await suite.anonymousBrowser();
    const answers = await Promise.all(
      Array.from({ length: 70 }, () =>
        client.signIn({ email: uniqueEmail('guess'), password: 'a guessed password' }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 401: 50, 429: 20 });
  });

  it("does not count a right password as a failure: an address's own sign-ins never lock it", async () => {
    const person = await newMember();
    const browser = await suite.anonymousBrowser();
    await failSignIns(browser, Array<string>(9).fill(person.email));
    for (let i = 0; i < 3; i += 1) {
      const signedIn = await new Browser(suite.app).signIn({
        email: person.email,
        password: person.password,
      });
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
    const withoutRedis = await dashboardApp(suite.db, {
      mailer: suite.mailer,
      distDir: suite.distDir,
      rateLimit: { perKey: 1000, perAddress: 1000, redisUrl: `redis://127.0.0.1:${String(closed)}` },
    });
    try {
      const person = await createDashboardPerson(suite.db, {
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
    const first = await createPortfolioInstance(suite.db);
    const second = await createPortfolioInstance(suite.db);
    const email = uniqueEmail('both');
    await createDashboardPerson(suite.db, { instanceId: first.instanceId, role: 'admin', email });
    const inSecond = await createDashboardPerson(suite.db, {
      instanceId: second.instanceId,
      role: 'member',
      email,
    });
    const browser = await suite.anonymousBrowser();

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
    const other = await createPortfolioInstance(suite.db);
    const browser = await suite.anonymousBrowser();
    const refused = await browser.signIn({
      email: given.admin.email,
      password: given.admin.password,
      instance: other.slug,
    });
    expect(expectApiError(refused, 401, 'INVALID_CREDENTIALS')).toBe(INVALID_CREDENTIALS_MESSAGE);
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });
});
