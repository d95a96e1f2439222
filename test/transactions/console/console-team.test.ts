// The console's team beyond inviting: roles changed (never leaving the organization without an active admin),
// deactivated people reactivated, invitations mailed again, each in the team's activity and offered by the team
// list only when it can work; and what every signed-in kit gives its people: their own password changed, and a
// mailed link checked before its form. Mail goes through a real SMTP server on loopback; every request comes
// "through a TLS-terminating proxy" (x-forwarded-proto: https), as the session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsoleRole } from '../../../src/accounts/roles.ts';
import { inviteUser } from '../../../src/accounts/users.ts';
import type { TeamActivityEntry, TeamListMember } from '../../../src/transactions/console/contract.ts';
import {
  type Browser,
  PASSWORD,
  createPerson,
  linkToken,
  mailTo,
  uniqueEmail,
  type DashboardPerson,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance } from '../../support/data/portfolio.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import {
  api,
  browser,
  consoleApiWorld,
  organizationWith as withPeople,
  signedIn as signedInAs,
  TRANSACTIONS_URL,
} from '../../support/data/console-api.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

/** A new organization of its own, with a person of each role asked for (admin first). */
const organizationWith = (roles?: ConsoleRole[]) => withPeople(world, roles, 'team');

function signedIn(person: DashboardPerson | undefined): Promise<Browser> {
  return signedInAs(world, person);
}

/** The team as a page reads it, by id. */
async function teamOf(page: Browser): Promise<Map<string, TeamListMember>> {
  const { body } = await page.get(api('/team'));
  const { people } = body as { people: TeamListMember[] };
  return new Map(people.map((person) => [person.id, person]));
}

/** The team's activity, newest first, as [action, person, details]. */
async function activityOf(page: Browser): Promise<[string, string | undefined, unknown][]> {
  const { body } = await page.get(api('/team/activity'));
  return (body as { entries: TeamActivityEntry[] }).entries
    .filter((entry) => entry.kind === 'team')
    .map((entry) => [entry.action, entry.person?.label, entry.details]);
}

/** Invites an address as the signed-in admin, and the token of the invitation mailed to it. */
async function invite(page: Browser, email: string, role: ConsoleRole = 'viewer', name?: string) {
  const received = world.smtp.received.length;
  const invited = await page.request('POST', api('/team'), { email, role, ...(name ? { name } : {}) });
  expect(invited.status, invited.text).toBe(201);
  const mail = await mailTo(world.smtp, email, { after: received });
  const { person } = invited.body as { person: { id: string } };
  return { person, mail, token: linkToken(mail, 'invitation', `${TRANSACTIONS_URL}/console`) };
}

/** Makes the invitations mailed to a person look older, as a minute passing would. */
async function ageInvitations(userId: string, seconds: number): Promise<void> {
  await world.db.query(
    `update user_links set created_at = created_at - $2 * interval '1 second'
     where user_id = $1 and purpose = 'invitation'`,
    [userId, seconds],
  );
}

/** Asks whether a mailed link works, from a new browser. */
async function checkLink(purpose: 'invitation' | 'password_reset', token: string) {
  const page = browser(world);
  await page.session();
  return page.request('POST', api('/links/check'), { purpose, token });
}

describe('roles', () => {
  it("lets an admin change a colleague's role, which counts from their next request and is in the team's activity", async () => {
    const { people } = await organizationWith(['admin', 'operator']);
    const admin = await signedIn(people.admin);
    const theirs = await signedIn(people.operator);
    const operator = people.operator;
    if (!operator) throw new Error('no operator');

    const changed = await admin.request('PUT', api(`/team/${operator.id}/role`), { role: 'reviewer' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ person: { id: operator.id, role: 'reviewer' } });
    expect((await theirs.session()).body).toMatchObject({ user: { id: operator.id, role: 'reviewer' } });
    expect(await activityOf(admin)).toEqual([
      ['role_changed', operator.name, { from: 'operator', to: 'reviewer' }],
    ]);

    // The same role again changes nothing, and records nothing.
    const again = await admin.request('PUT', api(`/team/${operator.id}/role`), { role: 'reviewer' });
    expect(again.status).toBe(200);
    expect(await activityOf(admin)).toHaveLength(1);
  });

  it("refuses the last active admin's own demotion with 409, as the team list says beside it, until another admin is active", async () => {
    const { people, organization } = await organizationWith(['admin']);
    const admin = people.admin;
    if (!admin) throw new Error('no admin');
    const page = await signedIn(admin);
    const reason = `You are the last admin of ${organization.name}: make another person admin first, then change your role, so that someone can still do what only an admin may.`;

    expect((await teamOf(page)).get(admin.id)?.actions.changeRole).toEqual({ allowed: false, reason });
    const refused = await page.request('PUT', api(`/team/${admin.id}/role`), { role: 'viewer' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'CONFLICT', message: reason } });
    // An admin who has not accepted their invitation cannot sign in to manage people: they do not count.
    await invite(page, uniqueEmail('pending-admin'), 'admin');
    expect((await page.request('PUT', api(`/team/${admin.id}/role`), { role: 'viewer' })).status).toBe(409);
    // Making themselves admin again is no demotion.
    expect((await page.request('PUT', api(`/team/${admin.id}/role`), { role: 'admin' })).status).toBe(200);

    await createPerson(world.db, { tenant: { kind: 'organization', id: organization.id }, role: 'admin' });
    expect((await teamOf(page)).get(admin.id)?.actions.changeRole).toEqual({ allowed: true, reason: null });
    const stepped = await page.request('PUT', api(`/team/${admin.id}/role`), { role: 'viewer' });
    expect(stepped.status, stepped.text).toBe(200);
    // Their new role counts at once: they manage people no more.
    const after = await page.request('PUT', api(`/team/${admin.id}/role`), { role: 'admin' });
    expect(after.status).toBe(403);
    expect(after.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });

  it.each(['operator', 'reviewer', 'viewer'] as const)(
    'refuses people of the %s role who change roles, reactivate or mail invitations with 403, and changes nothing',
    async (role) => {
      const { people, organization } = await organizationWith(['admin', role]);
      const page = await signedIn(people[role]);
      const id = people.admin?.id ?? '';
      for (const [method, path, body] of [
        ['PUT', `/team/${id}/role`, { role: 'viewer' }],
        ['POST', `/team/${id}/reactivate`, undefined],
        ['POST', `/team/${id}/invitation`, undefined],
      ] as const) {
        const refused = await page.request(method, api(path), body);
        expect(refused.status, path).toBe(403);
        expect(refused.body).toMatchObject({
          error: {
            code: 'FORBIDDEN',
            message: `Only admins invite and deactivate people; you are a ${role} of ${organization.name}.`,
          },
        });
      }
      const [row] = await world.db.query<{ role: string }>('select role from users where id = $1', [id]);
      expect(row?.role).toBe('admin');
    },
  );

  it("answers another organization's person, and one that does not exist, with 404 alike", async () => {
    const mine = await organizationWith(['admin']);
    const theirs = await organizationWith(['admin', 'viewer']);
    const page = await signedIn(mine.people.admin);
    for (const id of [theirs.people.viewer?.id ?? '', randomUUID()]) {
      for (const [method, path, body] of [
        ['PUT', `/team/${id}/role`, { role: 'admin' }],
        ['POST', `/team/${id}/reactivate`, undefined],
        ['POST', `/team/${id}/invitation`, undefined],
      ] as const) {
        const answer = await page.request(method, api(path), body);
        expect([answer.status, answer.body], path).toEqual([
          404,
          { error: expect.objectContaining({ code: 'NOT_FOUND', message: 'There is no such user.' }) },
        ]);
      }
    }
    const [row] = await world.db.query<{ role: string }>('select role from users where id = $1', [
      theirs.people.viewer?.id,
    ]);
    expect(row?.role).toBe('viewer');
  });
});

describe('deactivation and reactivation', () => {
  it('reactivates a deactivated person, who signs in with their own password again; the activity keeps both', async () => {
    const { people } = await organizationWith(['admin', 'operator']);
    const admin = await signedIn(people.admin);
    const operator = people.operator;
    if (!operator) throw new Error('no operator');

    expect((await teamOf(admin)).get(operator.id)?.actions).toMatchObject({
      reactivate: {
        allowed: false,
        reason: `${operator.name} is not deactivated: they may sign in already.`,
      },
      deactivate: { allowed: true, reason: null },
    });
    expect((await admin.request('POST', api(`/team/${operator.id}/deactivate`))).status).toBe(200);
    const twice = await admin.request('POST', api(`/team/${operator.id}/deactivate`));
    expect(twice.body).toMatchObject({
      error: { code: 'CONFLICT', message: `${operator.name} is deactivated already.` },
    });
    expect((await teamOf(admin)).get(operator.id)?.actions).toMatchObject({
      reactivate: { allowed: true, reason: null },
      changeRole: {
        allowed: false,
        reason: `${operator.name} is deactivated: reactivate them first, then change their role.`,
      },
    });
    expect((await browser(world).signIn({ email: operator.email, password: PASSWORD })).status).toBe(401);

    const back = await admin.request('POST', api(`/team/${operator.id}/reactivate`));
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({
      person: { id: operator.id, active: true, deactivatedAt: null, role: 'operator' },
    });
    await browser(world).signInOrThrow({ email: operator.email, password: PASSWORD });
    const again = await admin.request('POST', api(`/team/${operator.id}/reactivate`));
    expect(again.status).toBe(409);
    expect(await activityOf(admin)).toEqual([
      ['reactivated', operator.name, {}],
      ['deactivated', operator.name, {}],
    ]);
  });
});

describe('invitations', () => {
  it('names the admin who invites in the mail', async () => {
    const { people, organization } = await organizationWith(['admin']);
    const admin = people.admin;
    const page = await signedIn(admin);
    const { mail } = await invite(page, uniqueEmail('named'), 'operator');
    expect(mail.parsed.subject).toBe(`You are invited to ${organization.name}`);
    expect(mail.parsed.text).toContain(
      `${admin?.name ?? ''} (${admin?.email ?? ''}) invited you to ${organization.name} on the Portico console, as an operator`,
    );
  });

  it('resends a pending invitation with a new link that ends the old one, not twice within a minute, and records it', async () => {
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const email = uniqueEmail('pending');
    const first = await invite(page, email, 'reviewer');
    const id = first.person.id;

    // Within a minute of the invitation, the list greys it with the wait, and the route refuses it alike.
    const soon = (await teamOf(page)).get(id)?.actions.resendInvitation;
    expect(soon).toEqual({
      allowed: false,
      reason: expect.stringMatching(
        new RegExp(
          `^An invitation went to ${email} \\d+ seconds ago: another can be sent in \\d+ seconds\\.$`,
        ),
      ),
    });
    const early = await page.request('POST', api(`/team/${id}/invitation`));
    expect(early.status).toBe(429);
    expect(early.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(Number(early.headers['retry-after'])).toBeGreaterThan(0);

    await ageInvitations(id, 61);
    expect((await teamOf(page)).get(id)?.actions.resendInvitation).toEqual({ allowed: true, reason: null });
    const received = world.smtp.received.length;
    const resent = await page.request('POST', api(`/team/${id}/invitation`));
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body).toMatchObject({
      person: { id, email, active: false },
      expiresAt: expect.any(String),
    });
    const mail = await mailTo(world.smtp, email, { after: received });
    expect(mail.parsed.text).toContain(
      `${people.admin?.name ?? ''} (${people.admin?.email ?? ''}) invited you`,
    );
    const token = linkToken(mail, 'invitation', `${TRANSACTIONS_URL}/console`);
    expect(token).not.toBe(first.token);

    expect((await checkLink('invitation', first.token)).body).toMatchObject({
      error: { code: 'LINK_EXPIRED' },
    });
    const theirs = browser(world);
    await theirs.session();
    const accepted = await theirs.request('POST', api('/invitation'), { token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user: { email, role: 'reviewer' } });
    expect(await activityOf(page)).toEqual([
      ['invitation_resent', email, {}],
      ['invited', email, { role: 'reviewer' }],
    ]);

    // Once accepted, there is no invitation to send again.
    const accepted409 = await page.request('POST', api(`/team/${id}/invitation`));
    expect(accepted409.status).toBe(409);
    expect(accepted409.body).toMatchObject({
      error: { message: expect.stringContaining('has accepted their invitation already') },
    });
  });

  it('mails at most 10 invitations to a person in a day, however far apart', async () => {
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const { person } = await invite(page, uniqueEmail('many'));
    for (let sent = 1; sent < 10; sent += 1) {
      await ageInvitations(person.id, 61);
      expect((await page.request('POST', api(`/team/${person.id}/invitation`))).status).toBe(200);
    }
    await ageInvitations(person.id, 61);
    const refused = await page.request('POST', api(`/team/${person.id}/invitation`));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { message: expect.stringContaining('10 invitations went to') },
    });
  });

  it('shows an invitee without a name by their address, and reactivating one who never accepted asks for a new invitation', async () => {
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const email = uniqueEmail('nameless');
    const { person } = await invite(page, email);
    expect((await teamOf(page)).get(person.id)).toMatchObject({ email, name: '', active: false });
    await ageInvitations(person.id, 61);
    expect((await page.request('POST', api(`/team/${person.id}/deactivate`))).status).toBe(200);
    expect((await page.request('POST', api(`/team/${person.id}/invitation`))).body).toMatchObject({
      error: {
        code: 'CONFLICT',
        message: `${email} is deactivated: reactivate them first, then send their invitation again.`,
      },
    });
    expect((await page.request('POST', api(`/team/${person.id}/reactivate`))).status).toBe(200);
    expect((await teamOf(page)).get(person.id)?.actions.resendInvitation).toEqual({
      allowed: true,
      reason: null,
    });
  });
});

describe('a mailed link, checked before its form', () => {
  it('answers whose a working link is without using it, and refuses a bad, used or expired one as using it would', async () => {
    const { people, organization } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const email = uniqueEmail('checked');
    const { token } = await invite(page, email, 'operator', 'Chuck Checked');

    const works = await checkLink('invitation', token);
    expect(works.status).toBe(200);
    expect(works.body).toEqual({
      email,
      name: 'Chuck Checked',
      tenantName: organization.name,
      expiresAt: expect.any(String),
    });
    expect((await checkLink('invitation', token)).status).toBe(200);
    // Another purpose's page does not take it.
    expect((await checkLink('password_reset', token)).body).toMatchObject({
      error: { code: 'LINK_INVALID' },
    });
    expect((await checkLink('invitation', 'garbage')).body).toMatchObject({
      error: {
        code: 'LINK_INVALID',
        message: 'This invitation is not valid: check that the whole link was opened.',
      },
    });

    const theirs = browser(world);
    await theirs.session();
    expect((await theirs.request('POST', api('/invitation'), { token, password: PASSWORD })).status).toBe(
      200,
    );
    const used = await checkLink('invitation', token);
    expect(used.status).toBe(410);
    expect(used.body).toMatchObject({
      error: { code: 'LINK_USED', message: 'This invitation has been used already: it works once.' },
    });

    const late = await invite(page, uniqueEmail('late'));
    await world.db.query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1`,
      [late.person.id],
    );
    expect((await checkLink('invitation', late.token)).body).toMatchObject({
      error: {
        code: 'LINK_EXPIRED',
        message: 'This invitation has expired: ask an admin to invite you again.',
      },
    });
  });

  it("checks a password reset link too, and refuses a link of a dashboard's invitation as not valid here", async () => {
    const { people, organization } = await organizationWith(['viewer']);
    const viewer = people.viewer;
    const page = browser(world);
    await page.session();
    const received = world.smtp.received.length;
    await page.request('POST', api('/password-reset'), { email: viewer?.email });
    const mail = await mailTo(world.smtp, viewer?.email ?? '', { after: received });
    const token = linkToken(mail, 'reset-password', `${TRANSACTIONS_URL}/console`);
    expect((await checkLink('password_reset', token)).body).toMatchObject({
      email: viewer?.email,
      tenantName: organization.name,
    });

    const instance = await createPortfolioInstance(world.db);
    const { link } = await inviteUser(world.db, {
      tenant: { kind: 'instance', id: instance.instanceId },
      email: uniqueEmail('dashboard'),
      role: 'member',
    });
    expect((await checkLink('invitation', link.token)).body).toMatchObject({
      error: { code: 'LINK_INVALID', message: 'This link is not valid here.' },
    });
  });

  it('checks at most 30 links in 15 minutes from one client address', async () => {
    const page = browser(world);
    await page.session();
    const answers: number[] = [];
    for (let check = 0; check < 31; check += 1) {
      answers.push(
        (await page.request('POST', api('/links/check'), { purpose: 'invitation', token: 'x' })).status,
      );
    }
    expect(answers.slice(0, 30).every((status) => status === 400)).toBe(true);
    expect(answers[30]).toBe(429);
  });
});

describe('one’s own password', () => {
  it('changes it given the current one: the other sessions end, this one stays, and the new one signs in', async () => {
    const { people } = await organizationWith(['operator']);
    const operator = people.operator;
    if (!operator) throw new Error('no operator');
    const here = await signedIn(operator);
    const elsewhere = await signedIn(operator);

    const wrong = await here.request('PUT', api('/password'), {
      currentPassword: 'not my password',
      password: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      error: {
        code: 'BAD_USER_INPUT',
        message: 'Your current password is not right.',
        details: { field: 'currentPassword' },
      },
    });
    const weak = await here.request('PUT', api('/password'), {
      currentPassword: PASSWORD,
      password: 'short',
    });
    expect(weak.body).toMatchObject({
      error: {
        code: 'BAD_USER_INPUT',
        message: 'The password must have at least 10 characters.',
        details: { field: 'password' },
      },
    });
    const theAddress = await here.request('PUT', api('/password'), {
      currentPassword: PASSWORD,
      password: operator.email,
    });
    expect(theAddress.body).toMatchObject({
      error: { message: 'The password must not be the e-mail address.' },
    });

    const changed = await here.request('PUT', api('/password'), {
      currentPassword: PASSWORD,
      password: 'a brand new passphrase',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ otherSessionsEnded: 1 });
    expect((await here.get(api('/team'))).status).toBe(200);
    expect((await elsewhere.get(api('/team'))).status).toBe(401);
    expect((await browser(world).signIn({ email: operator.email, password: PASSWORD })).status).toBe(401);
    await browser(world).signInOrThrow({ email: operator.email, password: 'a brand new passphrase' });
  });

  it('refuses it without a session, and counts wrong current passwords: the 11th in 15 minutes gets 429', async () => {
    const { people } = await organizationWith(['viewer']);
    const page = browser(world);
    await page.session();
    const anonymous = await page.request('PUT', api('/password'), {
      currentPassword: PASSWORD,
      password: 'whatever it is',
    });
    expect(anonymous.status).toBe(401);

    const viewer = await signedIn(people.viewer);
    // A right one between is not counted against the person.
    const right = await viewer.request('PUT', api('/password'), {
      currentPassword: PASSWORD,
      password: PASSWORD,
    });
    expect(right.status).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      const answer = await viewer.request('PUT', api('/password'), {
        currentPassword: 'a wrong guess',
        password: 'a brand new passphrase',
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 400), 429]);
  });
});
