/// <reference lib="dom" />
import * as OTPAuth from 'otpauth';
import type { CDPSession, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { trustProviderCertificates } from '../../src/accounts/sso/identity-providers.ts';
import { DESKTOP, PHONE, useChromium } from '../support/browser/browser.ts';
import { signedInSurfacesForBrowser } from '../support/browser/surfaces-chromium.ts';
import { countOf, createPerson, mailTo, uniqueEmail } from '../support/data/dashboard.ts';
import { createPortfolioInstance } from '../support/data/portfolio.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { startOidcPeer } from '../support/peers/oidc-provider.ts';
import { testTls } from '../support/peers/tls-listener.ts';

/**
 * Sign-in a fund's security review accepts, end to end in Chromium over real HTTPS on both signed-in surfaces
 * (issue 42), on the apps `portico serve` builds: a person adds a passkey in Chromium's virtual authenticator (over
 * CDP), signs out and signs in with it alone and as the second step, then renames and removes it; they add an authenticator app, signs out and signs in with
 * its code, then once with a recovery code, whose second use is refused; they see where they are signed in and
 * end another of their sessions, whose browser's next request is signed out; a sign-in from a new browser is
 * mailed through real SMTP. An admin requires a second factor of a role, and a person of that role without one is
 * led to add one before anything else. An admin connects an identity provider (a real `oidc-provider` on
 * 127.0.0.1), and a new person of its domain signs in through it. Screenshots go to test/web/screenshots/ as `<surface>-<database>-sign-in-…png`.
 */
const world = madeBeforeAll('both signed-in surfaces', async (closeAfterAll) => {
  const served = await signedInSurfacesForBrowser(closeAfterAll);
  // An identity provider on 127.0.0.1, another site than the pages' localhost, as a real one is.
  trustProviderCertificates((await testTls()).cert);
  closeAfterAll(() => {
    trustProviderCertificates(undefined);
  });
  const idp = await startOidcPeer({
    redirectUris: [
      `${served.console.origin}/console/api/session/sso/callback`,
      `${served.dashboard.origin}/dashboard/api/session/sso/callback`,
    ],
  });
  closeAfterAll(() => idp.close());
  const organization = await createEmptyTenant(served.db);
  const instance = await createPortfolioInstance(served.db, { name: 'Sign-in Portfolio' });
  return {
    ...served,
    idp,
    tenants: {
      console: { kind: 'organization' as const, id: organization.organizationId },
      dashboard: { kind: 'instance' as const, id: instance.instanceId },
    },
    /** Where each surface's admins set who must use two-step sign-in. */
    policyPages: { console: '/console/team', dashboard: `/dashboard/${instance.slug}/settings/people` },
  };
});

/** A virtual authenticator for the page, as a laptop's fingerprint reader is: its id, to clear its passkeys. */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * The story on a surface whose sign-in page is open in `page`: sign in by password (landing on `home`), add a
 * passkey, sign out, sign in with it, then with the password and the passkey as the second step.
 */
async function passkeyStory(
  page: Page,
  person: { email: string; password: string },
  options: {
    home: string;
    screenshot: (page: Page, shot: string) => Promise<void>;
    signIn: (page: Page, person: { email: string; password: string }) => Promise<void>;
  },
): Promise<void> {
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  const { home, screenshot, signIn } = options;
  await signIn(page, person);
  await page.getByRole('heading', { name: home }).waitFor();

  await page.getByRole('button', { name: /account menu$/ }).click();
  await page.getByRole('menuitem', { name: 'Two-step sign-in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Two-step sign-in' });
  await dialog.getByText('You have no passkey yet.').waitFor();
  await dialog.getByRole('button', { name: 'Add a passkey' }).click();
  // A name is asked first.
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  await dialog.getByText('Name the passkey, e.g. "Work laptop" or "Phone".').waitFor();
  await dialog.getByLabel('Name of the passkey').fill('Work laptop');
  await screenshot(page, 'passkey-name');
  await dialog.getByRole('button', { name: 'Create passkey' }).click();
  const passkeys = dialog.getByRole('list', { name: 'Your passkeys' });
  await passkeys.getByText('Work laptop').waitFor();
  await expect.poll(() => passkeys.textContent()).toContain('last used never');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]?.isResidentCredential).toBe(true);
  expect(credentials[0]?.rpId).toBe('localhost');
  await screenshot(page, 'passkey-added');
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('button', { name: /account menu$/ }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  await screenshot(page, 'passkey-sign-in');
  // Without typing the address: the passkey names the person.
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByRole('heading', { name: home }).waitFor();

  // With the password, the passkey is asked as the second step.
  await page.getByRole('button', { name: /account menu$/ }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  await signIn(page, person);
  await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
  await screenshot(page, 'passkey-second-step');
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByRole('heading', { name: home }).waitFor();

  // The dialog lists it as used now; it is renamed, then removed given the password.
  await page.getByRole('button', { name: /account menu$/ }).click();
  await page.getByRole('menuitem', { name: 'Two-step sign-in' }).click();
  await expect.poll(() => passkeys.textContent()).not.toContain('last used never');
  await dialog.getByRole('button', { name: 'Rename Work laptop' }).click();
  await dialog.getByLabel('New name').fill('Old laptop');
  await dialog.getByRole('button', { name: 'Save name' }).click();
  await passkeys.getByText('Old laptop').waitFor();
  await dialog.getByRole('button', { name: 'Remove Old laptop' }).click();
  await dialog.getByLabel('Your password', { exact: true }).fill(person.password);
  await dialog.getByRole('button', { name: 'Remove passkey' }).click();
  await dialog.getByText('You have no passkey yet.').waitFor();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: /account menu$/ }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByText('You have signed out.').waitFor();
  // The device still holds it, but it signs no one in; once the device forgets it, the page says so too.
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByText(/This passkey does not sign in to an account here/).waitFor();
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.getByText(/No passkey was used/).waitFor();
  await screenshot(page, 'passkey-none');
}

const SURFACES = [
  { name: 'console', path: '/console', home: 'Work queue', covered: 'Operator', role: 'operator' },
  { name: 'dashboard', path: '/dashboard', home: 'Companies', covered: 'Member', role: 'member' },
] as const;

let domains = 0;
/** An e-mail domain of this file's own: each covered by one tenant's single sign-on. */
const uniqueDomain = () =>
  `sso-${String((domains += 1))}-${uniqueEmail('x').split('@')[0] ?? ''}.example.com`;

for (const surface of SURFACES) {
  describe(`signing in to the ${surface.name} in Chromium`, () => {
    const chromium = useChromium(surface.name, { otherOrigins: () => [world.idp.issuer] });
    const served = () => world[surface.name];

    /** Types the address and password on the sign-in form the page shows. */
    async function typePassword(page: Page, person: { email: string; password: string }): Promise<void> {
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('E-mail address').fill(person.email);
      await page.getByLabel('Password', { exact: true }).fill(person.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }

    /** A page of a new browser (its own cookies) on the surface, signed in as `person` at its home. */
    async function signedInPage(person: { email: string; password: string }): Promise<Page> {
      const { origin } = served();
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}${surface.path}`);
      await typePassword(page, person);
      await page.getByRole('heading', { name: surface.home }).waitFor();
      return page;
    }

    /** Opens an item of the person's menu. */
    async function openMenu(page: Page, item: string): Promise<void> {
      await page.getByRole('button', { name: /account menu/ }).click();
      await page.getByRole('menuitem', { name: item }).click();
    }

    async function signOut(page: Page): Promise<void> {
      await openMenu(page, 'Sign out');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    }

    /**
     * In the open "Two-step sign-in" dialog, adds an authenticator app: "scanned" from the secret the page writes
     * out beside its QR code, confirmed with the code the app computes. Answers the dialog, at its recovery codes,
     * and the app.
     */
    async function addAuthenticatorApp(page: Page): Promise<{ dialog: Locator; app: OTPAuth.TOTP }> {
      const dialog = page.getByRole('dialog', { name: 'Two-step sign-in' });
      await dialog.getByRole('button', { name: 'Add an authenticator app' }).click();
      const secret =
        (await dialog
          .getByText(/^Secret:/)
          .locator('code')
          .textContent()) ?? '';
      const app = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret.replace(/\s/g, '')) });
      await dialog.getByLabel('Code from your app').fill(app.generate());
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      return { dialog, app };
    }

    /** Signs in with the password and then `code`, as a code of the app or (`recovery`) a recovery code. */
    async function signInWithCode(
      page: Page,
      person: { email: string; password: string },
      code: string,
      recovery = false,
    ): Promise<void> {
      await typePassword(page, person);
      const field = page.getByLabel('Code from your app');
      await field.waitFor();
      if (recovery) await page.getByRole('button', { name: 'Use a recovery code' }).click();
      await page.getByLabel(recovery ? 'Recovery code' : 'Code from your app').fill(code);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }

    it(
      'adds a passkey, signs out, signs in with it alone and as the second step, then renames and removes it',
      { timeout: 60_000 },
      async () => {
        const person = await createPerson(world.db, {
          tenant: world.tenants[surface.name],
          role: surface.name === 'console' ? 'operator' : 'member',
          name: 'Pat Passkey',
          email: uniqueEmail('pat'),
        });
        const { origin } = served();
        // The dashboard's on a phone.
        const page = await chromium.newPage(origin, {
          viewport: surface.name === 'dashboard' ? PHONE : DESKTOP,
        });
        await page.goto(`${origin}${surface.path}`);
        await passkeyStory(page, person, {
          home: surface.home,
          screenshot: chromium.screenshot,
          signIn: typePassword,
        });
      },
    );

    it(
      'adds an authenticator app, signs in with its code, and with a recovery code once: its second use is refused',
      { timeout: 60_000 },
      async () => {
        const person = await createPerson(world.db, {
          tenant: world.tenants[surface.name],
          role: 'admin',
          name: 'Ada Factors',
          email: uniqueEmail('ada'),
        });
        const page = await signedInPage(person);
        await openMenu(page, 'Two-step sign-in');
        const { dialog, app } = await addAuthenticatorApp(page);
        const codes = dialog.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
        await expect.poll(() => codes.count()).toBe(10);
        const recoveryCode = (await codes.first().textContent()) ?? '';
        await chromium.screenshotPhoneAndDesktop(page, 'sign-in-recovery-codes');
        await dialog.getByRole('button', { name: 'I have kept them' }).click();
        await signOut(page);

        // The code of the app's next step (a code of the step that confirmed it was used already).
        await signInWithCode(page, person, app.generate({ timestamp: Date.now() + 30_000 }));
        await page.getByRole('heading', { name: surface.home }).waitFor();
        await signOut(page);

        await signInWithCode(page, person, recoveryCode, true);
        await page.getByRole('heading', { name: surface.home }).waitFor();
        await signOut(page);

        await signInWithCode(page, person, recoveryCode, true);
        await page.getByText('This recovery code has been used already (each works once)').first().waitFor();
        await chromium.screenshot(page, 'sign-in-recovery-code-used');
      },
    );

    it(
      'leads a person of a role the admin requires a second factor of, who has none, to add one before anything else',
      { timeout: 60_000 },
      async () => {
        const { origin } = served();
        const tenant = world.tenants[surface.name];
        const admin = await createPerson(world.db, { tenant, role: 'admin', name: 'Ada Admin' });
        const colleague = await createPerson(world.db, { tenant, role: surface.role, name: 'Otto Covered' });

        // The admin requires two-step sign-in of the role, on the page where they manage people.
        const page = await chromium.newPage(origin);
        await page.goto(`${origin}${world.policyPages[surface.name]}`);
        await typePassword(page, admin);
        const policy = page.getByRole('region', { name: 'Two-step sign-in' });
        await policy.getByRole('radio', { name: 'Required for chosen roles' }).click();
        await policy.getByRole('checkbox', { name: surface.covered }).click();
        await policy.getByRole('button', { name: 'Save two-step sign-in' }).click();
        await policy.getByText(/^Saved: those it covers/).waitFor();
        await chromium.screenshot(page, 'sign-in-policy');
        // The console's team activity says who changed it.
        if (surface.name === 'console')
          await page.getByText('changed who must use two-step sign-in').waitFor();

        // The colleague signs in: the page offers nothing but setting up a second step, and signing out.
        const covered = await chromium.newPage(origin);
        await covered.goto(`${origin}${surface.path}`);
        await typePassword(covered, colleague);
        await covered.getByRole('heading', { name: 'Your organization requires two-step sign-in' }).waitFor();
        expect(await covered.getByRole('link', { name: surface.home }).count()).toBe(0);
        await chromium.screenshotPhoneAndDesktop(covered, 'sign-in-policy-required');

        // They add an app (its secret as the page writes it, the code as the app computes it), and go on.
        await covered.getByRole('button', { name: 'Set up two-step sign-in' }).click();
        const { dialog } = await addAuthenticatorApp(covered);
        await dialog.getByRole('button', { name: 'I have kept them' }).click();
        await covered.getByRole('heading', { name: surface.home }).waitFor();
      },
    );

    it(
      'connects an identity provider, and a new person of its domain signs in through it with the role for new accounts',
      { timeout: 60_000 },
      async () => {
        const { origin } = served();
        const { idp } = world;
        const domain = uniqueDomain();
        const admin = await createPerson(world.db, {
          tenant: world.tenants[surface.name],
          role: 'admin',
          name: 'Ada Admin',
          email: `ada@${domain}`,
        });
        const page = await chromium.newPage(origin);
        await page.goto(`${origin}${world.policyPages[surface.name]}`);
        await typePassword(page, admin);
        const section = page.getByRole('region', { name: 'Single sign-on' });
        await expect
          .poll(() => section.getByLabel('Callback URL').inputValue())
          .toBe(`${origin}${surface.path}/api/session/sso/callback`);
        await section.getByLabel('Issuer URL').fill(idp.issuer);
        await section.getByLabel('Client id').fill(idp.clientId);
        await section.getByLabel('Client secret').fill(idp.clientSecret);
        await section.getByLabel('E-mail domains').fill(domain);
        await section.getByRole('checkbox', { name: /Make an account/ }).click();
        await section.getByRole('combobox', { name: 'Role of a new account' }).click();
        await page.getByRole('option', { name: surface.covered }).click();
        await section.getByRole('button', { name: 'Connect' }).click();
        await section.getByText('Single sign-on is saved').waitFor();
        await section.getByText('A secret is set; it is never shown.').waitFor();
        // From the top, as the page is first seen: nothing under the sticky header.
        await page.evaluate(() => {
          window.scrollTo(0, 0);
        });
        await chromium.screenshot(page, 'sign-in-sso-connected');

        // A person of the domain without an account, on a phone, goes through the identity provider and back.
        const email = `nia@${domain}`;
        idp.account(email, { name: 'Nia Newcomer' });
        const person = await chromium.newPage(origin, { viewport: PHONE });
        await person.goto(`${origin}${surface.path}/sign-in`);
        await person.getByRole('button', { name: 'Sign in with SSO' }).click();
        await person.getByLabel('Work e-mail address').fill(email);
        await chromium.screenshot(person, 'sign-in-sso');
        await person.getByRole('button', { name: 'Continue with SSO' }).click();
        await person.getByRole('heading', { name: surface.home }).waitFor();
        const tenant = world.tenants[surface.name];
        const column = tenant.kind === 'organization' ? 'organization_id' : 'instance_id';
        expect(
          await countOf(
            world.db,
            `select count(*) from users where email = $1 and role = $2 and ${column} = $3`,
            [email, surface.role, tenant.id],
          ),
        ).toBe(1);
        // The admin sees her with that role (the console's activity says she joined).
        await page.reload();
        await expect
          .poll(() => page.getByRole('row', { name: /Nia Newcomer/ }).innerText())
          .toContain(surface.covered);
        if (surface.name === 'console')
          await page.getByText('joined through single sign-on').first().waitFor();

        // A refusal comes back to the sign-in page, which says why in words.
        const stranger = await chromium.newPage(origin, { viewport: PHONE });
        await stranger.goto(`${origin}${surface.path}/sign-in?sso_error=SSO_NO_ACCOUNT`);
        await stranger.getByRole('alert').getByText('You have no account here yet').waitFor();
        await chromium.screenshot(stranger, 'sign-in-sso-refused');
      },
    );

    it(
      'mails a sign-in from a new browser, and ends that browser’s session from the first, whose next request is signed out',
      { timeout: 60_000 },
      async () => {
        const { smtp } = world;
        const person = await createPerson(world.db, {
          tenant: world.tenants[surface.name],
          role: 'admin',
          name: 'Grace Sessions',
          email: uniqueEmail('grace'),
        });
        const mailedBefore = smtp.received.length;
        const first = await signedInPage(person);
        const second = await signedInPage(person);

        // The second browser is new to Grace: she is mailed, through SMTP; her first sign-in mailed nothing.
        const mail = await mailTo(smtp, person.email, { after: mailedBefore });
        expect(mail.parsed.subject).toMatch(/^New sign-in to /);
        expect(mail.parsed.text).toMatch(/Chrome on Linux from (127\.0\.0\.1|::1)/);
        expect(
          smtp.received.slice(mailedBefore).filter((each) => each.envelope.to.includes(person.email)),
        ).toHaveLength(1);

        // From the first browser she sees both sessions, and ends the other.
        await first.getByRole('button', { name: /account menu/ }).click();
        await first.getByRole('menuitem', { name: 'Sessions' }).click();
        const dialog = first.getByRole('dialog', { name: 'Sessions' });
        const rows = dialog.getByRole('row').filter({ hasText: 'Chrome on Linux' });
        await expect.poll(() => rows.count()).toBe(2);
        await rows.filter({ hasText: 'This session' }).waitFor();
        await chromium.screenshotPhoneAndDesktop(first, 'sign-in-sessions');
        await rows
          .filter({ hasNotText: 'This session' })
          .getByRole('button', { name: /^End the session of Chrome on Linux/ })
          .click();
        await expect.poll(() => rows.count()).toBe(1);

        // The second browser's next request is signed out: it is asked to sign in again.
        await second.reload();
        await second.getByRole('heading', { name: 'Sign in' }).waitFor();
        await first.reload();
        await first.getByRole('heading', { name: surface.home }).waitFor();
      },
    );
  });
}
