// `portico portfolio users` and `portico org users`: the operator invites the people of a customer instance's
// dashboard and of an organization's console, run in-process on a database no server holds, mailing through a
// real SMTP server on loopback. Through a running `portico serve` (mail written to the data dir), see
// served.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCredentials, setPasswordWithLink } from '../../src/accounts/users.ts';
import { getInstanceBySlug } from '../../src/portfolio/instances.ts';
import { cliOnTestDatabase } from '../support/cli.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/peers/smtp.ts';
import { inviteArgs, newInstance, uniqueSlug } from './portfolio-output.ts';

const { database, portico } = cliOnTestDatabase();
const PORTFOLIO_URL = 'https://portfolio.acme.example';
const TRANSACTIONS_URL = 'https://transactions.acme.example';
let smtp: TestSmtpServer;
let env: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtpServer();
  env = {
    PORTICO_SMTP_URL: smtp.url(),
    PORTICO_MAIL_FROM: 'Acme Funds <no-reply@acme.example>',
    PORTICO_PORTFOLIO_URL: PORTFOLIO_URL,
    PORTICO_TRANSACTIONS_URL: TRANSACTIONS_URL,
  };
});
afterAll(async () => {
  await smtp.close();
});

/** The token of the invitation link (to the dashboard, unless `pages` says where) in a message's text. */
function tokenIn(text: string | undefined, pages = `${PORTFOLIO_URL}/dashboard`): string {
  const match = new RegExp(`${pages}/invitation#token=([A-Za-z0-9_-]{43})\\b`).exec(text ?? '');
  if (!match?.[1]) throw new Error(`no invitation link in: ${text ?? ''}`);
  return match[1];
}

/** The people of a `users list` table, a row each: the address, the role and whether they are active. */
function peopleIn(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s+/).slice(0, 3));
}

describe('portico portfolio users', () => {
  it('invites the first admin of an instance by mail, with a link that sets their password once', async () => {
    const { slug } = await newInstance((args) => portico(args, env), uniqueSlug('people'));
    const before = smtp.received.length;
    const ran = await portico(inviteArgs(slug, 'Ada@Example.com'), env);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toContain(`Invited ada@example.com to ${slug} as admin.`);
    expect(ran.stdout).toContain('The invitation went out through PORTICO_SMTP_URL');

    const mail = await smtp.nth(before + 1);
    expect(mail.envelope).toEqual({ from: 'no-reply@acme.example', to: ['ada@example.com'] });
    expect(mail.parsed.subject).toBe(`You are invited to ${slug} (test)`);
    expect(mail.parsed.text).toContain('as an admin (you can manage API keys and people)');
    const token = tokenIn(mail.parsed.text);
    expect(mail.parsed.html).toContain(`href="${PORTFOLIO_URL}/dashboard/invitation#token=${token}"`);

    const { tenantId, ...user } = await setPasswordWithLink(database(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token,
      password: 'a long enough passphrase',
    });
    const instance = await getInstanceBySlug(database(), slug);
    expect(tenantId).toBe(instance.id);
    await expect(
      checkCredentials(
        database(),
        { kind: 'instance', id: instance.id },
        {
          email: 'ada@example.com',
          password: 'a long enough passphrase',
        },
      ),
    ).resolves.toEqual(user);
  });

  it('lists the people of an instance with their role and whether they have accepted', async () => {
    const { slug } = await newInstance((args) => portico(args, env), uniqueSlug('people'));
    const empty = await portico(['portfolio', 'users', 'list', '--instance', slug], env);
    expect(empty.stdout.trim()).toBe(
      `${slug} has no users yet: invite one with "portico portfolio users invite".`,
    );

    await portico(inviteArgs(slug, 'lead@example.com'), env);
    const mail = await portico(
      inviteArgs(slug, 'analyst@example.com', '--role', 'member', '--name', 'Ana Lyst', '--json'),
      env,
    );
    const invited = JSON.parse(mail.stdout);
    expect(invited).toMatchObject({
      instance: slug,
      user: { email: 'analyst@example.com', role: 'member', name: 'Ana Lyst', active: false },
      mail: { via: 'smtp' },
    });
    const received = await smtp.nth(smtp.received.length);
    await setPasswordWithLink(database(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token: tokenIn(received.parsed.text),
      password: 'another good passphrase',
    });

    const listed = await portico(['portfolio', 'users', 'list', '--instance', slug], env);
    expect(peopleIn(listed.stdout)).toEqual([
      ['lead@example.com', 'admin', 'invited'],
      ['analyst@example.com', 'member', 'active'],
    ]);
    const json = JSON.parse(
      (await portico(['portfolio', 'users', 'list', '--instance', slug, '--json'], env)).stdout,
    );
    expect(json.map((user: { email: string }) => user.email)).toEqual([
      'lead@example.com',
      'analyst@example.com',
    ]);
  });

  it('refuses an unknown instance, an address that is not one, a role that does not exist, and a person who has accepted already', async () => {
    const { slug } = await newInstance((args) => portico(args, env), uniqueSlug('people'));
    const before = smtp.received.length;
    const unknown = await portico(inviteArgs('no-such-instance', 'a@example.com'), env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no-such-instance');

    const bad = await portico(inviteArgs(slug, 'not an address'), env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"not an address" is not an e-mail address.');

    const role = await portico(inviteArgs(slug, 'a@example.com', '--role', 'owner'), env);
    expect(role.code).not.toBe(0);
    expect(role.stderr).toContain('Allowed choices are admin, member.');
    expect(smtp.received).toHaveLength(before);

    await portico(inviteArgs(slug, 'done@example.com'), env);
    await setPasswordWithLink(database(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token: tokenIn((await smtp.nth(before + 1)).parsed.text),
      password: 'a long enough passphrase',
    });
    const again = await portico(inviteArgs(slug, 'done@example.com'), env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('done@example.com has an account here already.');
    expect(smtp.received).toHaveLength(before + 1);
  });

  it('says the person is invited but the mail failed, and running it again mails a link that works', async () => {
    const { slug } = await newInstance((args) => portico(args, env), uniqueSlug('people'));
    const guarded = await startSmtpServer({ user: 'portico', password: 'right' });
    try {
      const failing = { ...env, PORTICO_SMTP_URL: guarded.url({ user: 'portico', password: 'wrong' }) };
      const failed = await portico(inviteArgs(slug, 'retry@example.com'), failing);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('retry@example.com is invited, but the invitation could not be mailed');
      expect(failed.stderr).toContain('invite them again once mail works');
      expect(failed.stderr).not.toContain('wrong');

      const before = smtp.received.length;
      const retried = await portico(inviteArgs(slug, 'retry@example.com'), env);
      expect(retried.code).toBe(0);
      const token = tokenIn((await smtp.nth(before + 1)).parsed.text);
      await expect(
        setPasswordWithLink(database(), {
          tenantKind: 'instance',
          purpose: 'invitation',
          token,
          password: 'a long enough passphrase',
        }),
      ).resolves.toMatchObject({ email: 'retry@example.com', active: true });
    } finally {
      await guarded.close();
    }
  });
});

describe('portico org users', () => {
  it("invites an organization's first admin to the console by mail, lists its people, and refuses a dashboard role", async () => {
    const handle = uniqueSlug('console');
    expect((await portico(['org', 'create', '--handle', handle, '--name', 'Acme Funds'], env)).code).toBe(0);
    const empty = await portico(['org', 'users', 'list', '--org', handle], env);
    expect(empty.stdout.trim()).toBe(
      `${handle} has no users yet: invite one with "portico org users invite".`,
    );

    const before = smtp.received.length;
    const ran = await portico(
      ['org', 'users', 'invite', '--org', handle, '--email', 'Lead@Acme.example'],
      env,
    );
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ran.stdout).toContain(`Invited lead@acme.example to ${handle} as admin.`);
    const mail = await smtp.nth(before + 1);
    expect(mail.parsed.subject).toBe('You are invited to Acme Funds');
    expect(mail.parsed.text).toContain('on the Portico console, as an admin');
    const token = tokenIn(mail.parsed.text, `${TRANSACTIONS_URL}/console`);
    await setPasswordWithLink(database(), {
      tenantKind: 'organization',
      purpose: 'invitation',
      token,
      password: 'a long enough passphrase',
    });
    const reviewer = await portico(
      ['org', 'users', 'invite', '--org', handle, '--email', 'rev@acme.example', '--role', 'reviewer'],
      env,
    );
    expect(reviewer.stdout).toContain('as reviewer.');
    expect((await smtp.nth(before + 2)).parsed.text).toContain(
      "as a reviewer (you can review recipients' answers",
    );

    const member = await portico(
      ['org', 'users', 'invite', '--org', handle, '--email', 'm@acme.example', '--role', 'member'],
      env,
    );
    expect(member.code).not.toBe(0);
    expect(member.stderr).toContain('Allowed choices are admin, operator, reviewer, viewer.');

    const listed = await portico(['org', 'users', 'list', '--org', handle], env);
    expect(peopleIn(listed.stdout)).toEqual([
      ['lead@acme.example', 'admin', 'active'],
      ['rev@acme.example', 'reviewer', 'invited'],
    ]);
  });
});
