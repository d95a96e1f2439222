/// <reference lib="dom" />
import type { CDPSession, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { PHONE, useChromium } from '../support/browser/browser.ts';
import { consoleForBrowser, signIn } from '../support/browser/console-chromium.ts';
import { useDashboardInChromium } from '../support/browser/dashboard-chromium.ts';
import { createPerson } from '../support/data/dashboard.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';

/**
 * Passkeys in Chromium, on the console and on the dashboard (issue 42, item 1), with Chromium's virtual
 * authenticator over CDP (a platform authenticator that keeps discoverable credentials and verifies the person):
 * a person signed in by password adds a passkey named "Work laptop" from the "Two-step sign-in" dialog, signs
 * out, and signs in with "Sign in with a passkey" without typing anything; signing in with the password then asks
 * for the second step, which "Use a passkey" finishes; they rename it and remove it given their password, after
 * which it signs no one in; once the device holds no passkey, the sign-in says so in words. The pages are on https://localhost:<port>, whose host name is the relying party id. Screenshots go to
 * test/web/screenshots/ as `<surface>-<database>-passkey-…png`.
 */

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
  },
): Promise<void> {
  const { cdp, authenticatorId } = await virtualAuthenticator(page);
  const { home, screenshot } = options;
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

describe('passkeys on the console in Chromium', () => {
  const chromium = useChromium('console');
  const world = madeBeforeAll('the console', async (closeAfterAll) => {
    const { db, origin } = await consoleForBrowser(closeAfterAll);
    const tenant = await createEmptyTenant(db);
    const person = await createPerson(db, {
      tenant: { kind: 'organization', id: tenant.organizationId },
      role: 'operator',
      name: 'Pat Passkey',
    });
    return { origin, person };
  });

  it('adds a passkey, signs out, signs in with it alone and as the second step, then renames and removes it', async () => {
    const page = await chromium.newPage(world.origin);
    await page.goto(`${world.origin}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await passkeyStory(page, world.person, { home: 'Work queue', screenshot: chromium.screenshot });
  });
});

describe('passkeys on the dashboard in Chromium', () => {
  const dashboard = useDashboardInChromium({ companies: 1 });
  let origin: string;
  let person: { email: string; password: string };
  beforeAll(async () => {
    const world = dashboard.world();
    origin = world.origin;
    person = await createPerson(world.database.db, {
      tenant: { kind: 'instance', id: world.portfolio.instanceId },
      role: 'member',
      name: 'Pat Passkey',
    });
  });

  it('adds a passkey on a phone, signs out, signs in with it alone and as the second step, then renames and removes it', async () => {
    const page = await dashboard.newBrowser(PHONE);
    await page.goto(`${origin}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await passkeyStory(page, person, { home: 'Companies', screenshot: dashboard.screenshot });
  });
});
