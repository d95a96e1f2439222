/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createDashboardPerson,
  mailedLink,
  mailTo,
  PASSWORD,
  uniqueEmail,
} from '../support/data/dashboard.ts';
import { useDashboardInChromium, type DashboardWorld } from '../support/browser/dashboard-chromium.ts';
import { createPortfolioInstance } from '../support/data/portfolio.ts';

/**
 * The customer dashboard in Chromium (test/support/browser/dashboard-chromium.ts): what a customer's people do there
 * about signing in, keys and people, step by step, with a screenshot of each page. Its portfolio pages are in
 * dashboard-portfolio.test.ts: two files, so that the two browser workers of CI share the work.
 */
describe('the customer dashboard at /dashboard in Chromium: signing in, keys and people', () => {
  const dashboard = useDashboardInChromium({ companies: 3 });
  const { newBrowser, screenshot, signIn, callApi, keysOf } = dashboard;
  let database: DashboardWorld['database'];
  let smtp: DashboardWorld['smtp'];
  let origin: string;
  let portfolio: DashboardWorld['portfolio'];
  let admin: DashboardWorld['admin'];
  beforeAll(() => {
    ({ database, smtp, origin, portfolio, admin } = dashboard.world());
  });

  /** A new browser that opens an invitation `link` and sets the password there, as the invited person does. */
  it('signs an admin in, generates a key named "warehouse sync", copies it once, and the API takes it at once', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await expect.poll(() => page.title()).toBe(`Companies · ${portfolio.name} · Portico`);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/${portfolio.slug}/settings/api-keys`);
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('warehouse sync');
    await screenshot(page, 'key-name');
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByRole('heading', { name: 'Copy your new key' }).waitFor();
    await expect.poll(() => dialog.textContent()).toContain('This is the only time the key is shown');
    const shown = await dialog.getByLabel('Your API key').inputValue();
    expect(shown).toMatch(/^pfk_[0-9A-Za-z]{38}$/);
    await dialog.getByRole('button', { name: 'Copy key' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    await screenshot(page, 'key-shown-once');

    const answer = await callApi(page, shown);
    expect(answer).toEqual({ status: 200, total: portfolio.companies });

    await dialog.getByRole('button', { name: 'I have stored the key' }).click();
    const row = page.getByRole('row', { name: /warehouse sync/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${shown.slice(0, 12)}…`);
    expect(await row.textContent()).toContain(portfolio.admin.name);
    // The key is not on the page any more, nor anywhere the page keeps things.
    expect(await page.content()).not.toContain(shown);
    const stored = await page.evaluate(() =>
      JSON.stringify([localStorage, sessionStorage].flatMap((storage) => Object.values(storage))),
    );
    expect(stored).not.toContain(shown);
    // Its last use shows after a reload (the API call above).
    await page.reload();
    await expect.poll(() => row.textContent()).not.toContain('Never');
    await screenshot(page, 'keys');
  });

  it('revokes a key after a confirmation, and the API refuses it within the documented second', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${portfolio.slug}/settings/api-keys`);
    // Signing in brings the person back to the page they asked for.
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('to be revoked');
    await page.getByRole('dialog').getByRole('button', { name: 'Generate key' }).click();
    const key = await page.getByRole('dialog').getByLabel('Your API key').inputValue();
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    expect((await callApi(page, key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke to be revoked' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByRole('heading', { name: 'Revoke “to be revoked”?' }).waitFor();
    await screenshot(page, 'revoke-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await callApi(page, key)).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke to be revoked' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    const row = page.getByRole('row', { name: /to be revoked/ });
    await expect.poll(() => row.textContent()).toContain('Revoked');
    // Key lookups are reused for up to a second (docs/dashboard.md): after it, the API refuses the key.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await callApi(page, key)).status).toBe(401);
    await screenshot(page, 'key-revoked');
  });

  it('says what is wrong with a key name, on the page, and writes no key', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${portfolio.slug}/settings/api-keys`);
    await signIn(page, admin);
    const before = await keysOf(portfolio.instanceId);
    await page.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog');
    const name = dialog.getByLabel('Name');
    await name.fill('   ');
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByText('Enter a name, so that you can tell the key from others later.').waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('x'.repeat(101));
    await dialog.getByRole('button', { name: 'Generate key' }).click();
    await dialog.getByText('A key name has at most 100 characters; this one has 101.').waitFor();
    await screenshot(page, 'key-name-refused');
    expect(await keysOf(portfolio.instanceId)).toBe(before);
  });

  it('says that the e-mail address or the password is not right, without saying which, and signs no one in', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await signIn(page, { email: admin.email, password: 'not the password' });
    const alert = page.getByRole('alert');
    await alert.getByText('The e-mail address or the password is not right.').waitFor();
    await signIn(page, { email: uniqueEmail('nobody'), password: 'not the password' });
    await expect
      .poll(() => alert.textContent())
      .toContain('The e-mail address or the password is not right.');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await screenshot(page, 'sign-in-refused');
    await page.goto(`${origin}/dashboard/${portfolio.slug}/companies`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  it('asks which instance to open when the address and password open two, and opens the one chosen', async () => {
    const [first, second] = await Promise.all([
      createPortfolioInstance(database.db, { name: 'Alpha Partners' }),
      createPortfolioInstance(database.db, { name: 'Beta Growth' }),
    ]);
    const email = uniqueEmail('both');
    await createDashboardPerson(database.db, { instanceId: first.instanceId, role: 'member', email });
    await createDashboardPerson(database.db, { instanceId: second.instanceId, role: 'member', email });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await signIn(page, { email, password: PASSWORD });
    const choice = page.getByRole('radiogroup', { name: /several instances/ });
    await choice.getByRole('radio', { name: /Beta Growth/ }).waitFor();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Choose the instance to sign in to.').waitFor();
    await screenshot(page, 'sign-in-choose-instance');
    await choice.getByRole('radio', { name: /Beta Growth/ }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/${second.slug}/companies`);
  });

  // Three browsers and two mails: beyond the default 30 s when other work shares the machine.
  it(
    'invites a colleague by e-mail, who sets a password from the link and signs in as a member who sees keys but cannot make them',
    { timeout: 90_000 },
    async () => {
      const page = await newBrowser();
      await page.goto(`${origin}/dashboard/${portfolio.slug}/settings/people`);
      await signIn(page, admin);
      await page.getByRole('heading', { name: 'People' }).waitFor();
      const colleague = uniqueEmail('colleague');
      const received = smtp.received.length;
      await page.getByRole('button', { name: 'Invite someone' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('E-mail address').fill(colleague);
      await dialog.getByLabel('Name').fill('Max Colleague');
      await screenshot(page, 'invite');
      await dialog.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`Invitation mailed to ${colleague}.`).waitFor();
      await expect
        .poll(() => page.getByRole('row', { name: /Max Colleague/ }).textContent())
        .toContain('Invited');
      await screenshot(page, 'people');

      const mail = await mailTo(smtp, colleague, { after: received });
      expect(mail.parsed.subject).toBe(`You are invited to ${portfolio.name}`);
      const { link } = mailedLink(mail, 'invitation', `${origin}/dashboard`);

      const theirs = await newBrowser();
      await theirs.goto(link);
      await theirs.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
      await theirs.getByLabel('New password', { exact: true }).fill('short');
      await theirs.getByLabel('Repeat the new password').fill('short');
      await theirs.getByRole('button', { name: 'Set password and sign in' }).click();
      await theirs.getByText('Use at least 10 characters.').waitFor();
      // A reload keeps the link working: the token stays in the address's fragment.
      await theirs.reload();
      await theirs.getByLabel('New password', { exact: true }).fill(PASSWORD);
      await theirs.getByLabel('Repeat the new password').fill(PASSWORD);
      await screenshot(theirs, 'invitation');
      await theirs.getByRole('button', { name: 'Set password and sign in' }).click();
      await theirs.getByRole('heading', { name: 'Companies' }).waitFor();

      await theirs.getByRole('link', { name: 'Settings' }).click();
      await theirs.getByRole('heading', { name: 'API keys' }).waitFor();
      await theirs.getByRole('row', { name: /warehouse sync/ }).waitFor();
      await theirs.getByText('Only admins generate and revoke keys.').waitFor();
      expect(await theirs.getByRole('button', { name: 'Generate key' }).count()).toBe(0);
      expect(await theirs.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
      await screenshot(theirs, 'member-keys');

      // The link worked once: opened again, it says so at once, before any password is asked for.
      const again = await newBrowser();
      await again.goto(link);
      await again.getByText('This invitation has been used already: it works once.').waitFor();
      expect(await again.getByLabel('New password', { exact: true }).count()).toBe(0);
      await screenshot(again, 'invitation-used');
    },
  );

  it('shows an expired invitation as such, with whom to ask', async () => {
    const instance = await createPortfolioInstance(database.db);
    const person = uniqueEmail('late');
    const inviter = await createDashboardPerson(database.db, {
      instanceId: instance.instanceId,
      role: 'admin',
    });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/${instance.slug}/settings/people`);
    await signIn(page, inviter);
    const received = smtp.received.length;
    await page.getByRole('button', { name: 'Invite someone' }).click();
    await page.getByRole('dialog').getByLabel('E-mail address').fill(person);
    await page.getByRole('dialog').getByRole('button', { name: 'Send invitation' }).click();
    const { link } = mailedLink(
      await mailTo(smtp, person, { after: received }),
      'invitation',
      `${origin}/dashboard`,
    );
    await database.db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 minute'
       where user_id = (select id from users where email = $1)`,
      [person],
    );

    const theirs = await newBrowser();
    await theirs.goto(link);
    await theirs.getByText('This invitation has expired: ask an admin to invite you again.').waitFor();
    expect(await theirs.getByLabel('New password', { exact: true }).count()).toBe(0);
    await screenshot(theirs, 'invitation-expired');
  });

  it('resets a forgotten password by e-mail: the new one signs in, the old one no longer does', async () => {
    const person = await createDashboardPerson(database.db, {
      instanceId: portfolio.instanceId,
      role: 'member',
    });
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    const received = smtp.received.length;
    await page.getByLabel('E-mail address').fill(person.email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.getByText(`If ${person.email} has an account, a reset link is on its way there.`).waitFor();
    await screenshot(page, 'forgot-password');

    const { link } = mailedLink(
      await mailTo(smtp, person.email, { after: received }),
      'reset-password',
      `${origin}/dashboard`,
    );
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    const newPassword = 'a brand new passphrase';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Repeat the new password').fill('a different passphrase');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('The two passwords are not the same.').waitFor();
    await page.getByLabel('Repeat the new password').fill(newPassword);
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password is changed. Sign in with it.').waitFor();

    await signIn(page, { email: person.email, password: person.password });
    await page.getByText('The e-mail address or the password is not right.').waitFor();
    await signIn(page, { email: person.email, password: newPassword });
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
  });

  it('signs out: the pages then ask to sign in again, also after a reload', async () => {
    const page = await newBrowser();
    await page.goto(`${origin}/dashboard`);
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Companies' }).waitFor();
    await page.getByRole('button', { name: /account menu$/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByText('You have signed out.').waitFor();
    await page.goto(`${origin}/dashboard/${portfolio.slug}/settings/api-keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});
