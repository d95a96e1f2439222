// Single sign-on with OpenID Connect (issue 42, item 4), through the shared sign-in kit on both signed-in
// surfaces, on the apps `portico serve` builds, against a real identity provider (`oidc-provider`) on loopback
// over HTTPS: an admin connects it, and people of its domains sign in through the whole authorization-code flow
// (PKCE, state, nonce), the provider's redirects followed one by one. Every refusal has its own code.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Role } from '../../../src/accounts/roles.ts';
import { trustProviderCertificates } from '../../../src/accounts/sso/identity-providers.ts';
import type { AccountTenant } from '../../../src/accounts/users.ts';
import { loadConfig } from '../../../src/config.ts';
import { SSO_BINDING_COOKIE } from '../../../src/http/signed-in/sso-routes.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  Browser,
  countOf,
  createPerson,
  PASSWORD,
  smtpWithMailer,
  type DashboardPerson,
  type SignInSurface,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance, type ApiResponse } from '../../support/data/portfolio.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { startOidcPeer, type OidcPeer } from '../../support/peers/oidc-provider.ts';
import { testTls } from '../../support/peers/tls-listener.ts';

/** A fresh tenant of a surface, its admin signed in, and where its single sign-on is set. */
interface TenantUnderTest {
  tenant: AccountTenant;
  handle: string;
  admin: DashboardPerson;
  adminBrowser: Browser;
  /** The admin route of the tenant's connection. */
  settingsUrl: string;
  /** An e-mail domain of its own, for its connection to cover. */
  domain: string;
}

interface Surface {
  name: string;
  app: FastifyInstance;
  browserSurface: SignInSurface;
  pagePath: string;
  publicUrl: string;
  /** A role people get at sign-in, and the one that may not manage single sign-on. */
  defaultRole: Role;
  newTenant: () => Promise<TenantUnderTest>;
}

const callbackOf = (publicUrl: string, pagePath: string) =>
  `${publicUrl}${pagePath}/api/session/sso/callback`;

const world = madeBeforeAll('the served apps and a loopback identity provider', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-sso-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ PORTICO_DATA_DIR: dataDir });
  const { mailer } = await smtpWithMailer(closeAfterAll);
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });
  // The provider's certificate is the tests' own: Portico trusts it as it would a private CA's.
  trustProviderCertificates((await testTls()).cert);
  closeAfterAll(() => {
    trustProviderCertificates(undefined);
  });
  const redirectUris = [
    callbackOf('https://transactions.test', '/console'),
    callbackOf('https://portfolio.test', '/dashboard'),
  ];
  const idp = await startOidcPeer({ redirectUris });
  closeAfterAll(() => idp.close());
  // Another provider that knows the same client: its answers must not pass for the first one's.
  const rogue = await startOidcPeer({
    redirectUris,
    client: { clientId: idp.clientId, clientSecret: idp.clientSecret },
  });
  closeAfterAll(() => rogue.close());

  const signedIn = async (app: FastifyInstance, surface: SignInSurface, person: DashboardPerson) =>
    new Browser(app, undefined, surface).signInOrThrow({ email: person.email, password: person.password });
  const uniqueDomain = () => `d${randomBytes(4).toString('hex')}.example.com`;

  const consoleApp = appOf('transactions');
  const dashboardApp = appOf('portfolio');
  const consoleSurface: SignInSurface = { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE };
  const dashboardSurface: SignInSurface = { apiPath: '/dashboard/api', cookie: SESSION_COOKIE };
  const surfaces: Surface[] = [
    {
      name: 'console',
      app: consoleApp,
      browserSurface: consoleSurface,
      pagePath: '/console',
      publicUrl: 'https://transactions.test',
      defaultRole: 'operator',
      newTenant: async () => {
        const handle = uniqueHandle('sso');
        const organization = await createOrganization(db, { handle, name: `SSO Capital ${handle}` });
        const tenant: AccountTenant = { kind: 'organization', id: organization.id };
        const domain = uniqueDomain();
        const admin = await createPerson(db, { tenant, role: 'admin', email: `ada@${domain}` });
        return {
          tenant,
          handle,
          admin,
          adminBrowser: await signedIn(consoleApp, consoleSurface, admin),
          settingsUrl: '/console/api/sso',
          domain,
        };
      },
    },
    {
      name: 'dashboard',
      app: dashboardApp,
      browserSurface: dashboardSurface,
      pagePath: '/dashboard',
      publicUrl: 'https://portfolio.test',
      defaultRole: 'member',
      newTenant: async () => {
        const { instanceId, slug } = await createPortfolioInstance(db, { name: 'SSO Portfolio' });
        const tenant: AccountTenant = { kind: 'instance', id: instanceId };
        const domain = uniqueDomain();
        const admin = await createPerson(db, { tenant, role: 'admin', email: `ada@${domain}` });
        return {
          tenant,
          handle: slug,
          admin,
          adminBrowser: await signedIn(dashboardApp, dashboardSurface, admin),
          settingsUrl: `/dashboard/api/instances/${slug}/sso`,
          domain,
        };
      },
    },
  ];
  return { db, idp, rogue, surfaces };
});

const surfaceOf = (name: string) => {
  const found = world.surfaces.find((surface) => surface.name === name);
  if (!found) throw new Error(`no surface ${name}`);
  return found;
};

/** The connection settings an admin saves for `provider`, covering the tenant's domain. */
const settingsFor = (
  provider: Pick<OidcPeer, 'issuer' | 'clientId' | 'clientSecret'>,
  them: TenantUnderTest,
  surface: Surface,
  extra: Partial<{ allowNewAccounts: boolean; ssoOnly: boolean; domains: string[] }> = {},
) => ({
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  domains: [them.domain],
  allowNewAccounts: false,
  defaultRole: surface.defaultRole,
  ssoOnly: false,
  ...extra,
});

async function connect(
  surface: Surface,
  them: TenantUnderTest,
  extra: Parameters<typeof settingsFor>[3] = {},
): Promise<void> {
  const saved = await them.adminBrowser.request(
    'PUT',
    them.settingsUrl,
    settingsFor(world.idp, them, surface, extra),
  );
  expect(saved.status, saved.text).toBe(200);
}

const errorCode = (answer: ApiResponse) => (answer.body as { error?: { code?: string } }).error?.code;

/** The value of a cookie an answer set. */
function setCookie(answer: ApiResponse, name: string): string | undefined {
  const header = answer.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const line = lines.find((each) => each.startsWith(`${name}=`));
  return line?.split(';')[0]?.slice(name.length + 1);
}

/** A sign-in begun in a fresh browser: its answer, the provider's URL, and the binding cookie it set. */
async function beginSso(surface: Surface, email: string) {
  const browser = new Browser(surface.app, undefined, surface.browserSurface);
  await browser.session();
  const begun = await browser.request('POST', `${surface.browserSurface.apiPath}/session/sso`, { email });
  const redirectTo = (begun.body as { redirectTo?: string } | undefined)?.redirectTo;
  return { browser, begun, redirectTo, binding: setCookie(begun, SSO_BINDING_COOKIE) };
}

/** Brings the provider's answer back to the surface, as the browser's redirect would, with its binding cookie. */
function callback(browser: Browser, back: URL, binding: string | undefined): Promise<ApiResponse> {
  return browser.request('GET', `${back.pathname}${back.search}`, undefined, {
    headers: binding === undefined ? {} : { cookie: `${SSO_BINDING_COOKIE}=${binding}` },
  });
}

/** The whole flow for the address: begun, through the provider, and back; answers the browser and the redirect. */
async function signInThroughSso(surface: Surface, email: string, provider: OidcPeer = world.idp) {
  const { browser, begun, redirectTo, binding } = await beginSso(surface, email);
  expect(begun.status, begun.text).toBe(200);
  const back = await provider.authorize(redirectTo ?? '');
  const done = await callback(browser, back, binding);
  return { browser, done, location: String(done.headers.location) };
}

const refusedWith = (surface: Surface, code: string) => `${surface.pagePath}/sign-in?sso_error=${code}`;

describe.each(['console', 'dashboard'])('single sign-on on the %s', (name) => {
  it('signs a person of the domain in through the identity provider, as a password sign-in does', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const person = await createPerson(world.db, {
      tenant: them.tenant,
      role: surface.defaultRole,
      email: `max@${them.domain}`,
    });

    const { browser, done, location } = await signInThroughSso(surface, person.email);

    expect(done.status).toBe(302);
    expect(location).toBe(surface.pagePath);
    const session = await browser.session();
    expect((session.body as { user: { id: string; email: string } | null }).user).toMatchObject({
      id: person.id,
      email: person.email,
    });
    // The session is one of the person's sessions, with its browser, and the browser is known from now on.
    const sessions = await browser.get(`${surface.browserSurface.apiPath}/sessions`);
    expect((sessions.body as { sessions: { current: boolean }[] }).sessions).toEqual([
      expect.objectContaining({ current: true }),
    ]);
    expect(
      await countOf(world.db, 'select count(*) from known_browsers where user_id = $1', [person.id]),
    ).toBe(1);
    // The binding cookie is cleared, and the sign-in cannot be finished twice.
    expect(done.headers['set-cookie']).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^${SSO_BINDING_COOKIE}=;`))]),
    );
  });

  it("asks no Portico second factor of a session begun through single sign-on, under a policy that requires one of the person's role", async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const policyUrl = them.settingsUrl.replace(/\/sso$/, '/security/second-factor');
    const required = await them.adminBrowser.request('PUT', policyUrl, {
      required: 'roles',
      roles: [surface.defaultRole],
    });
    expect(required.status, required.text).toBe(200);
    const person = await createPerson(world.db, {
      tenant: them.tenant,
      role: surface.defaultRole,
      email: `max@${them.domain}`,
    });

    const { browser } = await signInThroughSso(surface, person.email);
    expect((await browser.session()).body).toMatchObject({ secondFactorRequired: false });
    const factors = await browser.get(`${surface.browserSurface.apiPath}/sessions`);
    expect(factors.status, factors.text).toBe(200);

    // The same person signed in with their password is led to add one.
    const byPassword = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
      email: person.email,
      password: person.password,
    });
    expect((await byPassword.session()).body).toMatchObject({ secondFactorRequired: true });
    const refused = await byPassword.get(`${surface.browserSurface.apiPath}/sessions`);
    expect([refused.status, errorCode(refused)]).toEqual([403, 'SECOND_FACTOR_REQUIRED']);
  });

  it('makes an account with the default role for a new person of the domain when the admin allows it', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them, { allowNewAccounts: true });
    const email = `new-${randomBytes(3).toString('hex')}@${them.domain}`;
    world.idp.account(email, { name: 'Nia Newcomer' });

    const { browser, location } = await signInThroughSso(surface, email);

    expect(location).toBe(surface.pagePath);
    const session = await browser.session();
    expect((session.body as { user: object | null }).user).toMatchObject({
      email,
      name: 'Nia Newcomer',
      role: surface.defaultRole,
    });
    if (surface.name === 'console') {
      expect(
        await countOf(
          world.db,
          `select count(*) from team_changes c join users u on u.id = c.user_id
           where u.email = $1 and c.action = 'sso_joined' and c.actor_id = c.user_id`,
          [email],
        ),
      ).toBe(1);
    }
  });

  it('refuses a person without an account when new accounts are not allowed, and makes none', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them, { allowNewAccounts: false });
    const email = `stranger@${them.domain}`;

    const { browser, location } = await signInThroughSso(surface, email);

    expect(location).toBe(refusedWith(surface, 'SSO_NO_ACCOUNT'));
    expect((await browser.session()).body).toMatchObject({ user: null });
    expect(await countOf(world.db, 'select count(*) from users where email = $1', [email])).toBe(0);
  });

  it('refuses a deactivated person', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const person = await createPerson(world.db, {
      tenant: them.tenant,
      role: surface.defaultRole,
      email: `gone@${them.domain}`,
    });
    await world.db.query('update users set deactivated_at = now() where id = $1', [person.id]);

    const { location } = await signInThroughSso(surface, person.email);

    expect(location).toBe(refusedWith(surface, 'SSO_ACCOUNT_DEACTIVATED'));
  });

  it('refuses an address the identity provider did not verify, and one of a domain it does not cover', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them, { allowNewAccounts: true });
    const unverified = `unverified@${them.domain}`;
    world.idp.account(unverified, { email_verified: false });
    expect((await signInThroughSso(surface, unverified)).location).toBe(
      refusedWith(surface, 'SSO_EMAIL_NOT_VERIFIED'),
    );
    const elsewhere = `elsewhere@${them.domain}`;
    world.idp.account(elsewhere, { email: 'someone@not-covered.example.org' });
    expect((await signInThroughSso(surface, elsewhere)).location).toBe(
      refusedWith(surface, 'SSO_DOMAIN_NOT_COVERED'),
    );
    expect(
      await countOf(world.db, 'select count(*) from users where email = any($1)', [
        [unverified, 'someone@not-covered.example.org'],
      ]),
    ).toBe(0);
  });

  it('answers SSO_NOT_CONFIGURED for an address of a domain no connection covers', async () => {
    const surface = surfaceOf(name);
    const { begun, binding } = await beginSso(
      surface,
      `someone@${randomBytes(4).toString('hex')}.example.net`,
    );
    expect([begun.status, errorCode(begun)]).toEqual([404, 'SSO_NOT_CONFIGURED']);
    expect(binding).toBeUndefined();
  });

  it('refuses a password to the people of an SSO-only domain, right or wrong, but not to its admins', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    const person = await createPerson(world.db, {
      tenant: them.tenant,
      role: surface.defaultRole,
      email: `pat@${them.domain}`,
    });
    await connect(surface, them, { ssoOnly: true });

    for (const password of [PASSWORD, 'not the password']) {
      const answer = await new Browser(surface.app, undefined, surface.browserSurface).signIn({
        email: person.email,
        password,
      });
      expect([answer.status, errorCode(answer)]).toEqual([403, 'SSO_REQUIRED']);
      expect((answer.body as { error: { message: string } }).error.message).toContain('Sign in with SSO');
    }
    // The break-glass way in: an admin's password still opens their account.
    const admin = await new Browser(surface.app, undefined, surface.browserSurface).signIn({
      email: them.admin.email,
      password: them.admin.password,
    });
    expect(admin.status, admin.text).toBe(200);
    // And single sign-on signs the person in.
    expect((await signInThroughSso(surface, person.email)).location).toBe(surface.pagePath);
  });

  it('refuses an answer whose state no sign-in of this browser waits for', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const { browser, redirectTo, binding } = await beginSso(surface, them.admin.email);
    const back = await world.idp.authorize(redirectTo ?? '');

    const changed = new URL(back);
    changed.searchParams.set('state', 'another-state');
    expect((await callback(browser, changed, binding)).headers.location).toBe(
      refusedWith(surface, 'SSO_STATE_INVALID'),
    );
    // Another browser (without the binding cookie) cannot finish it either.
    const other = new Browser(surface.app, undefined, surface.browserSurface);
    expect((await callback(other, back, undefined)).headers.location).toBe(
      refusedWith(surface, 'SSO_STATE_INVALID'),
    );
    expect((await callback(other, back, 'another-browser')).headers.location).toBe(
      refusedWith(surface, 'SSO_STATE_INVALID'),
    );
    // The browser that began it finishes it, once.
    expect((await callback(browser, back, binding)).headers.location).toBe(surface.pagePath);
    expect((await callback(browser, back, binding)).headers.location).toBe(
      refusedWith(surface, 'SSO_STATE_INVALID'),
    );
  });

  it('refuses an answer to a sign-in begun more than 10 minutes ago', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const { browser, redirectTo, binding } = await beginSso(surface, them.admin.email);
    const back = await world.idp.authorize(redirectTo ?? '');
    await world.db.query(
      `update sso_pending_logins set expires_at = now() - interval '1 second'
       where connection_id = (select id from sso_connections where coalesce(organization_id, instance_id) = $1)`,
      [them.tenant.id],
    );

    expect((await callback(browser, back, binding)).headers.location).toBe(
      refusedWith(surface, 'SSO_STATE_INVALID'),
    );
  });

  it('refuses an ID token made for another sign-in (its nonce)', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const { browser, redirectTo, binding } = await beginSso(surface, them.admin.email);
    // The sign-in expects another nonce than the one the provider was sent.
    await world.db.query(
      `update sso_pending_logins set nonce = 'another-nonce'
       where connection_id = (select id from sso_connections where coalesce(organization_id, instance_id) = $1)`,
      [them.tenant.id],
    );
    const back = await world.idp.authorize(redirectTo ?? '');

    expect((await callback(browser, back, binding)).headers.location).toBe(
      refusedWith(surface, 'SSO_NONCE_INVALID'),
    );
    expect((await browser.session()).body).toMatchObject({ user: null });
  });

  it('refuses an answer of another identity provider than the connected one', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    const { browser, redirectTo, binding } = await beginSso(surface, them.admin.email);
    // The browser is sent to another provider that knows the same client, and comes back with its code.
    const elsewhere = new URL(redirectTo ?? '');
    const rogueOrigin = new URL(world.rogue.issuer);
    elsewhere.host = rogueOrigin.host;
    const back = await world.rogue.authorize(elsewhere.href);
    expect(back.searchParams.get('iss')).toBe(world.rogue.issuer);

    expect((await callback(browser, back, binding)).headers.location).toBe(
      refusedWith(surface, 'SSO_ISSUER_MISMATCH'),
    );
  });

  it('refuses an expired ID token and an unsigned one', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    await connect(surface, them);
    for (const how of ['expired', 'unsigned'] as const) {
      world.idp.spoilNextIdToken(how);
      const { location, browser } = await signInThroughSso(surface, them.admin.email);
      expect(location, how).toBe(refusedWith(surface, 'SSO_TOKEN_INVALID'));
      expect((await browser.session()).body).toMatchObject({ user: null });
    }
  });

  it('says when the identity provider cannot be reached, and the password still works', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    const gone = await startOidcPeer({ redirectUris: [callbackOf(surface.publicUrl, surface.pagePath)] });
    const saved = await them.adminBrowser.request('PUT', them.settingsUrl, settingsFor(gone, them, surface));
    expect(saved.status, saved.text).toBe(200);
    await gone.close();

    const { begun, binding } = await beginSso(surface, them.admin.email);
    expect([begun.status, errorCode(begun)]).toEqual([503, 'SSO_ISSUER_UNREACHABLE']);
    expect(binding).toBeUndefined();
    const password = await new Browser(surface.app, undefined, surface.browserSurface).signIn({
      email: them.admin.email,
      password: them.admin.password,
    });
    expect(password.status).toBe(200);
    // Saving a connection checks its issuer first: one that does not answer is not saved.
    const again = await them.adminBrowser.request('PUT', them.settingsUrl, {
      ...settingsFor(gone, them, surface),
      ssoOnly: true,
    });
    expect([again.status, errorCode(again)]).toEqual([503, 'SSO_ISSUER_UNREACHABLE']);
    const read = await them.adminBrowser.get(them.settingsUrl);
    expect((read.body as { connection: { ssoOnly: boolean } }).connection.ssoOnly).toBe(false);
  });

  it('lets only admins read and set the connection, never answers its secret, and keeps it sealed', async () => {
    const surface = surfaceOf(name);
    const them = await surface.newTenant();
    const before = await them.adminBrowser.get(them.settingsUrl);
    expect(before.body).toEqual({
      connection: null,
      callbackUrl: callbackOf(surface.publicUrl, surface.pagePath),
    });
    await connect(surface, them);
    const read = await them.adminBrowser.get(them.settingsUrl);
    expect((read.body as { connection: object }).connection).toMatchObject({
      issuer: world.idp.issuer,
      clientId: world.idp.clientId,
      clientSecretSet: true,
      domains: [them.domain],
    });
    expect(read.text).not.toContain(world.idp.clientSecret);
    const [row] = await world.db.query<{ sealed: Uint8Array }>(
      `select client_secret_sealed as sealed from sso_connections where coalesce(organization_id, instance_id) = $1`,
      [them.tenant.id],
    );
    expect(Buffer.from(row?.sealed ?? []).toString('latin1')).not.toContain(world.idp.clientSecret);
    // Saved again without a secret, the one set is kept.
    const withoutSecret: Partial<ReturnType<typeof settingsFor>> = settingsFor(world.idp, them, surface);
    delete withoutSecret.clientSecret;
    const kept = await them.adminBrowser.request('PUT', them.settingsUrl, withoutSecret);
    expect((kept.body as { connection: { clientSecretSet: boolean } }).connection.clientSecretSet).toBe(true);

    const member = await createPerson(world.db, { tenant: them.tenant, role: surface.defaultRole });
    const memberBrowser = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
      email: member.email,
      password: member.password,
    });
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const answer = await memberBrowser.request(
        method,
        them.settingsUrl,
        method === 'PUT' ? settingsFor(world.idp, them, surface) : undefined,
      );
      expect([answer.status, errorCode(answer)], method).toEqual([403, 'FORBIDDEN']);
    }

    // Another tenant's admin reads and changes only their own.
    const other = await surface.newTenant();
    if (surface.name === 'dashboard') {
      const theirs = await other.adminBrowser.get(them.settingsUrl);
      expect([theirs.status, errorCode(theirs)]).toEqual([403, 'WRONG_INSTANCE']);
      const removed = await other.adminBrowser.request('DELETE', them.settingsUrl);
      expect([removed.status, errorCode(removed)]).toEqual([403, 'WRONG_INSTANCE']);
    } else {
      expect((await other.adminBrowser.get(other.settingsUrl)).body).toMatchObject({ connection: null });
      await other.adminBrowser.request('DELETE', other.settingsUrl);
    }
    // A domain is covered by one tenant of a kind only.
    const claimed = await other.adminBrowser.request(
      'PUT',
      other.settingsUrl,
      settingsFor(world.idp, them, surface),
    );
    expect([claimed.status, errorCode(claimed)]).toEqual([409, 'CONFLICT']);
    expect((await them.adminBrowser.get(them.settingsUrl)).body).toMatchObject({
      connection: { domains: [them.domain] },
    });

    const removed = await them.adminBrowser.request('DELETE', them.settingsUrl);
    expect(removed.status).toBe(200);
    expect((await them.adminBrowser.get(them.settingsUrl)).body).toMatchObject({ connection: null });
  });
});
