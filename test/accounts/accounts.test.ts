import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { invitationMail } from '../../src/accounts/account-mail.ts';
import {
  checkCredentials,
  checkCredentialsInAnyTenant,
  getUser,
  inviteUser,
  listUsers,
  requestPasswordReset,
  setPasswordWithLink,
  type AccountTenant,
} from '../../src/accounts/users.ts';
import { insertTenant } from '../../src/db/tenants.ts';
import { createInstance } from '../../src/portfolio/instances.ts';
import { refusal } from '../support/refusal.ts';
import { useTestDatabase } from '../support/db/use-test-database.ts';
import { uniqueHandle } from '../support/data/transactions.ts';

const PASSWORD = 'a long enough passphrase';

const test = useTestDatabase();
const db = () => test.db;

/** A fresh customer instance, as a tenant of accounts. */
async function instance(): Promise<AccountTenant> {
  const created = await createInstance(db(), { slug: uniqueHandle('acct'), name: 'Accounts Test' });
  return { kind: 'instance', id: created.id };
}

/** An active user of the tenant with PASSWORD, through an accepted invitation. */
async function activeUser(tenant: AccountTenant, email: string, role: 'admin' | 'member' = 'member') {
  const { link } = await inviteUser(db(), { tenant, email, role });
  const { tenantId, ...user } = await setPasswordWithLink(db(), {
    purpose: 'invitation',
    tenantKind: tenant.kind,
    token: link.token,
    password: PASSWORD,
  });
  expect(tenantId).toBe(tenant.id);
  return user;
}

describe('invitations', () => {
  it('invites a person as a user without a password, keeping only the SHA-256 of the link', async () => {
    const tenant = await instance();
    const { user, link } = await inviteUser(db(), { tenant, email: ' Ada@Example.com ', role: 'admin' });
    expect(user).toMatchObject({ email: 'ada@example.com', role: 'admin', active: false, name: '' });
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.expiresAt.getTime() - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);

    const stored = await db().query('select * from user_links where user_id = $1', [user.id]);
    expect(stored).toHaveLength(1);
    expect(Buffer.from(stored[0]?.token_hash as Uint8Array)).toEqual(
      createHash('sha256').update(link.token).digest(),
    );
    expect(JSON.stringify(stored)).not.toContain(link.token);
  });

  it('accepting sets an argon2id password and the name, after which the person signs in with any case of the address', async () => {
    const tenant = await instance();
    const { link } = await inviteUser(db(), { tenant, email: 'grace@example.com', role: 'member' });
    const { tenantId, ...user } = await setPasswordWithLink(db(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token: link.token,
      password: PASSWORD,
      name: ' Grace Hopper ',
    });
    expect(tenantId).toBe(tenant.id);
    expect(user).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper', active: true });
    const [row] = await db().query<{ passwordHash: string }>(
      'select password_hash as "passwordHash" from users where id = $1',
      [user.id],
    );
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row?.passwordHash).not.toContain(PASSWORD);

    const signedIn = await checkCredentials(db(), tenant, { email: 'GRACE@example.com', password: PASSWORD });
    expect(signedIn).toEqual(user);
  });

  it('works once: the same link again answers LINK_USED and changes nothing', async () => {
    const tenant = await instance();
    const { link } = await inviteUser(db(), { tenant, email: 'once@example.com', role: 'member' });
    await setPasswordWithLink(db(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token: link.token,
      password: PASSWORD,
    });
    const again = await refusal(
      setPasswordWithLink(db(), {
        tenantKind: 'instance',
        purpose: 'invitation',
        token: link.token,
        password: 'another passphrase',
      }),
    );
    expect(again).toMatchObject({ code: 'LINK_USED', status: 410 });
    await expect(
      checkCredentials(db(), tenant, { email: 'once@example.com', password: PASSWORD }),
    ).resolves.toMatchObject({ email: 'once@example.com' });
  });

  it('lets exactly one of two simultaneous uses of one link through', async () => {
    const tenant = await instance();
    const { link } = await inviteUser(db(), { tenant, email: 'race@example.com', role: 'member' });
    const outcomes = await Promise.allSettled(
      ['first passphrase!', 'second passphrase'].map((password) =>
        setPasswordWithLink(db(), {
          tenantKind: 'instance',
          purpose: 'invitation',
          token: link.token,
          password,
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const [rejected] = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(rejected?.reason).toMatchObject({ code: 'LINK_USED' });
  });

  it('refuses an expired invitation with LINK_EXPIRED, saying to ask for a new one', async () => {
    const tenant = await instance();
    const { user, link } = await inviteUser(db(), { tenant, email: 'late@example.com', role: 'member' });
    await db().query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1`,
      [user.id],
    );
    const late = await refusal(
      setPasswordWithLink(db(), {
        tenantKind: 'instance',
        purpose: 'invitation',
        token: link.token,
        password: PASSWORD,
      }),
    );
    expect(late).toMatchObject({ code: 'LINK_EXPIRED', status: 410 });
    expect(late.message).toContain('ask an admin to invite you again');
    expect((await getUser(db(), tenant, user.id)).active).toBe(false);
  });

  it('ends the earlier link when a person is invited again: the old one answers LINK_EXPIRED, the new one works and sets the new role', async () => {
    const tenant = await instance();
    const first = await inviteUser(db(), { tenant, email: 'twice@example.com', role: 'member' });
    const second = await inviteUser(db(), { tenant, email: 'twice@example.com', role: 'admin' });
    expect(second.user.id).toBe(first.user.id);
    expect(
      await refusal(
        setPasswordWithLink(db(), {
          tenantKind: 'instance',
          purpose: 'invitation',
          token: first.link.token,
          password: PASSWORD,
        }),
      ),
    ).toMatchObject({ code: 'LINK_EXPIRED' });
    const user = await setPasswordWithLink(db(), {
      tenantKind: 'instance',
      purpose: 'invitation',
      token: second.link.token,
      password: PASSWORD,
    });
    expect(user).toMatchObject({ role: 'admin', active: true });
  });

  it('answers LINK_INVALID for a token that names no link, and for a reset token used as an invitation', async () => {
    const tenant = await instance();
    await activeUser(tenant, 'mixed@example.com');
    const reset = await requestPasswordReset(db(), tenant, 'mixed@example.com');
    for (const token of ['not-a-token', reset?.link.token ?? '']) {
      expect(
        await refusal(
          setPasswordWithLink(db(), {
            tenantKind: 'instance',
            purpose: 'invitation',
            token,
            password: PASSWORD,
          }),
        ),
      ).toMatchObject({ code: 'LINK_INVALID', status: 400 });
    }
  });

  it.each([
    ['short', 'at least 10 characters'],
    ['x'.repeat(201), 'at most 200 characters'],
    ['weak@example.com', 'must not be the e-mail address'],
  ])(
    'refuses the password %j with BAD_USER_INPUT (%s) and leaves the link usable',
    async (password, says) => {
      const tenant = await instance();
      const { link } = await inviteUser(db(), { tenant, email: 'weak@example.com', role: 'member' });
      const weak = await refusal(
        setPasswordWithLink(db(), {
          tenantKind: 'instance',
          purpose: 'invitation',
          token: link.token,
          password,
        }),
      );
      expect(weak).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'password' } });
      expect(weak.message).toContain(says);
      await expect(
        setPasswordWithLink(db(), {
          tenantKind: 'instance',
          purpose: 'invitation',
          token: link.token,
          password: PASSWORD,
        }),
      ).resolves.toMatchObject({ active: true });
    },
  );

  it.each([
    'ada',
    'ada@',
    '@example.com',
    'ada @example.com',
    'ada@example',
    `${'a'.repeat(250)}@example.com`,
  ])('refuses to invite %j with BAD_USER_INPUT naming the field email', async (email) => {
    const tenant = await instance();
    expect(await refusal(inviteUser(db(), { tenant, email, role: 'member' }))).toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'email' },
    });
    expect(await listUsers(db(), tenant)).toEqual([]);
  });

  it('refuses to invite an address with an active account in the tenant (CONFLICT); in another tenant it is another user', async () => {
    const tenant = await instance();
    const other = await instance();
    const existing = await activeUser(tenant, 'taken@example.com');
    expect(
      await refusal(inviteUser(db(), { tenant, email: 'Taken@example.com', role: 'admin' })),
    ).toMatchObject({
      code: 'CONFLICT',
      details: { field: 'email' },
    });
    expect(await getUser(db(), tenant, existing.id)).toMatchObject({ role: 'member', active: true });

    const elsewhere = await inviteUser(db(), { tenant: other, email: 'taken@example.com', role: 'admin' });
    expect(elsewhere.user.id).not.toBe(existing.id);
  });
});

describe('signing in', () => {
  it('answers INVALID_CREDENTIALS with one message for a wrong password, an unknown address and an invited user', async () => {
    const tenant = await instance();
    await activeUser(tenant, 'known@example.com');
    await inviteUser(db(), { tenant, email: 'pending@example.com', role: 'member' });
    const answers = await Promise.all(
      [
        { email: 'known@example.com', password: 'not the passphrase' },
        { email: 'nobody@example.com', password: PASSWORD },
        { email: 'pending@example.com', password: PASSWORD },
        { email: 'pending@example.com', password: '' },
      ].map((credentials) => refusal(checkCredentials(db(), tenant, credentials))),
    );
    expect(new Set(answers.map((answer) => `${answer.code} ${answer.status} ${answer.message}`))).toEqual(
      new Set(['INVALID_CREDENTIALS 401 The e-mail address or the password is not right.']),
    );
  });

  it("keeps tenants apart: one tenant's user neither signs in to another nor is found there", async () => {
    const tenant = await instance();
    const other = await instance();
    const user = await activeUser(tenant, 'apart@example.com');
    expect(
      await refusal(checkCredentials(db(), other, { email: 'apart@example.com', password: PASSWORD })),
    ).toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(await refusal(getUser(db(), other, user.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await listUsers(db(), other)).toEqual([]);
  });

  it('keeps one password per address: a password set in one instance opens every instance of the address, and ends the sessions of each', async () => {
    const [first, second] = [await instance(), await instance()];
    const email = `${uniqueHandle('one')}@example.com`;
    const inFirst = await activeUser(first, email);
    await db().query(
      `insert into user_sessions (id_hash, user_id, data, expires_at)
       values ($1, $2, '{}', clock_timestamp() + interval '1 hour')`,
      [createHash('sha256').update(email).digest(), inFirst.id],
    );
    const { link } = await inviteUser(db(), { tenant: second, email, role: 'member' });
    await setPasswordWithLink(db(), {
      purpose: 'invitation',
      tenantKind: 'instance',
      token: link.token,
      password: 'the one new passphrase',
    });

    const opened = await checkCredentialsInAnyTenant(db(), 'instance', {
      email,
      password: 'the one new passphrase',
    });
    expect(opened.map((match) => match.tenantId)).toEqual([first.id, second.id]);
    expect(await refusal(checkCredentials(db(), first, { email, password: PASSWORD }))).toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
    expect(await db().query('select 1 from user_sessions where user_id = $1', [inFirst.id])).toEqual([]);
    // Naming a tenant opens only that one.
    const named = await checkCredentialsInAnyTenant(
      db(),
      'instance',
      { email, password: 'the one new passphrase' },
      { tenantIds: [second.id] },
    );
    expect(named.map((match) => match.tenantId)).toEqual([second.id]);
  });

  it('serves organizations (the Transactions tenants) the same way', async () => {
    const organization = await insertTenant(db(), 'organization', {
      short: uniqueHandle('acct'),
      name: 'Org',
    });
    const tenant: AccountTenant = { kind: 'organization', id: organization.id };
    const user = await activeUser(tenant, 'staff@example.com', 'admin');
    await expect(
      checkCredentials(db(), tenant, { email: 'staff@example.com', password: PASSWORD }),
    ).resolves.toEqual(user);
    expect(await listUsers(db(), tenant)).toEqual([user]);
  });
});

describe('password reset', () => {
  it('gives a link only for an active user; the link sets a new password once and the old one stops working', async () => {
    const tenant = await instance();
    await activeUser(tenant, 'forgot@example.com');
    await inviteUser(db(), { tenant, email: 'invited@example.com', role: 'member' });
    expect(await requestPasswordReset(db(), tenant, 'nobody@example.com')).toBeUndefined();
    expect(await requestPasswordReset(db(), tenant, 'invited@example.com')).toBeUndefined();

    const reset = await requestPasswordReset(db(), tenant, ' Forgot@Example.com');
    if (!reset) throw new Error('an active user gets a reset link');
    expect(reset.link.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600 * 1000);
    await setPasswordWithLink(db(), {
      tenantKind: 'instance',
      purpose: 'password_reset',
      token: reset.link.token,
      password: 'a brand new passphrase',
    });

    expect(
      await refusal(checkCredentials(db(), tenant, { email: 'forgot@example.com', password: PASSWORD })),
    ).toMatchObject({ code: 'INVALID_CREDENTIALS' });
    await expect(
      checkCredentials(db(), tenant, { email: 'forgot@example.com', password: 'a brand new passphrase' }),
    ).resolves.toMatchObject({ email: 'forgot@example.com' });
    expect(
      await refusal(
        setPasswordWithLink(db(), {
          tenantKind: 'instance',
          purpose: 'password_reset',
          token: reset.link.token,
          password: PASSWORD,
        }),
      ),
    ).toMatchObject({ code: 'LINK_USED' });
  });

  it('says to ask for a new link when a reset link has expired', async () => {
    const tenant = await instance();
    const user = await activeUser(tenant, 'slow@example.com');
    const reset = await requestPasswordReset(db(), tenant, 'slow@example.com');
    await db().query(
      `update user_links set expires_at = clock_timestamp() - interval '1 second' where user_id = $1 and purpose = 'password_reset'`,
      [user.id],
    );
    const late = await refusal(
      setPasswordWithLink(db(), {
        tenantKind: 'instance',
        purpose: 'password_reset',
        token: reset?.link.token ?? '',
        password: PASSWORD,
      }),
    );
    expect(late).toMatchObject({ code: 'LINK_EXPIRED' });
    expect(late.message).toBe('This password reset link has expired: ask for a new one.');
  });
});

describe('the invitation mail', () => {
  it('says the same in text and HTML, escaping the names it shows in the HTML part', () => {
    const mail = invitationMail({
      to: 'ada@example.com',
      tenantName: 'A&B <Ventures>',
      product: 'the Portfolio dashboard',
      role: 'member',
      link: 'https://portfolio.example.com/dashboard/invitation#token=abc',
      expiresAt: new Date('2026-11-30T19:49:00Z'),
    });
    expect(mail.subject).toBe('You are invited to A&B <Ventures>');
    expect(mail.text).toBe(
      [
        'You have been invited to A&B <Ventures> on the Portfolio dashboard, as a member.',
        '',
        'Set your password to accept:',
        'https://portfolio.example.com/dashboard/invitation#token=abc',
        '',
        'The link works once, until 30 November 2026, 19:49 UTC. If you did not expect this invitation, ignore this message.',
        '',
      ].join('\n'),
    );
    expect(mail.html).toContain('A&amp;B &lt;Ventures&gt;');
    expect(mail.html).not.toContain('<Ventures>');
    expect(mail.html).toContain('<a href="https://portfolio.example.com/dashboard/invitation#token=abc">');
    expect(mail.links).toEqual(['https://portfolio.example.com/dashboard/invitation#token=abc']);
  });
});
