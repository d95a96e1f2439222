/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/transactions/organizations.ts';
import { useChromium } from '../support/browser.ts';
import { acceptInvitation, consoleForBrowser, fillInvitation, signIn } from '../support/console-chromium.ts';
import { createPerson, mailedLink, mailTo, uniqueEmail } from '../support/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { uniqueHandle } from '../support/transactions.ts';

/**
 * The organization console in Chromium: the Transactions service over real HTTPS with a database, an SMTP server
 * and an organization of the file's own, whose admin invites a reviewer. Screenshots go to test/web/screenshots/
 * as `console-<database>-<shot>.png`. One test, to keep the browser's time short: each step needs the one
 * before.
 */
describe('the organization console at /console in Chromium', () => {
  const chromium = useChromium('console');
  const world = madeBeforeAll('the console', async (closeAfterAll) => {
    const { db, smtp, origin } = await consoleForBrowser(closeAfterAll);
    const handle = uniqueHandle('console');
    // A name with markup in it, which the pages show as text.
    const organization = await createOrganization(db, { handle, name: 'Kestrel <b>Growth</b> Fund' });
    const admin = await createPerson(db, {
      tenant: { kind: 'organization', id: organization.id },
      role: 'admin',
      name: 'Ada <i>Admin</i>',
    });
    return { db, smtp, origin, organization, admin };
  });

  it('lets an admin invite a reviewer by e-mail, through a session that ends mid-invitation, and the reviewer lands on the team without its buttons', async () => {
    const { db, smtp, origin, organization, admin } = world;
    const page = await chromium.newPage(origin);
    await page.goto(`${origin}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await signIn(page, admin);
    // Signing in leads to the work queue; the team is a section of the navigation.
    await page.getByRole('heading', { name: 'Work queue' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/queue');
    await page.getByText('No transactions yet').waitFor();
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/team');
    await expect.poll(() => page.title()).toBe(`Team · ${organization.name} · Portico`);
    await page.getByRole('row', { name: /Ada <i>Admin<\/i> \(you\)/ }).waitFor();

    const reviewer = uniqueEmail('reviewer');
    const dialog = await fillInvitation(page, { email: reviewer, name: 'Rita Reviewer', role: 'Reviewer' });

    // The session ends (idle for too long) while the dialog is open: sending asks to sign in again above it.
    await db.query(`update user_sessions set expires_at = now() - interval '1 minute' where user_id = $1`, [
      admin.id,
    ]);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    const again = page.getByRole('dialog', { name: 'Sign in again' });
    await again.getByText('Your session has ended. Sign in again to go on.').waitFor();
    expect(await again.getByLabel('E-mail address').inputValue()).toBe(admin.email);
    await chromium.screenshot(page, 'sign-in-again');
    await again.getByLabel('Password', { exact: true }).fill(admin.password);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.waitFor({ state: 'detached' });
    await dialog.getByText('This was not sent: your session had ended.').waitFor();
    // What was typed is still there; sending it again invites.
    expect(await dialog.getByLabel('E-mail address').inputValue()).toBe(reviewer);
    expect(await dialog.getByLabel('Name').inputValue()).toBe('Rita Reviewer');
    expect(await dialog.getByRole('radio', { name: /Reviewer/ }).getAttribute('aria-checked')).toBe('true');
    const received = smtp.received.length;
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation mailed to ${reviewer}.`).waitFor();
    await expect
      .poll(() => page.getByRole('row', { name: /Rita Reviewer/ }).textContent())
      .toContain('Invited');
    // The invitation is the team's activity too.
    await page
      .getByRole('region', { name: 'Recent activity' })
      .getByText(/invited\s+Rita Reviewer/)
      .waitFor();
    await chromium.screenshotPhoneAndDesktop(page, 'team');

    const mail = await mailTo(smtp, reviewer, { after: received });
    const { link } = mailedLink(mail, 'invitation', `${origin}/console`);
    const theirs = await chromium.newPage(origin);
    await acceptInvitation(theirs, link, 'Rita Reviewer');
    await theirs.getByText('Only admins invite and deactivate people.').waitFor();
    expect(await theirs.getByRole('button', { name: 'Invite someone' }).count()).toBe(0);
    expect(await theirs.getByRole('button', { name: /^Deactivate/ }).count()).toBe(0);
    await chromium.screenshot(theirs, 'team-reviewer');
    // The organization's name and the people's names are text, never markup.
    expect(await theirs.locator('header').textContent()).toContain('Kestrel <b>Growth</b> Fund');
    expect(await theirs.locator('main b, main i').count()).toBe(0);
  });
});
