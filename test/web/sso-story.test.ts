/// <reference lib="dom" />
// Single sign-on in Chromium (issue 42, item 4): an organization's admin connects a real identity provider
// (`oidc-provider` on loopback, over HTTPS) on the console's team page, and a person of its domain who has no
// account yet signs in through it, getting one with the role the admin chose.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustProviderCertificates } from '../../src/accounts/sso/identity-providers.ts';
import { createOrganization } from '../../src/transactions/organizations.ts';
import {
  accessibilityViolations,
  launchChromium,
  PHONE,
  recordedContext,
  SCREENSHOTS,
  type RecordedContext,
} from '../support/browser/browser.ts';
import { consoleForBrowser, signIn } from '../support/browser/console-chromium.ts';
import { countOf, createPerson } from '../support/data/dashboard.ts';
import { uniqueHandle } from '../support/data/transactions.ts';
import { DIALECT } from '../support/db/database.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { startOidcPeer } from '../support/peers/oidc-provider.ts';
import { testTls } from '../support/peers/tls-listener.ts';

/**
 * The story's pages reach two origins, the console's and the identity provider's, so the file opens its contexts
 * itself rather than through `useChromium` (whose pages reach their own origin only), and checks the same: no
 * other origin asked, no Content-Security-Policy refusal or uncaught error, each shot accessible.
 */
describe('single sign-on in Chromium', () => {
  let browser: Browser | undefined;
  const contexts: RecordedContext[] = [];
  beforeAll(async () => {
    // The identity provider is on 127.0.0.1: another site than the console's localhost, as a real one is.
    browser = await launchChromium('console', { reachable: ['127.0.0.1'] });
  });
  afterAll(async () => {
    for (const context of contexts) {
      const elsewhere = context.requested
        .filter((url) => /^https?:/.test(url))
        .filter((url) => ![world.origin, world.idp.issuer].includes(new URL(url).origin));
      expect(elsewhere).toEqual([]);
      expect(context.problems).toEqual([]);
    }
    await browser?.close();
  });

  const world = madeBeforeAll('the console and an identity provider', async (closeAfterAll) => {
    const { db, origin } = await consoleForBrowser(closeAfterAll);
    trustProviderCertificates((await testTls()).cert);
    closeAfterAll(() => {
      trustProviderCertificates(undefined);
    });
    const idp = await startOidcPeer({ redirectUris: [`${origin}/console/api/session/sso/callback`] });
    closeAfterAll(() => idp.close());
    const handle = uniqueHandle('sso');
    const organization = await createOrganization(db, { handle, name: 'Heron Ventures' });
    const domain = `${handle}.example.com`;
    const admin = await createPerson(db, {
      tenant: { kind: 'organization', id: organization.id },
      role: 'admin',
      name: 'Ada Admin',
      email: `ada@${domain}`,
    });
    return { db, origin, idp, organization, domain, admin };
  });

  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    if (!browser) throw new Error('the browser is launched in beforeAll');
    const context = await recordedContext(browser, { viewport });
    contexts.push(context);
    return context.newPage();
  }

  async function shot(page: Page, name: string): Promise<void> {
    // From the top, as the page is first seen: nothing under the sticky header.
    await page.evaluate(() => {
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: join(SCREENSHOTS, `sso-${DIALECT}-${name}.png`), fullPage: true });
    expect(await accessibilityViolations(page), name).toEqual([]);
  }

  it('lets an admin connect the identity provider, and a new person of its domain sign in through it as an operator', async () => {
    const { origin, idp, domain, admin } = world;
    const page = await newPage();
    await page.goto(`${origin}/console/sign-in`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    await page.getByRole('link', { name: 'Team' }).click();
    const section = page.getByRole('region', { name: 'Single sign-on' });
    await section.waitFor();
    await expect
      .poll(() => section.getByLabel('Callback URL').inputValue())
      .toBe(`${origin}/console/api/session/sso/callback`);
    await section.getByLabel('Issuer URL').fill(idp.issuer);
    await section.getByLabel('Client id').fill(idp.clientId);
    await section.getByLabel('Client secret').fill(idp.clientSecret);
    await section.getByLabel('E-mail domains').fill(domain);
    await section.getByRole('checkbox', { name: /Make an account/ }).click();
    await section.getByRole('combobox', { name: 'Role of a new account' }).click();
    await page.getByRole('option', { name: 'Operator' }).click();
    await section.getByRole('button', { name: 'Connect' }).click();
    await section.getByText('Single sign-on is saved').waitFor();
    await section.getByText('A secret is set; it is never shown.').waitFor();
    await shot(page, 'connected');

    // A person of the domain, without an account, in another browser.
    const person = await newPage(PHONE);
    const email = `nia@${domain}`;
    idp.account(email, { name: 'Nia Newcomer' });
    await person.goto(`${origin}/console/sign-in`);
    await person.getByRole('button', { name: 'Sign in with SSO' }).click();
    await person.getByLabel('Work e-mail address').fill(email);
    await shot(person, 'sign-in');
    await person.getByRole('button', { name: 'Continue with SSO' }).click();
    // Through the identity provider and back, signed in.
    await person.getByRole('heading', { name: 'Work queue' }).waitFor();
    await shot(person, 'signed-in');
    expect(
      await countOf(
        world.db,
        `select count(*) from users where email = $1 and role = 'operator' and organization_id = $2`,
        [email, world.organization.id],
      ),
    ).toBe(1);

    // The team's activity says she joined, and the admin sees her as an operator.
    await page.reload();
    await expect
      .poll(() => page.getByRole('row', { name: /Nia Newcomer/ }).innerText())
      .toContain('Operator');
    await page.getByText('joined through single sign-on').first().waitFor();

    // A refusal comes back to the sign-in page, which says why in words.
    const stranger = await newPage(PHONE);
    await stranger.goto(`${origin}/console/sign-in?sso_error=SSO_NO_ACCOUNT`);
    await stranger.getByRole('alert').getByText('You have no account here yet').waitFor();
    await shot(stranger, 'refused');
  });
});
