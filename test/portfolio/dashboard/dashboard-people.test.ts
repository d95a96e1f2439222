// The customer dashboard's people and their mailed links: invitations, removals and password resets. Mail goes
// through a real SMTP server on loopback.
import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_API_PATH } from '../../../src/portfolio/dashboard/dashboard.ts';
import {
  Browser,
  PORTFOLIO_URL,
  countOf,
  createDashboardPerson,
  dashboardApp,
  instanceApi,
  linkToken,
  PASSWORD,
  mailTo,
  signedInBrowser,
  smtpMailer,
  uniqueEmail,
} from '../../support/data/dashboard.ts';
import {
  INVITATION,
  PASSWORD_RESET,
  PASSWORD_RESET_CONFIRM,
  deletedNothing,
  shownInstance,
  shownUser,
  useDashboardSuite,
  useSignedInInstance,
  whoIsSignedIn,
} from '../../support/data/dashboard-suite.ts';
import {
  ISO_TIMESTAMP,
  createPortfolioInstance,
  expectApiError,
  type PortfolioInstanceFixture,
} from '../../support/data/portfolio.ts';
import { startSmtpServer } from '../../support/peers/smtp.ts';
import { UUID } from '../../support/uuid.ts';

const suite = useDashboardSuite();

describe('people', () => {
  const given = useSignedInInstance(suite);
  const peopleUrl = (path = '') => instanceApi(given.instance.slug, `/people${path}`);

  /** Invites an address as the admin, and the token of the invitation mailed to it. */
  async function invite(email: string, role: 'admin' | 'member' = 'member', name?: string) {
    const received = suite.smtp.received.length;
    const invited = await given.adminBrowser.request('POST', peopleUrl(), {
      email,
      role,
      ...(name ? { name } : {}),
    });
    expect(invited.status, invited.text).toBe(201);
    const mail = await mailTo(suite.smtp, email, { after: received });
    return { person: invited.body.person, mail, token: linkToken(mail, 'invitation') };
  }

  /** Posts an invitation link's token and password from a new browser. */
  async function accept(token: string, password = 'my own long passphrase') {
    const browser = await suite.anonymousBrowser();
    const response = await browser.request('POST', INVITATION, { token, password });
    return { browser, response };
  }

  it('invites a person by mail with a link that signs them in as a member, once', async () => {
    const email = uniqueEmail('grace');
    const { person, mail, token } = await invite(email.toUpperCase(), 'member', 'Grace Hopper');
    expect(person).toEqual({
      id: expect.stringMatching(UUID),
      email,
      name: 'Grace Hopper',
      role: 'member',
      active: false,
      createdAt: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(mail.envelope.to).toEqual([email]);
    expect(mail.parsed.subject).toBe(`You are invited to Instance ${given.instance.slug}`);
    expect(mail.parsed.text).toContain(`${PORTFOLIO_URL}/dashboard/invitation#token=${token}`);

    const { browser, response } = await accept(token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      csrfToken: expect.any(String),
      user: { id: person.id, email, name: 'Grace Hopper', role: 'member' },
      instance: shownInstance(given.instance),
      secondFactorRequired: false,
    });
    const people = await browser.get(peopleUrl());
    expect(people.status).toBe(200);
    expect(people.body.people).toContainEqual({ ...person, active: true, actions: expect.any(Object) });
    // A member cannot invite.
    expectApiError(
      await browser.request('POST', peopleUrl(), { email: uniqueEmail(), role: 'member' }),
      403,
      'FORBIDDEN',
    );

    const again = await accept(token, 'someone elses passphrase');
    expect(expectApiError(again.response, 410, 'LINK_USED')).toBe(
      'This invitation has been used already: it works once.',
    );
    expect(await whoIsSignedIn(again.browser)).toEqual({ user: null, instance: null });
    expect(await whoIsSignedIn(browser)).toMatchObject({ user: { id: person.id } });
  });

  it('answers 410 LINK_EXPIRED for an invitation past its time, and the person stays inactive', async () => {
    const { person, token } = await invite(uniqueEmail('late'));
    await suite.db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1`,
      [person.id],
    );
    const { browser, response } = await accept(token);
    expect(expectApiError(response, 410, 'LINK_EXPIRED')).toBe(
      'This invitation has expired: ask an admin to invite you again.',
    );
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expect(
      await countOf(suite.db, 'select count(*) from users where id = $1 and password_hash is null', [
        person.id,
      ]),
    ).toBe(1);
  });

  it('ends the older invitation when a person who has not accepted is invited again, with the new role', async () => {
    const email = uniqueEmail('twice');
    const first = await invite(email, 'member');
    const second = await invite(email, 'admin');
    expect(second.person).toMatchObject({ id: first.person.id, role: 'admin', active: false });
    expect(second.token).not.toBe(first.token);

    expectApiError((await accept(first.token)).response, 410, 'LINK_EXPIRED');
    const accepted = await accept(second.token);
    expect(accepted.response.status).toBe(200);
    expect(accepted.response.body.user).toMatchObject({ id: first.person.id, role: 'admin' });
  });

  it('answers 400 LINK_INVALID for a token no invitation has', async () => {
    const { browser, response } = await accept('garbage');
    expectApiError(response, 400, 'LINK_INVALID');
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });
    expectApiError((await accept('A'.repeat(43))).response, 400, 'LINK_INVALID');
  });

  it('refuses a password under 10 characters with 400 BAD_USER_INPUT and leaves the link working', async () => {
    const email = uniqueEmail('short');
    const { token } = await invite(email);
    const tooShort = await accept(token, 'short');
    expect(expectApiError(tooShort.response, 400, 'BAD_USER_INPUT')).toBe(
      'The password must have at least 10 characters.',
    );
    expect(tooShort.response.body.error.details).toEqual({ field: 'password' });
    const theAddress = await accept(token, email.toUpperCase());
    expect(expectApiError(theAddress.response, 400, 'BAD_USER_INPUT')).toBe(
      'The password must not be the e-mail address.',
    );
    expect(await whoIsSignedIn(tooShort.browser)).toEqual({ user: null, instance: null });

    expect((await accept(token)).response.status).toBe(200);
  });

  it('answers 409 CONFLICT for inviting a person who is already active, and mails and writes nothing', async () => {
    const people = await suite.peopleCount(given.instance.instanceId);
    const links = await suite.linkCount(given.instance.instanceId);
    const received = suite.smtp.received.length;

    const conflict = await given.adminBrowser.request('POST', peopleUrl(), {
      email: given.member.email,
      role: 'admin',
    });
    expect(expectApiError(conflict, 409, 'CONFLICT')).toBe(
      `${given.member.email} has an account here already.`,
    );

    expect(await suite.peopleCount(given.instance.instanceId)).toBe(people);
    expect(await suite.linkCount(given.instance.instanceId)).toBe(links);
    expect(suite.smtp.received.length).toBe(received);
    // The member keeps their role.
    expect((await whoIsSignedIn(given.memberBrowser)).user).toEqual(shownUser(given.member));
  });

  it('refuses an admin removing themselves with 409 CONFLICT', async () => {
    const refused = await given.adminBrowser.request('DELETE', peopleUrl(`/${given.admin.id}`));
    expect(expectApiError(refused, 409, 'CONFLICT')).toBe('You cannot remove yourself: ask another admin.');
    expect(await countOf(suite.db, 'select count(*) from users where id = $1', [given.admin.id])).toBe(1);
    expect((await whoIsSignedIn(given.adminBrowser)).user).toEqual(shownUser(given.admin));
  });

  it('refuses a member inviting or removing people with 403 FORBIDDEN, and writes and mails nothing', async () => {
    const people = await suite.peopleCount(given.instance.instanceId);
    const received = suite.smtp.received.length;
    const email = uniqueEmail('by-member');
    const invited = await given.memberBrowser.request('POST', peopleUrl(), { email, role: 'admin' });
    expect(expectApiError(invited, 403, 'FORBIDDEN')).toBe(
      `Only admins invite and remove people; you are a member of Instance ${given.instance.slug}.`,
    );
    expectApiError(
      await given.memberBrowser.request('DELETE', peopleUrl(`/${given.admin.id}`)),
      403,
      'FORBIDDEN',
    );

    expect(await suite.peopleCount(given.instance.instanceId)).toBe(people);
    expect(suite.smtp.received.length).toBe(received);
    expect((await given.memberBrowser.get(peopleUrl())).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for removing a person who does not exist', async () => {
    const people = await suite.peopleCount(given.instance.instanceId);
    expect(await deletedNothing(given.adminBrowser, peopleUrl)).toBe('There is no such user.');
    expect(await suite.peopleCount(given.instance.instanceId)).toBe(people);
  });

  it('answers 503 SERVICE_UNAVAILABLE when the invitation cannot be mailed, and the person stays invited', async () => {
    const closed = await startSmtpServer();
    const unreachable = closed.url();
    await closed.close();
    const brokenMailer = smtpMailer(unreachable);
    const broken = await dashboardApp(suite.db, { mailer: brokenMailer, distDir: suite.distDir });
    try {
      const browser = await new Browser(broken).signInOrThrow({
        email: given.admin.email,
        password: given.admin.password,
      });
      const email = uniqueEmail('unmailed');
      const refused = await browser.request('POST', peopleUrl(), { email, role: 'member' });
      const message = expectApiError(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(message).toBe(
        `${email} is invited, but the invitation could not be mailed just now: invite them again once mail works.`,
      );
      // What the mail server answered, and where it is, is for operators (the log, the CLI), not for a customer.
      expect(message).not.toMatch(/SMTP|127\.0\.0\.1|ECONNREFUSED/);
      expect(
        await countOf(suite.db, 'select count(*) from users where instance_id = $1 and email = $2', [
          given.instance.instanceId,
          email,
        ]),
      ).toBe(1);
    } finally {
      await broken.close();
      brokenMailer.close();
    }
  });
});

describe('password reset', () => {
  let instance: PortfolioInstanceFixture;
  beforeAll(async () => {
    instance = await createPortfolioInstance(suite.db);
  });

  /** A person of the instance with `role` who asked for a reset from a browser, and the token mailed to them. */
  async function resetRequested(role: 'admin' | 'member') {
    const person = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role });
    const browser = await suite.anonymousBrowser();
    const received = suite.smtp.received.length;
    await browser.request('POST', PASSWORD_RESET, { email: person.email });
    const token = linkToken(await mailTo(suite.smtp, person.email, { after: received }), 'reset-password');
    return { person, browser, token };
  }

  it('answers a known address and an unknown one alike with 202, mailing a reset link only to the known one', async () => {
    const person = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role: 'member' });
    const unknown = uniqueEmail('unknown');
    const browser = await suite.anonymousBrowser();
    const received = suite.smtp.received.length;

    const forUnknown = await browser.request('POST', PASSWORD_RESET, { email: unknown });
    const forKnown = await browser.request('POST', PASSWORD_RESET, { email: person.email.toUpperCase() });
    expect(forKnown.status).toBe(202);
    expect(forKnown.body).toEqual({});
    expect({ status: forUnknown.status, body: forUnknown.text }).toEqual({
      status: 202,
      body: forKnown.text,
    });

    const mail = await mailTo(suite.smtp, person.email, { after: received });
    expect(mail.parsed.subject).toBe(`Reset your password for Instance ${instance.slug}`);
    expect(mail.parsed.text).toContain(
      `${PORTFOLIO_URL}/dashboard/reset-password#token=${linkToken(mail, 'reset-password')}`,
    );
    // The unknown address's request came first; give it time to have mailed, had it mailed anything.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(suite.smtp.received.slice(received).map((each) => each.envelope.to)).toEqual([[person.email]]);
  });

  it('mails at most 5 reset links an hour for an address: the 6th request gets 429 RATE_LIMITED and mails nothing', async () => {
    const person = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role: 'member' });
    const received = suite.smtp.received.length;
    // From a new client each time: the address's limit, not the client's.
    const clients = await Promise.all(Array.from({ length: 5 }, () => suite.anonymousBrowser()));
    const asked = await Promise.all(
      clients.map((client) => client.request('POST', PASSWORD_RESET, { email: person.email })),
    );
    expect(asked.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    await mailTo(suite.smtp, person.email, { after: received, nth: 5 });
    const sixth = await suite.anonymousBrowser();
    const refused = await sixth.request('POST', PASSWORD_RESET, { email: person.email });
    expectApiError(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mails = suite.smtp.received
      .slice(received)
      .filter((mail) => mail.envelope.to.includes(person.email));
    expect(mails).toHaveLength(5);
  });

  it('sets the new password through the link: the old one is then refused and the new one signs in, once', async () => {
    const { person, browser, token } = await resetRequested('admin');

    const tooShort = await browser.request('POST', PASSWORD_RESET_CONFIRM, { token, password: 'short' });
    expectApiError(tooShort, 400, 'BAD_USER_INPUT');
    const confirmed = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'the new passphrase',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ csrfToken: expect.any(String) });
    expect(await whoIsSignedIn(browser)).toEqual({ user: null, instance: null });

    const reused = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'yet another passphrase',
    });
    expectApiError(reused, 410, 'LINK_USED');
    // An invitation's page does not take a reset link.
    expectApiError(
      await browser.request('POST', INVITATION, { token, password: 'yet another one' }),
      400,
      'LINK_INVALID',
    );

    expectApiError(
      await browser.signIn({ email: person.email, password: person.password }),
      401,
      'INVALID_CREDENTIALS',
    );
    const signedIn = await browser.signIn({ email: person.email, password: 'the new passphrase' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user).toEqual(shownUser(person));
  });

  it('answers a new password with a fresh CSRF token, which the browser signs in with at once', async () => {
    const { person, browser, token } = await resetRequested('member');
    const before = browser.csrfToken;
    await browser.request('POST', PASSWORD_RESET_CONFIRM, { token, password: 'the new passphrase' });
    expect(browser.csrfToken).not.toBe(before);

    // No GET /session in between: the token of the answer is the one the new session takes.
    const signedIn = await browser.signIn({ email: person.email, password: 'the new passphrase' });
    expect(signedIn.status).toBe(200);
  });

  it('answers 410 LINK_EXPIRED for a reset link past its hour, and the password stays', async () => {
    const { person, browser, token } = await resetRequested('member');
    await suite.db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1 and purpose = 'password_reset'`,
      [person.id],
    );
    const expired = await browser.request('POST', PASSWORD_RESET_CONFIRM, {
      token,
      password: 'the new passphrase',
    });
    expect(expectApiError(expired, 410, 'LINK_EXPIRED')).toBe(
      'This password reset link has expired: ask for a new one.',
    );
    expect((await browser.signIn({ email: person.email, password: person.password })).status).toBe(200);
  });
});

describe('roles and invitations sent again', () => {
  /** A new instance of the test's own, its admin signed in, and the URL of its people. */
  async function instanceOfItsOwn() {
    const { instance, admin } = await suite.instanceWithAdmin();
    const browser = await signedInBrowser(suite.app, admin);
    const peopleUrl = (path = '') => instanceApi(instance.slug, `/people${path}`);
    return { instance, admin, browser, peopleUrl };
  }

  /** What the people list says can be done to one person, by id. */
  async function actionsOf(browser: Browser, url: string, id: string) {
    const { body } = await browser.get(url);
    const people = body.people as { id: string; actions: Record<string, unknown> }[];
    return people.find((person) => person.id === id)?.actions;
  }

  it("changes a member's role, and refuses the last admin's own, as the list says beside it", async () => {
    const { instance, admin, browser, peopleUrl } = await instanceOfItsOwn();
    const member = await createDashboardPerson(suite.db, { instanceId: instance.instanceId, role: 'member' });
    const theirs = await signedInBrowser(suite.app, member);

    const promoted = await browser.request('PUT', peopleUrl(`/${member.id}/role`), { role: 'admin' });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.person).toMatchObject({ id: member.id, role: 'admin' });
    expect((await whoIsSignedIn(theirs)).user).toMatchObject({ role: 'admin' });
    expect((await browser.request('PUT', peopleUrl(`/${member.id}/role`), { role: 'member' })).status).toBe(
      200,
    );

    const reason = `You are the last admin of Instance ${instance.slug}: make another person admin first, then change your role, so that someone can still do what only an admin may.`;
    expect(await actionsOf(browser, peopleUrl(), admin.id)).toMatchObject({
      changeRole: { allowed: false, reason },
      remove: { allowed: false, reason: 'You cannot remove yourself: ask another admin.' },
    });
    const refused = await browser.request('PUT', peopleUrl(`/${admin.id}/role`), { role: 'member' });
    expect(expectApiError(refused, 409, 'CONFLICT')).toBe(reason);
    expectApiError(
      await theirs.request('PUT', peopleUrl(`/${admin.id}/role`), { role: 'member' }),
      403,
      'FORBIDDEN',
    );
    expect((await whoIsSignedIn(browser)).user).toMatchObject({ role: 'admin' });
  });

  it('mails a pending person a new invitation from the admin, ending the old link, not twice within a minute', async () => {
    const { admin, browser, peopleUrl, instance } = await instanceOfItsOwn();
    const email = uniqueEmail('again');
    const received = suite.smtp.received.length;
    const invited = await browser.request('POST', peopleUrl(), { email, role: 'member' });
    expect(invited.status).toBe(201);
    const first = await mailTo(suite.smtp, email, { after: received });
    expect(first.parsed.text).toContain(
      `${admin.name} (${admin.email}) invited you to Instance ${instance.slug} on the Portfolio dashboard, as a member.`,
    );
    const id = invited.body.person.id as string;

    expect((await actionsOf(browser, peopleUrl(), id))?.resendInvitation).toMatchObject({ allowed: false });
    expectApiError(await browser.request('POST', peopleUrl(`/${id}/invitation`)), 429, 'RATE_LIMITED');
    await suite.db.query(
      `update user_links set created_at = created_at - interval '61 seconds' where user_id = $1`,
      [id],
    );
    const again = suite.smtp.received.length;
    const resent = await browser.request('POST', peopleUrl(`/${id}/invitation`));
    expect(resent.status, resent.text).toBe(200);
    const token = linkToken(await mailTo(suite.smtp, email, { after: again }), 'invitation');

    const anonymous = await suite.anonymousBrowser();
    const old = await anonymous.request('POST', INVITATION, {
      token: linkToken(first, 'invitation'),
      password: PASSWORD,
    });
    expectApiError(old, 410, 'LINK_EXPIRED');
    expect((await anonymous.request('POST', INVITATION, { token, password: PASSWORD })).status).toBe(200);
  });

  it("checks an invitation's link before its form, without using it", async () => {
    const { browser, peopleUrl, instance } = await instanceOfItsOwn();
    const email = uniqueEmail('checked');
    const received = suite.smtp.received.length;
    await browser.request('POST', peopleUrl(), { email, role: 'member', name: 'Chuck' });
    const token = linkToken(await mailTo(suite.smtp, email, { after: received }), 'invitation');
    const anonymous = await suite.anonymousBrowser();
    const check = `${DASHBOARD_API_PATH}/links/check`;
    const works = await anonymous.request('POST', check, { purpose: 'invitation', token });
    expect(works.body).toEqual({
      email,
      name: 'Chuck',
      tenantName: `Instance ${instance.slug}`,
      expiresAt: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect((await anonymous.request('POST', INVITATION, { token, password: PASSWORD })).status).toBe(200);
    expectApiError(
      await anonymous.request('POST', check, { purpose: 'invitation', token }),
      410,
      'LINK_USED',
    );
  });

  it('changes one’s own password, given the current one: the other sessions end, this one stays', async () => {
    const { admin, browser } = await instanceOfItsOwn();
    const other = await signedInBrowser(suite.app, admin);
    const url = `${DASHBOARD_API_PATH}/password`;
    expectApiError(
      await browser.request('PUT', url, { currentPassword: 'wrong one', password: 'a new passphrase' }),
      400,
      'BAD_USER_INPUT',
    );
    const changed = await browser.request('PUT', url, {
      currentPassword: admin.password,
      password: 'a new passphrase',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ otherSessionsEnded: 1 });
    expect((await whoIsSignedIn(browser)).user).toMatchObject({ id: admin.id });
    expect(await whoIsSignedIn(other)).toEqual({ user: null, instance: null });
  });
});
