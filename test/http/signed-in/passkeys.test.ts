// Passkeys (issue 42, item 1), through the shared sign-in kit on both signed-in surfaces, on the apps `portico
// serve` builds, with a software authenticator (test/support/peers/webauthn-authenticator.ts) whose answers
// @simplewebauthn/server verifies for real: adding a named passkey, signing in with it without an address (it
// names the person and their tenant), using it as the second step after the password, each refusal with its own
// code (another challenge, origin, relying party, person; an unknown passkey; a counter that went backwards; one
// added twice), wrong answers counted with wrong codes, and removed or deactivated people signed in by nothing.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { deactivateUser, removeUser, type AccountTenant } from '../../../src/accounts/users.ts';
import { loadConfig } from '../../../src/config.ts';
import { createMailer } from '../../../src/mail/mailer.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  Browser,
  createPerson,
  sessionIdHash,
  uniqueEmail,
  type DashboardPerson,
  type SignInSurface,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance, type ApiResponse } from '../../support/data/portfolio.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { SoftwarePasskey, type AnswerChanges } from '../../support/peers/webauthn-authenticator.ts';

interface Surface {
  name: string;
  app: FastifyInstance;
  browserSurface: SignInSurface;
  /** Where the surface's pages are, as `portico serve` was told (servedAppsOf): what passkeys are made for. */
  origin: string;
  /** Two tenants of the surface's kind: one address may have an account in each. */
  tenant: AccountTenant;
  otherTenant: AccountTenant;
  /** What a sign-in by password names the other tenant by. */
  otherChoice: { organization: string } | { instance: string };
  /** The name of each tenant, as the session answer shows it. */
  tenantName: string;
  otherTenantName: string;
  /** A signed-in route of the surface's own that any role may read. */
  ownRoute: string;
}

const world = madeBeforeAll('the served apps, two organizations and two instances', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-passkeys-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ PORTICO_DATA_DIR: dataDir });
  const mailer = createMailer({ ...config, smtpUrl: undefined }, pino({ level: 'silent' }));
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });
  const organization = await createOrganization(db, { handle: uniqueHandle('keys'), name: 'Key Capital' });
  const other = await createOrganization(db, { handle: uniqueHandle('keys'), name: 'Other Capital' });
  const slug = uniqueHandle('keys');
  const instance = await createPortfolioInstance(db, { slug, name: 'Key Portfolio' });
  const otherInstance = await createPortfolioInstance(db, { name: 'Other Portfolio' });
  const surfaces: Surface[] = [
    {
      name: 'console',
      app: appOf('transactions'),
      browserSurface: { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE },
      origin: 'https://transactions.test',
      tenant: { kind: 'organization', id: organization.id },
      otherTenant: { kind: 'organization', id: other.id },
      otherChoice: { organization: other.handle },
      tenantName: 'Key Capital',
      otherTenantName: 'Other Capital',
      ownRoute: '/console/api/team',
    },
    {
      name: 'dashboard',
      app: appOf('portfolio'),
      browserSurface: { apiPath: '/dashboard/api', cookie: SESSION_COOKIE },
      origin: 'https://portfolio.test',
      tenant: { kind: 'instance', id: instance.instanceId },
      otherTenant: { kind: 'instance', id: otherInstance.instanceId },
      otherChoice: { instance: otherInstance.slug },
      tenantName: 'Key Portfolio',
      otherTenantName: 'Other Portfolio',
      ownRoute: `/dashboard/api/instances/${slug}/people`,
    },
  ];
  return { db, surfaces };
});

const errorOf = (answer: ApiResponse) => (answer.body as { error?: { code: string } }).error?.code;
const refusal = (answer: ApiResponse) => [answer.status, errorOf(answer)];

/** What a route of a surface's JSON API is called. */
const apiOf = (surface: Surface) => (path: string) => `${surface.browserSurface.apiPath}${path}`;

/** A new person of the tenant, signed in by password in a browser of their own. */
async function personOn(surface: Surface, options: { inOtherTenant?: boolean; email?: string } = {}) {
  const other = options.inOtherTenant ?? false;
  const person = await createPerson(world.db, {
    tenant: other ? surface.otherTenant : surface.tenant,
    role: 'admin',
    ...(options.email === undefined ? {} : { email: options.email }),
  });
  const browser = await new Browser(surface.app, undefined, surface.browserSurface).signInOrThrow({
    email: person.email,
    password: person.password,
    ...(other ? surface.otherChoice : {}),
  });
  return { person, browser };
}

/** Adds a new passkey of the software authenticator for the signed-in browser, named `name`. */
async function addPasskey(surface: Surface, browser: Browser, name = 'Work laptop') {
  const api = apiOf(surface);
  const options = await browser.request('POST', api('/factors/passkeys/options'));
  expect(options.status, options.text).toBe(200);
  const passkey = new SoftwarePasskey();
  const added = await browser.request('POST', api('/factors/passkeys'), {
    name,
    passkey: passkey.register(options.body as PublicKeyCredentialCreationOptionsJSON, surface.origin),
  });
  expect(added.status, added.text).toBe(200);
  return { passkey, added: added.body as { id: string; name: string; lastUsedAt: string | null } };
}

/** A new browser's sign-in with the passkey, without an address: its answer. */
async function signInWithPasskey(
  surface: Surface,
  passkey: SoftwarePasskey,
  changes: AnswerChanges = {},
  browser = new Browser(surface.app, undefined, surface.browserSurface),
): Promise<{ browser: Browser; answer: ApiResponse }> {
  const api = apiOf(surface);
  if (browser.csrfToken === undefined) await browser.session();
  const options = await browser.request('POST', api('/session/passkey/options'));
  expect(options.status, options.text).toBe(200);
  const answer = await browser.request('POST', api('/session/passkey'), {
    passkey: passkey.authenticate(
      options.body as PublicKeyCredentialRequestOptionsJSON,
      surface.origin,
      changes,
    ),
  });
  return { browser, answer };
}

/** Signs in with the password in a new browser: the half-signed-in browser, asked for its second step. */
async function firstStep(surface: Surface, person: DashboardPerson): Promise<Browser> {
  const browser = new Browser(surface.app, undefined, surface.browserSurface);
  const answer = await browser.signIn({ email: person.email, password: person.password });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toMatchObject({ user: null, secondFactor: 'passkey', secondFactors: ['passkey'] });
  return browser;
}

/** The second step with the passkey, in the half-signed-in browser. */
async function secondStep(surface: Surface, browser: Browser, passkey: SoftwarePasskey, changes = {}) {
  const api = apiOf(surface);
  const options = await browser.request('POST', api('/session/second-factor/passkey/options'));
  expect(options.status, options.text).toBe(200);
  return browser.request('POST', api('/session/second-factor/passkey'), {
    passkey: passkey.authenticate(
      options.body as PublicKeyCredentialRequestOptionsJSON,
      surface.origin,
      changes,
    ),
  });
}

describe.each(['console', 'dashboard'])('passkeys on the %s', (name) => {
  const surfaceOf = () => {
    const found = world.surfaces.find((surface) => surface.name === name);
    if (!found) throw new Error(`no surface ${name}`);
    return found;
  };

  it('adds a named passkey, lists it, and signs in with it without an address, as a sign-in by password is recorded', async () => {
    const surface = surfaceOf();
    const api = apiOf(surface);
    const { person, browser } = await personOn(surface);
    const { passkey, added } = await addPasskey(surface, browser);
    expect(added).toMatchObject({ name: 'Work laptop', lastUsedAt: null });
    const factors = await browser.get(api('/factors'));
    expect(factors.body).toMatchObject({
      authenticatorAddedAt: null,
      passkeys: [{ id: added.id, name: 'Work laptop', lastUsedAt: null }],
    });

    const { browser: other, answer } = await signInWithPasskey(surface, passkey);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ user: { email: person.email } });
    expect((await other.get(surface.ownRoute)).status).toBe(200);
    // The session is on the person's list, as one signed in by password is.
    const sessions = (await other.get(api('/sessions'))).body as { sessions: { current: boolean }[] };
    expect(sessions.sessions.filter((session) => session.current)).toHaveLength(1);
    expect(sessions.sessions.length).toBeGreaterThanOrEqual(2);
    const listed = (await other.get(api('/factors'))).body as { passkeys: { lastUsedAt: string | null }[] };
    expect(listed.passkeys[0]?.lastUsedAt).not.toBeNull();
  });

  it('signs in to the tenant of the passkey, when one address has an account in two', async () => {
    const surface = surfaceOf();
    const email = uniqueEmail('two-tenants');
    await personOn(surface, { email });
    const { browser } = await personOn(surface, { email, inOtherTenant: true });
    const { passkey } = await addPasskey(surface, browser, 'Phone');
    const { answer } = await signInWithPasskey(surface, passkey);
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.stringify(answer.body)).toContain(surface.otherTenantName);
    expect(JSON.stringify(answer.body)).not.toContain(surface.tenantName);
  });

  it('asks a person with a passkey for it after the password, and refuses the passkey of someone else', async () => {
    const surface = surfaceOf();
    const { person, browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    const { browser: othersBrowser } = await personOn(surface);
    const { passkey: others } = await addPasskey(surface, othersBrowser);

    const pending = await firstStep(surface, person);
    expect((await pending.get(surface.ownRoute)).status).toBe(401);
    const options = await pending.request('POST', apiOf(surface)('/session/second-factor/passkey/options'));
    expect((options.body as PublicKeyCredentialRequestOptionsJSON).allowCredentials).toEqual([
      expect.objectContaining({ id: passkey.id }),
    ]);
    const refused = await secondStep(surface, pending, others);
    expect(refusal(refused)).toEqual([403, 'PASSKEY_OF_ANOTHER_PERSON']);
    expect((await pending.get(surface.ownRoute)).status).toBe(401);
    const signedIn = await secondStep(surface, pending, passkey);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body).toMatchObject({ user: { email: person.email } });
    expect((await pending.get(surface.ownRoute)).status).toBe(200);
  });

  it('refuses a second step with a passkey that no first step began', async () => {
    const surface = surfaceOf();
    const browser = new Browser(surface.app, undefined, surface.browserSurface);
    await browser.session();
    const options = await browser.request('POST', apiOf(surface)('/session/second-factor/passkey/options'));
    expect(refusal(options)).toEqual([401, 'UNAUTHENTICATED']);
  });

  it('refuses an answer to no challenge, to another, to one used or past its 5 minutes, and to one of another purpose', async () => {
    const surface = surfaceOf();
    const api = apiOf(surface);
    const { browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    const other = new Browser(surface.app, undefined, surface.browserSurface);
    await other.session();

    const options = await other.request('POST', api('/session/passkey/options'));
    const answer = passkey.authenticate(
      options.body as PublicKeyCredentialRequestOptionsJSON,
      surface.origin,
    );
    const unasked = new Browser(surface.app, undefined, surface.browserSurface);
    await unasked.session();
    const none = await unasked.request('POST', api('/session/passkey'), { passkey: answer });
    expect(refusal(none)).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);

    const another = await signInWithPasskey(surface, passkey, {
      challenge: randomBytes(32).toString('base64url'),
    });
    expect(refusal(another.answer)).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
    expect((another.answer.body as { error: { message: string } }).error.message).toMatch(/another request/);

    const signedIn = await other.request('POST', api('/session/passkey'), { passkey: answer });
    expect(signedIn.status, signedIn.text).toBe(200);
    const used = await other.request('POST', api('/session/passkey'), { passkey: answer });
    expect(refusal(used)).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);

    // Asked for more than 5 minutes ago: its time in the session is moved back.
    const late = new Browser(surface.app, undefined, surface.browserSurface);
    await late.session();
    const lateOptions = await late.request('POST', api('/session/passkey/options'));
    await world.db.query(
      `update user_sessions set data = jsonb_set(data, '{passkeyChallenge,issuedAt}', to_jsonb($2::bigint))
       where id_hash = $1`,
      [sessionIdHash(late.sessionId()), Date.now() - 5 * 60_000 - 1000],
    );
    const expired = await late.request('POST', api('/session/passkey'), {
      passkey: passkey.authenticate(
        lateOptions.body as PublicKeyCredentialRequestOptionsJSON,
        surface.origin,
      ),
    });
    expect(refusal(expired)).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
    expect((expired.body as { error: { message: string } }).error.message).toMatch(/5 minutes/);

    // A challenge made to sign in does not add a passkey.
    const signInOptions = await browser.request('POST', api('/session/passkey/options'));
    const registration = new SoftwarePasskey().register(
      {
        ...(signInOptions.body as PublicKeyCredentialRequestOptionsJSON),
        rp: { id: new URL(surface.origin).hostname, name: 'Portico' },
        user: { id: randomBytes(16).toString('base64url'), name: 'x', displayName: 'x' },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      },
      surface.origin,
    );
    const mixed = await browser.request('POST', api('/factors/passkeys'), {
      name: 'Mixed',
      passkey: registration,
    });
    expect(refusal(mixed)).toEqual([400, 'PASSKEY_CHALLENGE_INVALID']);
  });

  it('refuses an answer from another origin or for another relying party, to add a passkey or to sign in', async () => {
    const surface = surfaceOf();
    const api = apiOf(surface);
    const { browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);

    const origin = await signInWithPasskey(surface, passkey, { origin: 'https://portico.example.net' });
    expect(refusal(origin.answer)).toEqual([400, 'PASSKEY_ORIGIN_INVALID']);
    expect((origin.answer.body as { error: { message: string } }).error.message).toContain(surface.origin);
    const rpId = await signInWithPasskey(surface, passkey, { rpId: 'portico.example.net' });
    expect(refusal(rpId.answer)).toEqual([400, 'PASSKEY_RP_ID_INVALID']);

    for (const [changes, code] of [
      [{ origin: 'https://portico.example.net' }, 'PASSKEY_ORIGIN_INVALID'],
      [{ rpId: 'portico.example.net' }, 'PASSKEY_RP_ID_INVALID'],
    ] as const) {
      const options = await browser.request('POST', api('/factors/passkeys/options'));
      const added = await browser.request('POST', api('/factors/passkeys'), {
        name: 'Elsewhere',
        passkey: new SoftwarePasskey().register(
          options.body as PublicKeyCredentialCreationOptionsJSON,
          surface.origin,
          changes,
        ),
      });
      expect(refusal(added)).toEqual([400, code]);
    }
    const factors = (await browser.get(api('/factors'))).body as { passkeys: unknown[] };
    expect(factors.passkeys).toHaveLength(1);
  });

  it('refuses a passkey it does not know, one of the other surface, and one whose device did not verify the person', async () => {
    const surface = surfaceOf();
    const unknown = await signInWithPasskey(surface, new SoftwarePasskey());
    expect(refusal(unknown.answer)).toEqual([401, 'PASSKEY_UNKNOWN']);

    // A person of the other surface's kind of tenant, answering for this surface's site: known there only.
    const elsewhere = world.surfaces.find((each) => each.name !== surface.name);
    if (!elsewhere) throw new Error('one surface only');
    const { browser } = await personOn(elsewhere);
    const { passkey: theirs } = await addPasskey(elsewhere, browser);
    const crossed = await signInWithPasskey(surface, theirs, { rpId: new URL(surface.origin).hostname });
    expect(refusal(crossed.answer)).toEqual([401, 'PASSKEY_UNKNOWN']);

    const { browser: mine } = await personOn(surface);
    const { passkey } = await addPasskey(surface, mine);
    const unverified = await signInWithPasskey(surface, passkey, { userVerified: false });
    expect(refusal(unverified.answer)).toEqual([400, 'PASSKEY_INVALID']);
    expect((await signInWithPasskey(surface, passkey)).answer.status).toBe(200);
  });

  it('refuses a copy of a passkey whose counter went backwards, and one answer used twice', async () => {
    const surface = surfaceOf();
    const { browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    const copy = passkey.clone();
    expect((await signInWithPasskey(surface, passkey)).answer.status).toBe(200);
    expect((await signInWithPasskey(surface, passkey)).answer.status).toBe(200);
    // The copy counts from where the original was when it was copied: behind it now.
    const cloned = await signInWithPasskey(surface, copy);
    expect(refusal(cloned.answer)).toEqual([409, 'PASSKEY_COUNTER_BEHIND']);
    const same = await signInWithPasskey(surface, passkey, { counter: passkey.counter });
    expect(refusal(same.answer)).toEqual([409, 'PASSKEY_COUNTER_BEHIND']);
    expect((await signInWithPasskey(surface, passkey)).answer.status).toBe(200);
  });

  it('refuses to add a passkey added already, by the person or by someone else', async () => {
    const surface = surfaceOf();
    const api = apiOf(surface);
    const { browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    const { browser: othersBrowser } = await personOn(surface);
    for (const each of [browser, othersBrowser]) {
      const options = await each.request('POST', api('/factors/passkeys/options'));
      const again = await each.request('POST', api('/factors/passkeys'), {
        name: 'Again',
        passkey: passkey.register(options.body as PublicKeyCredentialCreationOptionsJSON, surface.origin),
      });
      expect(refusal(again)).toEqual([409, 'PASSKEY_EXISTS']);
    }
    // Its own options exclude the passkeys the person has.
    const options = await browser.request('POST', api('/factors/passkeys/options'));
    expect((options.body as PublicKeyCredentialCreationOptionsJSON).excludeCredentials).toEqual([
      expect.objectContaining({ id: passkey.id }),
    ]);
  });

  it('renames a passkey, and removes it given the password, after which it signs no one in', async () => {
    const surface = surfaceOf();
    const api = apiOf(surface);
    const { person, browser } = await personOn(surface);
    const { passkey, added } = await addPasskey(surface, browser);
    const renamed = await browser.request('PATCH', api(`/factors/passkeys/${added.id}`), { name: ' Phone ' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ id: added.id, name: 'Phone' });
    const blank = await browser.request('PATCH', api(`/factors/passkeys/${added.id}`), { name: '  ' });
    expect(refusal(blank)).toEqual([400, 'BAD_USER_INPUT']);

    // Someone else's passkey is none of theirs to rename or remove.
    const { browser: othersBrowser } = await personOn(surface);
    const theirs = await othersBrowser.request('PATCH', api(`/factors/passkeys/${added.id}`), {
      name: 'Mine',
    });
    expect(refusal(theirs)).toEqual([404, 'NOT_FOUND']);
    const theirsRemoved = await othersBrowser.request('DELETE', api(`/factors/passkeys/${added.id}`), {
      password: person.password,
    });
    expect(refusal(theirsRemoved)).toEqual([404, 'NOT_FOUND']);

    const unproven = await browser.request('DELETE', api(`/factors/passkeys/${added.id}`), {});
    expect(refusal(unproven)).toEqual([400, 'BAD_USER_INPUT']);
    const wrong = await browser.request('DELETE', api(`/factors/passkeys/${added.id}`), {
      password: 'not it',
    });
    expect(wrong.status).toBe(400);
    const removed = await browser.request('DELETE', api(`/factors/passkeys/${added.id}`), {
      password: person.password,
    });
    expect(removed.status, removed.text).toBe(200);
    expect((await browser.get(api('/factors'))).body).toMatchObject({ passkeys: [] });
    const after = await signInWithPasskey(surface, passkey);
    expect(refusal(after.answer)).toEqual([401, 'PASSKEY_UNKNOWN']);
    // And the password alone signs in again.
    const fresh = new Browser(surface.app, undefined, surface.browserSurface);
    const answer = await fresh.signIn({ email: person.email, password: person.password });
    expect(answer.body).toMatchObject({ user: { email: person.email } });
  });

  it('signs no deactivated or removed person in with their passkey', async () => {
    const surface = surfaceOf();
    const { person: admin } = await personOn(surface);
    const { person, browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    await deactivateUser(world.db, surface.tenant, { id: person.id, by: admin.id });
    const deactivated = await signInWithPasskey(surface, passkey);
    expect(refusal(deactivated.answer)).toEqual([401, 'PASSKEY_UNKNOWN']);

    const { person: removedPerson, browser: removedBrowser } = await personOn(surface);
    const { passkey: removedPasskey } = await addPasskey(surface, removedBrowser);
    await removeUser(world.db, surface.tenant, removedPerson.id);
    const removed = await signInWithPasskey(surface, removedPasskey);
    expect(refusal(removed.answer)).toEqual([401, 'PASSKEY_UNKNOWN']);
  });

  it('counts wrong passkey answers as wrong codes: past 10 for a person, even their right passkey is not checked', async () => {
    const surface = surfaceOf();
    const { person, browser } = await personOn(surface);
    const { passkey } = await addPasskey(surface, browser);
    const pending = await firstStep(surface, person);
    for (let n = 0; n < 10; n += 1) {
      const wrong = await secondStep(surface, pending, passkey, { origin: 'https://portico.example.net' });
      expect(refusal(wrong)).toEqual([400, 'PASSKEY_ORIGIN_INVALID']);
    }
    const right = await secondStep(surface, pending, passkey);
    expect(refusal(right)).toEqual([429, 'RATE_LIMITED']);
    // And without an address: the passkey names the same person, whose tries are used up.
    const alone = await signInWithPasskey(surface, passkey);
    expect(refusal(alone.answer)).toEqual([429, 'RATE_LIMITED']);
  });
});
