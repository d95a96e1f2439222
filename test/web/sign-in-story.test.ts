/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useChromium } from '../support/browser/browser.ts';
import { signedInSurfacesForBrowser } from '../support/browser/surfaces-chromium.ts';
import { createPerson, mailTo, uniqueEmail } from '../support/data/dashboard.ts';
import { createPortfolioInstance } from '../support/data/portfolio.ts';
import { createEmptyTenant } from '../support/data/transactions-suite.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';

/**
 * Sign-in a fund's security review accepts, end to end in Chromium over real HTTPS on both signed-in surfaces
 * (issue 42), on the apps `portico serve` builds: a person sees where they are signed in and ends another of
 * their sessions, whose browser's next request is signed out; a sign-in from a new browser is mailed through
 * real SMTP. Screenshots go to test/web/screenshots/ as `<surface>-<database>-sign-in-…png`.
 */
const world = madeBeforeAll('both signed-in surfaces', async (closeAfterAll) => {
  const served = await signedInSurfacesForBrowser(closeAfterAll);
  const organization = await createEmptyTenant(served.db);
  const instance = await createPortfolioInstance(served.db, { name: 'Sign-in Portfolio' });
  return {
    ...served,
    tenants: {
      console: { kind: 'organization' as const, id: organization.organizationId },
      dashboard: { kind: 'instance' as const, id: instance.instanceId },
    },
  };
});

const SURFACES = [
  { name: 'console', path: '/console', home: 'Work queue' },
  { name: 'dashboard', path: '/dashboard', home: 'Companies' },
] as const;

for (const surface of SURFACES) {
  describe(`signing in to the ${surface.name} in Chromium`, () => {
    const chromium = useChromium(surface.name);
    const served = () => world[surface.name];

    /** A page of a new browser (its own cookies) on the surface, signed in as `person` at its home. */
    async function signedInPage(person: { email: string; password: string }): Promise<Page> {
      const { origin } = served();
      const page = await chromium.newPage(origin);
      await page.goto(`${origin}${surface.path}`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('E-mail address').fill(person.email);
      await page.getByLabel('Password', { exact: true }).fill(person.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: surface.home }).waitFor();
      return page;
    }

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
