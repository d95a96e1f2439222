// A policy that requires a second factor (issue 42, item 3), through the shared sign-in kit on both signed-in
// surfaces, on the apps `portico serve` builds: only admins set it; a person it covers who has no factor is refused
// every route but the session, sign-out and adding an app, until they add one; their last factor stays; a password
// reset keeps it; and an admin resets a colleague's factors (their sessions end, they are mailed through real SMTP,
// the console's team activity says so), never one of another tenant.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it, vi } from 'vitest';
import { issueLink } from '../../../src/accounts/links.ts';
import type { Role } from '../../../src/accounts/roles.ts';
import type { AccountTenant } from '../../../src/accounts/users.ts';
import { loadConfig } from '../../../src/config.ts';
import { SECOND_FACTOR_SETUP, accountRoutes } from '../../../src/http/signed-in/account-contract.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import { Type } from '@sinclair/typebox';
import {
  Browser,
  createPerson,
  smtpWithMailer,
  type DashboardPerson,
  type SignInSurface,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance, type ApiResponse } from '../../support/data/portfolio.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { SoftwarePasskey } from '../../support/peers/webauthn-authenticator.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';

/** One surface, with a tenant of its own made for each test (a policy is the tenant's). */
interface Surface {
  name: 'console' | 'dashboard';
  app: FastifyInstance;
  browserSurface: SignInSurface;
  /** The origin of its pages, which its passkeys are made for. */
  origin: string;
  /** A role the tests cover, and one they leave alone (besides admins, who set the policy). */
  covered: Role;
  /** A new tenant, with the paths of its routes. */
  newTenant: () => Promise<{
    tenant: AccountTenant;
    /** The tenant's handle, for the paths that name it. */
    handle: string;
    policy: string;
    resetFactors: (id: string) => string;
    /** A signed-in route of the surface's own that every role may read. */
    ownRoute: string;
  }>;
}

const world = madeBeforeAll('the served apps with a real SMTP server', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-factor-policy-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ PORTICO_DATA_DIR: dataDir });
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });
  const surfaces: Surface[] = [
    {
      name: 'console',
      app: appOf('transactions'),
      browserSurface: { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE },
      origin: 'https://transactions.test',
      covered: 'operator',
      newTenant: async () => {
        const handle = uniqueHandle('policy');
        const organization = await createOrganization(db, { handle, name: 'Policy Capital' });
        return {
          tenant: { kind: 'organization', id: organization.id },
          handle,
          policy: '/console/api/security/second-factor',
          resetFactors: (id) => `/console/api/team/${id}/factors/reset`,
          ownRoute: '/console/api/queue',
        };
      },
    },
    {
      name: 'dashboard',
      app: appOf('portfolio'),
      browserSurface: { apiPath: '/dashboard/api', cookie: SESSION_COOKIE },
      origin: 'https://portfolio.test',
      covered: 'member',
      newTenant: async () => {
        const handle = uniqueHandle('policy');
        const instance = await createPortfolioInstance(db, { slug: handle, name: 'Policy Portfolio' });
        return {
          tenant: { kind: 'instance', id: instance.instanceId },
          handle,
          policy: `/dashboard/api/instances/${handle}/security/second-factor`,
          resetFactors: (id) => `/dashboard/api/instances/${handle}/people/${id}/factors/reset`,
          ownRoute: `/dashboard/api/instances/${handle}/people`,
        };
      },
    },
  ];
  return { db, smtp, surfaces };
});

/** The code an authenticator app shows for the secret, `steps` periods of 30 seconds from now. */
function codeOf(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret.replaceAll(' ', '')), digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

const errorOf = (answer: ApiResponse) =>
  (answer.body as { error?: { code: string } } | undefined)?.error?.code;

/** The signed-in account routes a person who must add a factor may still call, as `METHOD path`. */
const SETUP = (apiPath: string) => {
  const contract = accountRoutes(Type.Object({}), {});
  return new Set(
    SECOND_FACTOR_SETUP.map((name) => `${contract[name].method} ${apiPath}${contract[name].url}`),
  );
};

describe.each(['console', 'dashboard'] as const)('a second factor required on the %s', (name) => {
  const surfaceOf = () => {
    const found = world.surfaces.find((surface) => surface.name === name);
    if (!found) throw new Error(`no surface ${name}`);
    return found;
  };

  /** A fresh tenant, and a way to sign its new people in, each in a browser of their own. */
  async function tenantWithPeople() {
    const surface = surfaceOf();
    const tenant = await surface.newTenant();
    const api = (path: string) => `${surface.browserSurface.apiPath}${path}`;
    const signedIn = async (role: Role) => {
      const person = await createPerson(world.db, { tenant: tenant.tenant, role });
      const browser = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
        email: person.email,
        password: person.password,
      });
      return { person, browser };
    };
    return { surface, ...tenant, api, signedIn };
  }

  /** Adds an authenticator app for the signed-in browser; answers its secret. */
  async function addApp(browser: Browser, api: (path: string) => string): Promise<string> {
    const begun = await browser.request('POST', api('/factors/authenticator'));
    expect(begun.status, begun.text).toBe(200);
    const { secret } = begun.body as { secret: string };
    const confirmed = await browser.request('POST', api('/factors/authenticator/confirm'), {
      code: codeOf(secret),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    return secret;
  }

  it('lets admins alone read and set who must use two-step sign-in, in words of the roles the surface has', async () => {
    const { surface, policy, signedIn } = await tenantWithPeople();
    const other = await signedIn(surface.covered);
    const refused = await other.browser.request('PUT', policy, { required: 'everyone', roles: [] });
    expect([refused.status, errorOf(refused)]).toEqual([403, 'FORBIDDEN']);
    expect((await other.browser.get(policy)).status).toBe(403);

    const admin = await signedIn('admin');
    expect((await admin.browser.get(policy)).body).toEqual({ policy: { required: 'nobody', roles: [] } });
    const none = await admin.browser.request('PUT', policy, { required: 'roles', roles: [] });
    expect([none.status, errorOf(none)]).toEqual([400, 'BAD_USER_INPUT']);
    const unknown = await admin.browser.request('PUT', policy, {
      required: 'roles',
      roles: [name === 'console' ? 'member' : 'operator'],
    });
    expect([unknown.status, errorOf(unknown)]).toEqual([400, 'BAD_USER_INPUT']);
    const set = await admin.browser.request('PUT', policy, { required: 'roles', roles: [surface.covered] });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ policy: { required: 'roles', roles: [surface.covered] } });
    expect((await admin.browser.get(policy)).body).toEqual(set.body);
    // Roles are kept only when chosen roles are required.
    const everyone = await admin.browser.request('PUT', policy, {
      required: 'everyone',
      roles: [surface.covered],
    });
    expect(everyone.body).toEqual({ policy: { required: 'everyone', roles: [] } });
  });

  it('refuses a covered person without a factor every route but the session, sign-out and adding an app, until they add one', async () => {
    const { surface, policy, ownRoute, api, handle, signedIn } = await tenantWithPeople();
    const admin = await signedIn('admin');
    const covered = await signedIn(surface.covered);
    expect((await covered.browser.get(ownRoute)).status).toBe(200);
    await admin.browser.request('PUT', policy, { required: 'roles', roles: [surface.covered] });

    // At once, on their next request: the session says so, and every other route refuses.
    expect((await covered.browser.session()).body).toMatchObject({
      user: { email: covered.person.email },
      secondFactorRequired: true,
    });
    const setup = SETUP(surface.browserSurface.apiPath);
    const guarded = surface.app.signedInRoutes.filter(
      (route) =>
        route.surface === name && route.access !== 'public' && !setup.has(`${route.method} ${route.url}`),
    );
    expect(guarded.length).toBeGreaterThan(8);
    for (const route of guarded) {
      const url = route.url.replace(':slug', handle).replace(/:\w+/g, randomUUID());
      const changes = route.method !== 'GET' && route.method !== 'HEAD';
      const answer = await covered.browser.request(route.method as 'GET', url, changes ? {} : undefined);
      // A HEAD answer has no body to name its code.
      const expected = route.method === 'HEAD' ? [403, undefined] : [403, 'SECOND_FACTOR_REQUIRED'];
      expect([answer.status, errorOf(answer)], `${route.method} ${route.url}`).toEqual(expected);
    }
    const refused = await covered.browser.get(ownRoute);
    expect((refused.body as { error: { message: string } }).error.message).toContain(
      'requires two-step sign-in for your role',
    );
    expect((await covered.browser.get(api('/factors'))).status).toBe(200);

    // The admin's role is not covered: nothing changes for them.
    expect((await admin.browser.session()).body).toMatchObject({ secondFactorRequired: false });
    expect((await admin.browser.get(ownRoute)).status).toBe(200);

    // Once they have an app, they go on.
    await addApp(covered.browser, api);
    expect((await covered.browser.session()).body).toMatchObject({ secondFactorRequired: false });
    expect((await covered.browser.get(ownRoute)).status).toBe(200);
    // Signing out stays open to them all along, as the session does.
    expect((await covered.browser.request('DELETE', api('/session'))).status).toBe(200);
  });

  it("refuses to remove a covered person's last factor, and a password reset keeps it", async () => {
    const { surface, policy, api, signedIn } = await tenantWithPeople();
    const admin = await signedIn('admin');
    await admin.browser.request('PUT', policy, { required: 'roles', roles: [surface.covered] });
    const covered = await signedIn(surface.covered);
    const secret = await addApp(covered.browser, api);

    const removal = await covered.browser.request('DELETE', api('/factors/authenticator'), {
      code: codeOf(secret, 1),
    });
    expect([removal.status, errorOf(removal)]).toEqual([409, 'LAST_FACTOR_REQUIRED']);
    expect(
      ((await covered.browser.get(api('/factors'))).body as { authenticatorAddedAt: string | null })
        .authenticatorAddedAt,
    ).not.toBeNull();

    // A password reset: the app stays, and the new password still asks for a code.
    const { token } = await issueLink(world.db, { userId: covered.person.id, purpose: 'password_reset' });
    const other = new Browser(surface.app, undefined, surface.browserSurface);
    await other.session();
    const reset = await other.request('POST', api('/password-reset/confirm'), {
      token,
      password: 'a new and longer passphrase',
    });
    expect(reset.status, reset.text).toBe(200);
    const [kept] = await world.db.query<{ count: number }>(
      'select count(*)::int as count from authenticator_apps where user_id = $1 and confirmed_at is not null',
      [covered.person.id],
    );
    expect(kept?.count).toBe(1);
    const again = new Browser(surface.app, undefined, surface.browserSurface);
    const first = await again.signIn({
      email: covered.person.email,
      password: 'a new and longer passphrase',
    });
    expect(first.body).toMatchObject({ user: null, secondFactor: 'authenticator' });

    const second = await again.request('POST', api('/session/second-factor'), { code: codeOf(secret, 1) });
    expect(second.status, second.text).toBe(200);

    // Without the policy, the same removal goes through.
    await admin.browser.request('PUT', policy, { required: 'nobody', roles: [] });
    const removed = await again.request('DELETE', api('/factors/authenticator'), {
      password: 'a new and longer passphrase',
    });
    expect(removed.status, removed.text).toBe(200);
  });

  /** Adds a passkey of a software authenticator for the signed-in browser; answers its id. */
  async function addPasskey(browser: Browser, api: (path: string) => string): Promise<string> {
    const options = await browser.request('POST', api('/factors/passkeys/options'));
    expect(options.status, options.text).toBe(200);
    const added = await browser.request('POST', api('/factors/passkeys'), {
      name: 'Work laptop',
      passkey: new SoftwarePasskey().register(
        options.body as PublicKeyCredentialCreationOptionsJSON,
        surfaceOf().origin,
      ),
    });
    expect(added.status, added.text).toBe(200);
    return (added.body as { id: string }).id;
  }

  it('counts a passkey as a second factor: one may be added under the policy, the app goes while it stays, the last one stays, and a reset removes it', async () => {
    const { surface, policy, api, signedIn, resetFactors, ownRoute } = await tenantWithPeople();
    const admin = await signedIn('admin');
    await admin.browser.request('PUT', policy, { required: 'roles', roles: [surface.covered] });
    const covered = await signedIn(surface.covered);
    expect((await covered.browser.get(ownRoute)).status).toBe(403);

    // A passkey is enough: added while refused everything else, after which the person goes on.
    const passkeyId = await addPasskey(covered.browser, api);
    expect((await covered.browser.get(ownRoute)).status).not.toBe(403);
    expect((await covered.browser.get(api('/session'))).body).toMatchObject({ secondFactorRequired: false });

    // With an app beside it, the app may go; the passkey, then alone, stays.
    const secret = await addApp(covered.browser, api);
    const appRemoved = await covered.browser.request('DELETE', api('/factors/authenticator'), {
      code: codeOf(secret, 1),
    });
    expect(appRemoved.status, appRemoved.text).toBe(200);
    const last = await covered.browser.request('DELETE', api(`/factors/passkeys/${passkeyId}`), {
      password: covered.person.password,
    });
    expect([last.status, errorOf(last)]).toEqual([409, 'LAST_FACTOR_REQUIRED']);

    // The admin's reset removes it.
    const reset = await admin.browser.request('POST', resetFactors(covered.person.id));
    expect(reset.status, reset.text).toBe(200);
    const [left] = await world.db.query<{ count: number }>(
      'select count(*)::int as count from passkeys where user_id = $1',
      [covered.person.id],
    );
    expect(left?.count).toBe(0);
  });

  it('says beside a colleague with no second factor why their reset cannot work, and refuses it in the same words', async () => {
    const { surface, api, resetFactors, signedIn, ownRoute } = await tenantWithPeople();
    const colleague = await signedIn(surface.covered);
    const admin = await signedIn('admin');
    const people = await admin.browser.get(surface.name === 'console' ? api('/team') : ownRoute);
    expect(people.status, people.text).toBe(200);
    const row = (
      people.body as {
        people: { id: string; actions: { resetFactors: { allowed: boolean; reason: string } } }[];
      }
    ).people.find((person) => person.id === colleague.person.id);
    expect(row?.actions.resetFactors.allowed).toBe(false);
    expect(row?.actions.resetFactors.reason).toMatch(/has no two-step sign-in to reset/);

    const refused = await admin.browser.request('POST', resetFactors(colleague.person.id));
    expect([refused.status, errorOf(refused)]).toEqual([409, 'CONFLICT']);
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      row?.actions.resetFactors.reason,
    );
    // Nothing happened to them: still signed in.
    expect((await colleague.browser.get(api('/factors'))).status).toBe(200);
  });

  it("lets an admin reset a colleague's factors: their sessions end, they are mailed, and no one of another tenant is found", async () => {
    const { surface, api, resetFactors, signedIn } = await tenantWithPeople();
    const colleague = await signedIn(surface.covered);
    await addApp(colleague.browser, api);
    const nonAdmin = await signedIn(surface.covered);
    const refused = await nonAdmin.browser.request('POST', resetFactors(colleague.person.id));
    expect([refused.status, errorOf(refused)]).toEqual([403, 'FORBIDDEN']);

    const admin = await signedIn('admin');
    const own = await admin.browser.request('POST', resetFactors(admin.person.id));
    expect([own.status, errorOf(own)]).toEqual([409, 'CONFLICT']);

    const reset = await admin.browser.request('POST', resetFactors(colleague.person.id));
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body).toEqual({ sessionsEnded: 1, mailed: true });
    expect((await colleague.browser.get(api('/factors'))).status).toBe(401);
    const [left] = await world.db.query<{ apps: number; codes: number }>(
      `select (select count(*)::int from authenticator_apps where user_id = $1) as apps,
              (select count(*)::int from recovery_codes where user_id = $1) as codes`,
      [colleague.person.id],
    );
    expect(left).toEqual({ apps: 0, codes: 0 });
    const mail = await vi.waitFor(() => {
      const found = world.smtp.received.find(
        (each) =>
          each.envelope.to.includes(colleague.person.email.toLowerCase()) &&
          (each.parsed.subject ?? '').includes('two-step sign-in'),
      );
      if (!found) throw new Error('not mailed yet');
      return found;
    });
    expect(mail.parsed.text).toContain(
      `${admin.person.name} (${admin.person.email}) reset your two-step sign-in`,
    );
    expect(mail.parsed.text).toContain(
      'Your authenticator app, your recovery codes and your passkeys no longer work',
    );
    // They sign in with the password alone now.
    const back = await new Browser(surface.app, undefined, surface.browserSurface).signIn({
      email: colleague.person.email,
      password: colleague.person.password,
    });
    expect(back.body).toMatchObject({ user: { email: colleague.person.email } });

    const outsider = await outsiderOf(surface);
    const notFound = await admin.browser.request('POST', resetFactors(outsider.id));
    expect([notFound.status, errorOf(notFound)]).toEqual([404, 'NOT_FOUND']);

    if (name === 'console') {
      const activity = await admin.browser.get(api('/team/activity'));
      const entries = (activity.body as { entries: { action: string; actor: { label: string } }[] }).entries;
      expect(entries.map((entry) => entry.action)).toEqual(expect.arrayContaining(['factors_reset']));
      const [recorded] = await world.db.query<{ details: unknown; actorId: string }>(
        `select details, actor_id as "actorId" from team_changes where user_id = $1 and action = 'factors_reset'`,
        [colleague.person.id],
      );
      expect(recorded).toEqual({
        details: { removed: ['authenticator'], sessionsEnded: 1 },
        actorId: admin.person.id,
      });
    }
  });

  /** A person of a tenant of another (new) tenant of the same kind. */
  async function outsiderOf(surface: Surface): Promise<DashboardPerson> {
    const elsewhere = await surface.newTenant();
    return createPerson(world.db, { tenant: elsewhere.tenant, role: 'admin' });
  }
});

describe('the console team activity', () => {
  it('names a change of the policy by the admin who made it', async () => {
    const surface = world.surfaces.find((each) => each.name === 'console');
    if (!surface) throw new Error('no console');
    const { tenant, policy } = await surface.newTenant();
    const person = await createPerson(world.db, { tenant, role: 'admin' });
    const admin = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
      email: person.email,
      password: person.password,
    });
    await admin.request('PUT', policy, { required: 'roles', roles: ['admin', 'operator'] });
    // The admin is covered now, and has no app: they add one first.
    expect((await admin.get('/console/api/team/activity')).status).toBe(403);
    const begun = await admin.request('POST', '/console/api/factors/authenticator');
    const { secret } = begun.body as { secret: string };
    await admin.request('POST', '/console/api/factors/authenticator/confirm', { code: codeOf(secret) });
    const activity = await admin.get('/console/api/team/activity');
    expect(activity.status, activity.text).toBe(200);
    const [entry] = (activity.body as { entries: Record<string, unknown>[] }).entries;
    expect(entry).toMatchObject({
      kind: 'team',
      action: 'factor_policy_changed',
      actor: { id: person.id },
      person: null,
      details: {
        from: { required: 'nobody', roles: [] },
        to: { required: 'roles', roles: ['admin', 'operator'] },
      },
    });
  });
});
