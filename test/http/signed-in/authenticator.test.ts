// Two-step sign-in with an authenticator app (issue 42, item 2), through the shared sign-in kit on both signed-in
// surfaces, on the apps `portico serve` builds: adding an app with a code made from the secret the route gave,
// signing in with its code or a recovery code, each code working once, wrong codes counted in the database under
// concurrent tries, removing the app, and a password reset that keeps it.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { issueLink } from '../../../src/accounts/links.ts';
import type { AccountTenant } from '../../../src/accounts/users.ts';
import { loadConfig } from '../../../src/config.ts';
import { createMailer } from '../../../src/mail/mailer.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  Browser,
  createPerson,
  type DashboardPerson,
  type SignInSurface,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance, type ApiResponse } from '../../support/data/portfolio.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';

interface Surface {
  name: string;
  app: FastifyInstance;
  browserSurface: SignInSurface;
  tenant: AccountTenant;
  /** A signed-in route of the surface's own (past the account routes) that any role may read. */
  ownRoute: string;
}

const world = madeBeforeAll('the served apps, an organization and an instance', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-authenticator-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ PORTICO_DATA_DIR: dataDir });
  const mailer = createMailer({ ...config, smtpUrl: undefined }, pino({ level: 'silent' }));
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });
  const organization = await createOrganization(db, {
    handle: uniqueHandle('factors'),
    name: 'Factor Capital',
  });
  const slug = uniqueHandle('factors');
  const instance = await createPortfolioInstance(db, { slug, name: 'Factor Portfolio' });
  const surfaces: Surface[] = [
    {
      name: 'console',
      app: appOf('transactions'),
      browserSurface: { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE },
      tenant: { kind: 'organization', id: organization.id },
      ownRoute: '/console/api/team',
    },
    {
      name: 'dashboard',
      app: appOf('portfolio'),
      browserSurface: { apiPath: '/dashboard/api', cookie: SESSION_COOKIE },
      tenant: { kind: 'instance', id: instance.instanceId },
      ownRoute: `/dashboard/api/instances/${slug}/people`,
    },
  ];
  return { db, surfaces };
});

/** The code an authenticator app shows for the secret, `steps` periods of 30 seconds from now. */
function codeOf(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret.replaceAll(' ', '')), digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/** A wrong code: one of the six digits of the right one changed, so never one of the three steps accepted. */
function wrongCodeOf(secret: string): string {
  const accepted = new Set([-1, 0, 1].map((steps) => codeOf(secret, steps)));
  for (let n = 0; ; n += 1) {
    const code = String(n).padStart(6, '0');
    if (!accepted.has(code)) return code;
  }
}

const errorOf = (answer: ApiResponse) => (answer.body as { error?: { code: string } }).error?.code;

/** A new person of the surface's tenant, signed in in a browser of their own, with what their routes are. */
async function personOn(surface: Surface) {
  const { db } = world;
  const person = await createPerson(db, { tenant: surface.tenant, role: 'admin' });
  const browser = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
    email: person.email,
    password: person.password,
  });
  const api = (path: string) => `${surface.browserSurface.apiPath}${path}`;
  return { person, browser, api };
}

/** Adds an authenticator app for the signed-in browser: its secret, and the recovery codes shown once. */
async function addApp(browser: Browser, api: (path: string) => string) {
  const begun = await browser.request('POST', api('/factors/authenticator'));
  expect(begun.status).toBe(200);
  const { secret, uri, qrSvg } = begun.body as { secret: string; uri: string; qrSvg: string };
  expect(secret).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
  expect(uri).toContain(`secret=${secret.replaceAll(' ', '')}`);
  expect(qrSvg).toMatch(/^<svg[^>]*>/);
  const confirmed = await browser.request('POST', api('/factors/authenticator/confirm'), {
    code: codeOf(secret),
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  const { recoveryCodes } = confirmed.body as { recoveryCodes: string[] };
  expect(recoveryCodes).toHaveLength(10);
  expect(new Set(recoveryCodes).size).toBe(10);
  return { secret, recoveryCodes };
}

/** Signs in with the password in a new browser: answers the half-signed-in browser, asked for its second step. */
async function firstStep(surface: Surface, person: DashboardPerson): Promise<Browser> {
  const browser = new Browser(surface.app, undefined, surface.browserSurface);
  const answer = await browser.signIn({ email: person.email, password: person.password });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ user: null, secondFactor: 'authenticator' });
  return browser;
}

const secondStep = (browser: Browser, surface: Surface, code: string) =>
  browser.request('POST', `${surface.browserSurface.apiPath}/session/second-factor`, { code });

describe.each(['console', 'dashboard'])('two-step sign-in on the %s', (name) => {
  const surfaceOf = () => {
    const found = world.surfaces.find((surface) => surface.name === name);
    if (!found) throw new Error(`no surface ${name}`);
    return found;
  };

  it('adds an app by a code made from its secret, then asks for a code at sign-in, and refuses it replayed', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    const { secret } = await addApp(browser, api);
    const factors = await browser.get(api('/factors'));
    expect(factors.body).toMatchObject({ recoveryCodesLeft: 10 });
    expect((factors.body as { authenticatorAddedAt: string | null }).authenticatorAddedAt).not.toBeNull();
    // The secret is kept sealed: its text is nowhere in the row.
    const [row] = await world.db.query<{ sealed: Uint8Array }>(
      'select secret_sealed as sealed from authenticator_apps where user_id = $1',
      [person.id],
    );
    expect(Buffer.from(row?.sealed ?? []).toString('latin1')).not.toContain(secret.replaceAll(' ', ''));

    await browser.request('DELETE', api('/session'));
    const next = await firstStep(surface, person);
    // Half signed in: no route past sign-in answers, and the session says no one.
    const refused = await next.get(surface.ownRoute);
    expect([refused.status, errorOf(refused)]).toEqual([401, 'UNAUTHENTICATED']);
    expect((await next.get(api('/factors'))).status).toBe(401);
    expect((await next.request('POST', api('/factors/authenticator'))).status).toBe(401);
    expect((await next.session()).body).toMatchObject({ user: null });

    // The confirming code's step is used already: the next step's code signs in, and works once.
    const code = codeOf(secret, 1);
    const signedIn = await secondStep(next, surface, code);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body).toMatchObject({ user: { email: person.email } });
    expect((await next.get(surface.ownRoute)).status).toBe(200);

    const again = await firstStep(surface, person);
    const replayed = await secondStep(again, surface, code);
    expect([replayed.status, errorOf(replayed)]).toEqual([409, 'CODE_REPLAYED']);
    expect((await again.get(surface.ownRoute)).status).toBe(401);
  });

  it('refuses a sign-in half done on every route past sign-in the surface declares', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    await addApp(browser, api);
    const pending = await firstStep(surface, person);
    const guarded = surface.app.signedInRoutes.filter(
      (route) => route.surface === surface.name && route.access !== 'public',
    );
    expect(guarded.length).toBeGreaterThan(8);
    for (const route of guarded) {
      const url = route.url.replace(/:\w+/g, randomUUID());
      const changes = route.method !== 'GET' && route.method !== 'HEAD';
      const answer = await pending.request(route.method as 'GET', url, changes ? {} : undefined);
      expect(answer.status, `${route.method} ${route.url}`).toBe(401);
    }
  });

  it('refuses a second step that no first step began, and a code sent before any sign-in', async () => {
    const surface = surfaceOf();
    const browser = new Browser(surface.app, undefined, surface.browserSurface);
    await browser.session();
    const answer = await secondStep(browser, surface, '123456');
    expect([answer.status, errorOf(answer)]).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('counts wrong codes in the database: of 15 sent at once, 10 are checked and the rest refused', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    const { secret } = await addApp(browser, api);
    const pending = await firstStep(surface, person);
    const wrong = wrongCodeOf(secret);
    const answers = await Promise.all(Array.from({ length: 15 }, () => secondStep(pending, surface, wrong)));
    const codes = answers.map(errorOf).toSorted();
    expect(codes.filter((code) => code === 'CODE_INVALID')).toHaveLength(10);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(5);
    // Past the limit, even the right code is not checked.
    const right = await secondStep(pending, surface, codeOf(secret, 1));
    expect(errorOf(right)).toBe('RATE_LIMITED');
  });

  it('signs in with a recovery code once, refuses it the second time, and voids the old codes when new ones are made', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    const { secret, recoveryCodes } = await addApp(browser, api);
    const [first = '', second = ''] = recoveryCodes;

    const pending = await firstStep(surface, person);
    const used = await secondStep(pending, surface, first.toUpperCase());
    expect(used.status, used.text).toBe(200);
    expect((await pending.get(api('/factors'))).body).toMatchObject({ recoveryCodesLeft: 9 });
    const twice = await secondStep(await firstStep(surface, person), surface, first);
    expect([twice.status, errorOf(twice)]).toEqual([410, 'RECOVERY_CODE_USED']);

    // New codes, proven by the password: the old ones stop working.
    const remade = await browser.request('POST', api('/factors/recovery-codes'), {
      password: person.password,
    });
    expect(remade.status, remade.text).toBe(200);
    const { recoveryCodes: fresh } = remade.body as { recoveryCodes: string[] };
    expect(fresh).not.toContain(second);
    const old = await secondStep(await firstStep(surface, person), surface, second);
    expect([old.status, errorOf(old)]).toEqual([400, 'CODE_INVALID']);
    const renewed = await secondStep(await firstStep(surface, person), surface, fresh[0] ?? '');
    expect(renewed.status, renewed.text).toBe(200);
    // A wrong password does not remake them.
    const refused = await browser.request('POST', api('/factors/recovery-codes'), { password: 'not it' });
    expect(refused.status).toBe(400);
    expect(codeOf(secret)).toMatch(/^\d{6}$/);
  });

  it('removes the app given a code of it, and signs in with the password alone after', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    const { secret } = await addApp(browser, api);
    const nothing = await browser.request('DELETE', api('/factors/authenticator'), {});
    expect([nothing.status, errorOf(nothing)]).toEqual([400, 'BAD_USER_INPUT']);
    const wrong = await browser.request('DELETE', api('/factors/authenticator'), {
      code: wrongCodeOf(secret),
    });
    expect([wrong.status, errorOf(wrong)]).toEqual([400, 'CODE_INVALID']);
    const removed = await browser.request('DELETE', api('/factors/authenticator'), {
      code: codeOf(secret, 1),
    });
    expect(removed.status, removed.text).toBe(200);
    expect((await browser.get(api('/factors'))).body).toEqual({
      authenticatorAddedAt: null,
      recoveryCodesLeft: 0,
      passkeys: [],
    });
    const fresh = new Browser(surface.app, undefined, surface.browserSurface);
    const answer = await fresh.signIn({ email: person.email, password: person.password });
    expect(answer.body).toMatchObject({ user: { email: person.email } });
    expect((answer.body as { secondFactor?: string }).secondFactor).toBeUndefined();
  });

  it('keeps the app through a password reset, which ends a sign-in half done: the new password still asks for a code', async () => {
    const surface = surfaceOf();
    const { person, browser, api } = await personOn(surface);
    const { secret } = await addApp(browser, api);
    // A sign-in half done with the old password ends with the person's sessions.
    const halfDone = await firstStep(surface, person);
    const { token } = await issueLink(world.db, { userId: person.id, purpose: 'password_reset' });
    const other = new Browser(surface.app, undefined, surface.browserSurface);
    await other.session();
    const reset = await other.request('POST', api('/password-reset/confirm'), {
      token,
      password: 'a new and longer passphrase',
    });
    expect(reset.status, reset.text).toBe(200);
    const half = await secondStep(halfDone, surface, codeOf(secret, 1));
    // Its row is gone, its CSRF secret with it: refused as any ended session's change is.
    expect([half.status, errorOf(half)]).toEqual([403, 'CSRF_INVALID']);
    expect((await halfDone.session()).body).toMatchObject({ user: null });
    const pending = await firstStep(surface, { ...person, password: 'a new and longer passphrase' });
    const signedIn = await secondStep(pending, surface, codeOf(secret, 1));
    expect(signedIn.status, signedIn.text).toBe(200);
  });
});
