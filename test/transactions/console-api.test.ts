// The organization console's JSON routes on the Transactions service (/console/api): signing in to an
// organization, the team and its roles, invitations and password resets by real SMTP on loopback, and that no
// organization reads or changes another's. Every request comes "through a TLS-terminating proxy"
// (x-forwarded-proto: https), as the session cookie is Secure.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPortfolioInstance } from '../support/portfolio.ts';
import type { ConsoleRole } from '../../src/accounts/roles.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../../src/transactions/console/links.ts';
import { createOrganization } from '../../src/transactions/organizations.ts';
import {
  Browser,
  PASSWORD,
  createPerson,
  linkToken,
  mailTo,
  smtpWithMailer,
  stubDashboardBuild,
  uniqueEmail,
  type DashboardPerson,
  type SignInSurface,
} from '../support/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { createTestDatabase } from '../support/database.ts';
import { createTestFileStore, uniqueHandle } from '../support/transactions.ts';

const TRANSACTIONS_URL = 'https://transactions.test';
const CONSOLE: SignInSurface = { apiPath: CONSOLE_API_PATH, cookie: CONSOLE_SESSION_COOKIE };
const api = (path: string) => `${CONSOLE_API_PATH}${path}`;

const world = madeBeforeAll('the console', async (closeAfterAll) => {
  const testDb = await createTestDatabase();
  closeAfterAll(() => testDb.close());
  const store = await createTestFileStore();
  closeAfterAll(store.cleanup);
  const build = await stubDashboardBuild();
  closeAfterAll(build.cleanup);
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  const app = await buildTransactionsApp({
    db: testDb.db,
    files: store.files,
    environment: 'staging',
    trustProxy: true,
    webDistDir: build.distDir,
    console: { mailer, transactionsUrl: () => TRANSACTIONS_URL },
  });
  closeAfterAll(() => app.close());
  return { db: testDb.db, smtp, app };
});

/** A new organization of its own, with a person of each role asked for (admin first). */
async function organizationWith(roles: ConsoleRole[] = ['admin']) {
  const handle = uniqueHandle('console');
  const organization = await createOrganization(world.db, { handle, name: `Fund <${handle}>` });
  const people: Partial<Record<ConsoleRole, DashboardPerson>> = {};
  for (const role of roles) {
    people[role] = await createPerson(world.db, {
      tenant: { kind: 'organization', id: organization.id },
      role,
    });
  }
  return { organization, people, handle };
}

function browser(): Browser {
  return new Browser(world.app, undefined, CONSOLE);
}

async function signedIn(person: DashboardPerson | undefined): Promise<Browser> {
  if (!person) throw new Error('no such person in this organization');
  return browser().signInOrThrow({ email: person.email, password: person.password });
}

describe('signing in to the console', () => {
  it("signs a person in to their organization's console, answers who they are with a CSRF token, and signs them out", async () => {
    const { people, handle, organization } = await organizationWith(['operator']);
    const operator = people.operator;
    const page = await signedIn(operator);
    expect(page.cookieAttributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', `Path=${CONSOLE_API_PATH}`]),
    );
    const session = await page.session();
    expect(session.body).toEqual({
      csrfToken: expect.any(String),
      user: { id: operator?.id, email: operator?.email, name: operator?.name, role: 'operator' },
      organization: { handle, name: organization.name },
    });
    expect((await page.request('DELETE', api('/session'))).status).toBe(200);
    expect((await page.session()).body).toMatchObject({ user: null, organization: null });
    expect((await page.get(api('/team'))).status).toBe(401);
  });

  it('asks which organization when one address and password open two, and signs in to the one named', async () => {
    const email = uniqueEmail('two-funds');
    const first = await organizationWith([]);
    const second = await organizationWith([]);
    for (const { organization } of [first, second]) {
      await createPerson(world.db, {
        tenant: { kind: 'organization', id: organization.id },
        role: 'viewer',
        email,
      });
    }
    const page = browser();
    const ask = await page.signIn({ email, password: PASSWORD });
    expect(ask.status).toBe(409);
    expect(ask.body).toMatchObject({
      error: {
        code: 'ORGANIZATION_CHOICE_REQUIRED',
        details: {
          organizations: expect.arrayContaining([
            { handle: first.handle, name: first.organization.name },
            { handle: second.handle, name: second.organization.name },
          ]),
        },
      },
    });
    const chosen = await page.signIn({ email, password: PASSWORD, organization: second.handle });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ organization: { handle: second.handle } });
  });

  it('does not sign a dashboard person in to the console, and answers as for a wrong password', async () => {
    const instance = await createPortfolioInstance(world.db);
    const person = await createPerson(world.db, {
      tenant: { kind: 'instance', id: instance.instanceId },
      role: 'admin',
    });
    const refused = await browser().signIn({ email: person.email, password: person.password });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { code: 'INVALID_CREDENTIALS' } });
  });

  it('refuses a change without the CSRF token of the session', async () => {
    const { people } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const refused = await page.request(
      'POST',
      api('/team'),
      { email: uniqueEmail(), role: 'viewer' },
      { csrfToken: null },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: { code: 'CSRF_INVALID' } });
  });
});

describe('the team', () => {
  it('lets an admin invite a reviewer by mail, whose link sets their password and signs them in as a reviewer', async () => {
    const { people, organization } = await organizationWith(['admin']);
    const page = await signedIn(people.admin);
    const email = uniqueEmail('reviewer');
    const received = world.smtp.received.length;
    const invited = await page.request('POST', api('/team'), {
      email,
      role: 'reviewer',
      name: 'Rae <b>View</b>',
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({
      person: { email, role: 'reviewer', name: 'Rae <b>View</b>', active: false, deactivatedAt: null },
    });

    const mail = await mailTo(world.smtp, email, { after: received });
    expect(mail.parsed.subject).toBe(`You are invited to ${organization.name}`);
    const token = linkToken(mail, 'invitation', `${TRANSACTIONS_URL}/console`);
    const theirs = browser();
    await theirs.session();
    const accepted = await theirs.request('POST', api('/invitation'), { token, password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user: { email, role: 'reviewer' } });

    const team = await page.get(api('/team'));
    expect(team.body).toMatchObject({
      people: [
        { email: people.admin?.email, role: 'admin', active: true },
        { email, role: 'reviewer', active: true },
      ],
    });
  });

  it.each(['operator', 'reviewer', 'viewer'] as const)(
    'refuses a %s who invites or deactivates people with 403 naming who may, and changes nothing',
    async (role) => {
      const { people, organization } = await organizationWith(['admin', role]);
      const page = await signedIn(people[role]);
      expect((await page.get(api('/team'))).status).toBe(200);
      const invite = await page.request('POST', api('/team'), { email: uniqueEmail(), role: 'admin' });
      expect(invite.status).toBe(403);
      expect(invite.body).toMatchObject({
        error: {
          code: 'FORBIDDEN',
          message: `Only admins invite people; you are a ${role} of ${organization.name}.`,
        },
      });
      const deactivate = await page.request('POST', api(`/team/${people.admin?.id ?? ''}/deactivate`));
      expect(deactivate.status).toBe(403);
      const [row] = await world.db.query<{ count: string }>(
        'select count(*) from users where organization_id = $1 and deactivated_at is null',
        [organization.id],
      );
      expect(Number(row?.count)).toBe(2);
    },
  );

  it('deactivates a person: their session ends at once, they cannot sign in, and inviting them again brings them back', async () => {
    const { people, organization } = await organizationWith(['admin', 'operator']);
    const admin = await signedIn(people.admin);
    const operator = people.operator;
    const theirs = await signedIn(operator);

    const done = await admin.request('POST', api(`/team/${operator?.id ?? ''}/deactivate`));
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ person: { id: operator?.id, deactivatedAt: expect.any(String) } });
    expect((await theirs.get(api('/team'))).status).toBe(401);
    const again = await browser().signIn({ email: operator?.email ?? '', password: PASSWORD });
    expect(again.status).toBe(401);

    const received = world.smtp.received.length;
    const invited = await admin.request('POST', api('/team'), { email: operator?.email, role: 'viewer' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ person: { role: 'viewer', active: false, deactivatedAt: null } });
    const token = linkToken(
      await mailTo(world.smtp, operator?.email ?? '', { after: received }),
      'invitation',
      `${TRANSACTIONS_URL}/console`,
    );
    const back = browser();
    await back.session();
    expect(
      (await back.request('POST', api('/invitation'), { token, password: `${PASSWORD}!` })).body,
    ).toMatchObject({
      user: { role: 'viewer' },
      organization: { name: organization.name },
    });
  });

  it("refuses an admin's own deactivation, and answers another organization's person as one that does not exist", async () => {
    const mine = await organizationWith(['admin']);
    const theirs = await organizationWith(['admin']);
    const admin = await signedIn(mine.people.admin);
    const self = await admin.request('POST', api(`/team/${mine.people.admin?.id ?? ''}/deactivate`));
    expect(self.status).toBe(409);
    expect(self.body).toMatchObject({
      error: { code: 'CONFLICT', message: 'You cannot deactivate yourself: ask another admin.' },
    });
    for (const id of [theirs.people.admin?.id ?? '', randomUUID()]) {
      const other = await admin.request('POST', api(`/team/${id}/deactivate`));
      expect(other.status).toBe(404);
      expect(other.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
    const [row] = await world.db.query<{ deactivatedAt: Date | null }>(
      'select deactivated_at as "deactivatedAt" from users where id = $1',
      [theirs.people.admin?.id],
    );
    expect(row?.deactivatedAt).toBeNull();
  });

  it('mails a password reset link to the console, which sets a new password and ends the old sessions', async () => {
    const { people } = await organizationWith(['viewer']);
    const viewer = people.viewer;
    const old = await signedIn(viewer);
    const page = browser();
    await page.session();
    const received = world.smtp.received.length;
    expect((await page.request('POST', api('/password-reset'), { email: viewer?.email })).status).toBe(202);
    const mail = await mailTo(world.smtp, viewer?.email ?? '', { after: received });
    const token = linkToken(mail, 'reset-password', `${TRANSACTIONS_URL}/console`);
    const confirmed = await page.request('POST', api('/password-reset/confirm'), {
      token,
      password: 'a brand new passphrase',
    });
    expect(confirmed.status).toBe(200);
    expect((await old.get(api('/team'))).status).toBe(401);
    await browser().signInOrThrow({ email: viewer?.email ?? '', password: 'a brand new passphrase' });
  });
});
