// `portico org users reset-factors` and `portico portfolio users reset-factors`: the break-glass of an admin locked
// out of their second factor (docs/operations.md), run in-process on a database no server holds, mailing through a
// real SMTP server on loopback; the console team's activity names the operator.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginAuthenticator, useAuthenticatorCode } from '../../src/accounts/factors/authenticator.ts';
import { makeRecoveryCodes } from '../../src/accounts/factors/recovery-codes.ts';
import type { Database } from '../../src/db/database.ts';
import { getInstanceBySlug } from '../../src/portfolio/instances.ts';
import { teamActivityOf } from '../../src/transactions/history/team-activity.ts';
import { getOrganizationByHandle } from '../../src/transactions/organizations.ts';
import { cliOnTestDatabase } from '../support/cli.ts';
import { createPerson } from '../support/data/dashboard.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/peers/smtp.ts';
import { newInstance, uniqueSlug } from './portfolio-output.ts';

const { database, portico } = cliOnTestDatabase();
let smtp: TestSmtpServer;
let env: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  env = { PORTICO_SMTP_URL: smtp.url(), PORTICO_MAIL_FROM: 'Acme Funds <no-reply@acme.example>' };
});
afterAll(async () => {
  await smtp.close();
});

/** Gives the person an authenticator app, confirmed, and their recovery codes. */
async function withApp(db: Database, person: { id: string; email: string }): Promise<void> {
  const { secret } = await beginAuthenticator(db, { userId: person.id, email: person.email });
  const code = new TOTP({
    secret: Secret.fromBase32(secret.replaceAll(' ', '')),
    digits: 6,
    period: 30,
  }).generate();
  expect(await useAuthenticatorCode(db, person.id, code, { confirming: true })).toBe(true);
  await makeRecoveryCodes(db, person.id);
}

/** How many of the person's factors are left: apps and recovery codes. */
async function factorsLeft(db: Database, userId: string) {
  const [left] = await db.query<{ apps: number; codes: number }>(
    `select (select count(*)::int from authenticator_apps where user_id = $1) as apps,
            (select count(*)::int from recovery_codes where user_id = $1) as codes`,
    [userId],
  );
  return left;
}

describe('portico org users reset-factors', () => {
  it("removes a locked-out admin's factors, says what it did, mails them, and the team's activity names the operator", async () => {
    const handle = uniqueSlug('break-glass');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'Glass Capital'], env)).code).toBe(
      0,
    );
    const organization = await getOrganizationByHandle(database(), handle);
    const admin = await createPerson(database(), {
      tenant: { kind: 'organization', id: organization.id },
      role: 'admin',
    });
    await withApp(database(), admin);

    const before = smtp.received.length;
    const ran = await portico(
      ['org', 'users', 'reset-factors', admin.email.toUpperCase(), '--org', handle],
      env,
    );
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toContain(
      `Removed the second factors of ${admin.email} of ${handle} (authenticator, and their recovery codes).`,
    );
    expect(ran.stdout).toContain('0 sessions ended');
    expect(ran.stdout).toContain('They were mailed about it through PORTICO_SMTP_URL');
    expect(await factorsLeft(database(), admin.id)).toEqual({ apps: 0, codes: 0 });
    const mail = await smtp.nth(before + 1);
    expect(mail.envelope.to).toEqual([admin.email]);
    expect(mail.parsed.subject).toBe('Your two-step sign-in for Glass Capital was reset');
    expect(mail.parsed.text).toContain('The operator of the Portico console reset your two-step sign-in');

    const [entry] = await teamActivityOf(database(), { organizationId: organization.id });
    expect(entry).toMatchObject({
      kind: 'team',
      action: 'factors_reset',
      actor: { id: '', label: 'The operator of Portico' },
      person: { id: admin.id },
      details: { removed: ['authenticator'], sessionsEnded: 0 },
    });

    // Again: nothing left to remove, and it says so.
    const again = await portico(
      ['org', 'users', 'reset-factors', admin.email, '--org', handle, '--json'],
      env,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ email: admin.email, removed: [], sessionsEnded: 0 });
  });

  it('refuses an address with no account in the organization', async () => {
    const handle = uniqueSlug('break-glass');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'Glass Capital'], env)).code).toBe(
      0,
    );
    const ran = await portico(['org', 'users', 'reset-factors', 'nobody@acme.example', '--org', handle], env);
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain('nobody@acme.example');
  });
});

describe('portico portfolio users reset-factors', () => {
  it("removes a dashboard person's factors and mails them", async () => {
    const { slug } = await newInstance((args) => portico(args, env), uniqueSlug('break-glass'));
    const instance = await getInstanceBySlug(database(), slug);
    const person = await createPerson(database(), {
      tenant: { kind: 'instance', id: instance.id },
      role: 'admin',
    });
    await withApp(database(), person);
    const before = smtp.received.length;
    const ran = await portico(['portfolio', 'users', 'reset-factors', person.email, '--instance', slug], env);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toContain(`Removed the second factors of ${person.email} of ${slug}`);
    expect(await factorsLeft(database(), person.id)).toEqual({ apps: 0, codes: 0 });
    expect((await smtp.nth(before + 1)).parsed.text).toContain(
      'The operator of the Portfolio dashboard reset your two-step sign-in',
    );
  });
});
