// The customer dashboard's sessions: CSRF tokens on every state-changing request, and when a session ends (sign-out,
// idle or absolute expiry, a new password, the person removed, another instance's routes).
import { describe, expect, it } from 'vitest';
import { createPortfolioKey } from '../../../src/portfolio/instances.ts';
import {
  Browser,
  countOf,
  createDashboardPerson,
  instanceApi,
  linkToken,
  mailTo,
  sessionIdHash,
  signedInBrowser,
} from '../../support/data/dashboard.ts';
import {
  PASSWORD_RESET,
  PASSWORD_RESET_CONFIRM,
  SESSION,
  comparable,
  shownUser,
  useDashboardSuite,
  useInstance,
  useSignedInInstance,
  whoIsSignedIn,
} from '../../support/data/dashboard-suite.ts';
import { createPortfolioInstance, expectApiError } from '../../support/data/portfolio.ts';

const suite = useDashboardSuite();

describe('CSRF tokens', () => {
  const given = useInstance(suite);

  it("refuses a sign-in without a token, with a forged one, or with another session's, with 403 CSRF_INVALID, and signs no one in", async () => {
    const browser = await suite.anonymousBrowser();
    const other = await suite.anonymousBrowser();
    const credentials = { email: given.admin.email, password: given.admin.password };
    const own = browser.csrfToken;
    const forged = `${String(own).slice(0, -4)}AAAA`;

    for (const csrfToken of [null, forged, 'forged', other.csrfToken]) {
      const refused = await browser.request('POST', SESSION, credentials, { csrfToken });
      expectApiError(refused, 403, 'CSRF_INVALID');
    }
    // Without a session at all (no cookie), there is no secret to check a token against.
    const cookieless = new Browser(suite.app);
    const noSession = await cookieless.request('POST', SESSION, credentials, { csrfToken: own ?? null });
    expectApiError(noSession, 403, 'CSRF_INVALID');
    expect(await suite.sessionCount(given.admin.id)).toBe(0);
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });

    // The same request with the session's own token signs in: the refusals were the token's.
    expect((await browser.request('POST', SESSION, credentials)).status).toBe(200);
  });

  it("refuses generating or revoking a key without a token, with a forged one, with another session's or with the one from before sign-in, and changes no key", async () => {
    const browser = await suite.anonymousBrowser();
    const beforeSignIn = browser.csrfToken;
    await browser.signInOrThrow({ email: given.admin.email, password: given.admin.password });
    // Another session of the same person: its token is not this session's.
    const otherSession = await signedInBrowser(suite.app, given.admin);
    const { record } = await createPortfolioKey(suite.db, {
      instanceId: given.instance.instanceId,
      name: 'kept',
    });
    const keys = await suite.keyCount(given.instance.instanceId);
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
    expect(await suite.keyCount(given.instance.instanceId)).toBe(keys);
    expect(await suite.revokedKeyCount(given.instance.instanceId)).toBe(0);
    // The session stays signed in: a bad token refuses the request, it does not sign out.
    expect((await whoIsSignedIn(browser)).user).toEqual(shownUser(given.admin));
    expect((await browser.request('POST', keysUrl, { name: 'with token' })).status).toBe(201);
  });
});

describe('sessions', () => {
  const given = useSignedInInstance(suite);
  const keysOf = (browser: Browser) => browser.get(instanceApi(given.instance.slug, '/keys'));

  it('ends a session at sign-out: the old cookie then gets 401 UNAUTHENTICATED', async () => {
    const browser = await signedInBrowser(suite.app, given.admin);
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
    expect(
      await countOf(suite.db, 'select count(*) from user_sessions where id_hash = $1', [signedInId]),
    ).toBe(0);
    expect(await whoIsSignedIn(stolen)).toEqual({ user: null, instance: null });
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    // The other sessions of the person go on.
    expect((await keysOf(given.adminBrowser)).status).toBe(200);
  });

  it('ends a session whose idle expiry has passed', async () => {
    const browser = await signedInBrowser(suite.app, given.admin);
    await suite.db.query(
      `update user_sessions set expires_at = clock_timestamp() - interval '1 second' where id_hash = $1`,
      [sessionIdHash(browser.sessionId())],
    );
    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
  });

  it('ends a session signed in more than 12 hours ago, though it was used a moment ago', async () => {
    const browser = await signedInBrowser(suite.app, given.admin);
    const signedInAt = async (hoursAgo: number) => {
      await suite.db.query(
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
    const person = await createDashboardPerson(suite.db, {
      instanceId: given.instance.instanceId,
      role: 'member',
    });
    const laptop = await signedInBrowser(suite.app, person);
    const phone = await signedInBrowser(suite.app, person);
    const received = suite.smtp.received.length;

    const forgetful = await suite.anonymousBrowser();
    expect((await forgetful.request('POST', PASSWORD_RESET, { email: person.email })).status).toBe(202);
    const token = linkToken(await mailTo(suite.smtp, person.email, { after: received }), 'reset-password');
    const confirmed = await forgetful.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'a brand new passphrase',
    });
    expect(confirmed.status).toBe(200);

    expectApiError(await keysOf(laptop), 401, 'UNAUTHENTICATED');
    expectApiError(await keysOf(phone), 401, 'UNAUTHENTICATED');
    expect(await suite.sessionCount(person.id)).toBe(0);
    // Other people's sessions go on.
    expect((await keysOf(given.adminBrowser)).status).toBe(200);
  });

  it('ends the sessions of a person an admin removes', async () => {
    const person = await createDashboardPerson(suite.db, {
      instanceId: given.instance.instanceId,
      role: 'member',
    });
    const browser = await signedInBrowser(suite.app, person);
    expect((await keysOf(browser)).status).toBe(200);

    const removed = await given.adminBrowser.request(
      'DELETE',
      instanceApi(given.instance.slug, `/people/${person.id}`),
    );
    expect(removed.status).toBe(200);
    expect(removed.body.person).toMatchObject({ id: person.id, email: person.email, active: true });

    expectApiError(await keysOf(browser), 401, 'UNAUTHENTICATED');
    expect(await suite.sessionCount(person.id)).toBe(0);
    expect(await countOf(suite.db, 'select count(*) from users where id = $1', [person.id])).toBe(0);
    expectApiError(
      await new Browser(suite.app).signIn({ email: person.email, password: person.password }),
      401,
      'INVALID_CREDENTIALS',
    );
  });

  it("answers a session of instance A on instance B's routes, and on a slug that does not exist, with the same 403 WRONG_INSTANCE", async () => {
    const other = await createPortfolioInstance(suite.db);
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
