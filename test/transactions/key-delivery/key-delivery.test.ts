import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../src/config.ts';
import { apiKeys } from '../../../src/keys/api-key-store.ts';
import {
  describeDelivery,
  expireDeliveries,
  issueCode,
  issueKeyDelivery,
  listDeliveries,
  revealKey,
  revokeDelivery,
  secretProof,
  type RevealedKey,
} from '../../../src/transactions/key-delivery/deliveries.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import { refusal } from '../../support/refusal.ts';
import { useTestDatabase } from '../../support/db/use-test-database.ts';
import { uniqueHandle } from '../../support/data/transactions.ts';

const database = useTestDatabase();
const db = () => database.db;

const CLIENT = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (test)' };

/** A delivery of a new organization's key to `emails`, and what its link carries. */
async function deliver(
  options: {
    emails?: string[];
    environment?: Environment;
    viewsRequired?: 'first' | 'all';
    minutes?: number;
  } = {},
) {
  const organization = await createOrganization(db(), { handle: uniqueHandle('kd'), name: 'Acme Funds' });
  const issued = await issueKeyDelivery(db(), {
    organizationId: organization.id,
    environment: options.environment ?? 'staging',
    emails: options.emails ?? ['ada@example.com'],
    name: 'erp',
    expiresInMinutes: options.minutes,
    viewsRequired: options.viewsRequired,
  });
  return { organization, ...issued, link: { linkId: issued.linkId, proof: secretProof(issued.secret) } };
}

/** Decrypts a revealed key as the delivery page does: WebCrypto, the link's secret, the link's id as AAD. */
async function decrypt(revealed: RevealedKey, linkId: string, secret: string): Promise<string> {
  const key = await webcrypto.subtle.importKey('raw', Buffer.from(secret, 'base64url'), 'AES-GCM', false, [
    'decrypt',
  ]);
  const plain = await webcrypto.subtle.decrypt(
    {
      name: 'AES-GCM',
      iv: Buffer.from(revealed.iv, 'base64url'),
      additionalData: Buffer.from(linkId),
    },
    key,
    Buffer.from(revealed.ciphertext, 'base64url'),
  );
  return new TextDecoder().decode(plain);
}

describe('issuing a key delivery', () => {
  it('stores the key only encrypted and hashed: the database holds neither the key nor the link or its secret', async () => {
    const delivered = await deliver();
    const { code } = await issueCode(db(), { ...delivered.link, email: 'ada@example.com' });
    const revealed = await revealKey(db(), { ...delivered.link, email: 'ada@example.com', code, ...CLIENT });
    const key = await decrypt(revealed, delivered.linkId, delivered.secret);
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    expect(revealed.keyPrefix).toBe(key.slice(0, 12));

    const dump = JSON.stringify(
      await db().query(
        `select d.*, r.*, c.* from key_deliveries d join key_delivery_recipients r on r.delivery_id = d.id
         left join key_delivery_codes c on c.delivery_id = d.id where d.id = $1`,
        [delivered.delivery.id],
      ),
    );
    for (const secret of [key, delivered.secret, delivered.linkId, code, key.slice(12)]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret).toString('hex'));
    }
  });

  it('issues the key in the environment asked for, working at once', async () => {
    const delivered = await deliver({ environment: 'production' });
    const { code } = await issueCode(db(), { ...delivered.link, email: 'ada@example.com' });
    const revealed = await revealKey(db(), { ...delivered.link, email: 'ADA@example.com ', code, ...CLIENT });
    const key = await decrypt(revealed, delivered.linkId, delivered.secret);
    expect(key.startsWith('sk_live_')).toBe(true);
    expect(await apiKeys.find(db(), key)).toMatchObject({
      organizationId: delivered.organization.id,
      environment: 'production',
      revokedAt: null,
    });
  });

  it.each([
    { refused: 'no address', emails: [], message: /at least one e-mail address/ },
    {
      refused: 'an address that is not one',
      emails: ['not-an-address'],
      message: /is not an e-mail address/,
    },
    {
      refused: 'an address named twice',
      emails: ['ada@example.com', 'Ada@Example.com'],
      message: /"ada@example.com" is named twice/,
    },
  ])('refuses $refused with BAD_USER_INPUT, issuing no key', async ({ emails, message }) => {
    const organization = await createOrganization(db(), { handle: uniqueHandle('kd'), name: 'Acme' });
    const error = await refusal(
      issueKeyDelivery(db(), { organizationId: organization.id, environment: 'staging', emails }),
    );
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toMatch(message);
    expect(await apiKeys.list(db(), organization.id)).toEqual([]);
  });

  it.each([0, 61, 1.5])('refuses a lifetime of %s minutes, issuing no key', async (minutes) => {
    const organization = await createOrganization(db(), { handle: uniqueHandle('kd'), name: 'Acme' });
    const error = await refusal(
      issueKeyDelivery(db(), {
        organizationId: organization.id,
        environment: 'staging',
        emails: ['ada@example.com'],
        expiresInMinutes: minutes,
      }),
    );
    expect(error.message).toMatch(/lasts 1 to 60 minutes/);
    expect(await apiKeys.list(db(), organization.id)).toEqual([]);
  });
});

describe('revealing a delivered key', () => {
  it('tells the page who issued the key, for which environment and until when, and nothing of the key', async () => {
    const delivered = await deliver({ environment: 'production' });
    const described = await describeDelivery(db(), delivered.link);
    expect(described).toEqual({
      organizationName: 'Acme Funds',
      environment: 'production',
      expiresAt: delivered.delivery.expiresAt,
      viewsRequired: 'first',
    });
  });

  it('refuses a changed link id or a changed secret with LINK_INVALID, revealing nothing', async () => {
    const delivered = await deliver();
    const otherId = `${delivered.linkId.slice(0, -1)}${delivered.linkId.endsWith('A') ? 'B' : 'A'}`;
    expect((await refusal(describeDelivery(db(), { ...delivered.link, linkId: otherId }))).code).toBe(
      'LINK_INVALID',
    );
    const changed = await refusal(
      issueCode(db(), { ...delivered.link, proof: secretProof('x'.repeat(43)), email: 'ada@example.com' }),
    );
    expect(changed.code).toBe('LINK_INVALID');
    expect(changed.message).toMatch(/after the #/);
  });

  it('refuses an address the key was not issued to with ADDRESS_NOT_LISTED, mailing it no code', async () => {
    const delivered = await deliver();
    const error = await refusal(issueCode(db(), { ...delivered.link, email: 'eve@example.com' }));
    expect(error.code).toBe('ADDRESS_NOT_LISTED');
    expect(error.message).toContain('not issued to eve@example.com');
    expect(
      await database.db.query('select 1 from key_delivery_codes where email = $1', ['eve@example.com']),
    ).toEqual([]);
  });

  it('counts wrong codes: after 5 the code is locked, even for the right code, until a new one is asked for', async () => {
    const delivered = await deliver();
    const { code } = await issueCode(db(), { ...delivered.link, email: 'ada@example.com' });
    const wrong = code === '00000000' ? '11111111' : '00000000';
    const tries = [];
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const error = await refusal(
        revealKey(db(), { ...delivered.link, email: 'ada@example.com', code: wrong, ...CLIENT }),
      );
      tries.push([error.code, error.message]);
    }
    expect(tries.map(([code]) => code)).toEqual([
      'CODE_INVALID',
      'CODE_INVALID',
      'CODE_INVALID',
      'CODE_INVALID',
      'CODE_LOCKED',
    ]);
    expect(tries[0]?.[1]).toBe('The code is not right: 4 tries left.');
    expect(
      (await refusal(revealKey(db(), { ...delivered.link, email: 'ada@example.com', code, ...CLIENT }))).code,
    ).toBe('CODE_LOCKED');

    const fresh = await issueCode(db(), { ...delivered.link, email: 'ada@example.com' });
    expect(
      (await refusal(revealKey(db(), { ...delivered.link, email: 'ada@example.com', code, ...CLIENT }))).code,
    ).toBe(code === fresh.code ? 'CODE_LOCKED' : 'CODE_INVALID');
    await expect(
      revealKey(db(), { ...delivered.link, email: 'ada@example.com', code: fresh.code, ...CLIENT }),
    ).resolves.toMatchObject({ environment: 'staging' });
  });

  it('refuses a code past its 10 minutes with CODE_EXPIRED', async () => {
    const delivered = await deliver();
    const { code } = await issueCode(db(), { ...delivered.link, email: 'ada@example.com' });
    await db().query(
      "update key_delivery_codes set expires_at = clock_timestamp() - interval '1 second' where delivery_id = $1",
      [delivered.delivery.id],
    );
    const error = await refusal(
      revealKey(db(), { ...delivered.link, email: 'ada@example.com', code, ...CLIENT }),
    );
    expect(error.code).toBe('CODE_EXPIRED');
  });

  it('shows the key once: to the first listed address by default, then LINK_USED to everyone', async () => {
    const delivered = await deliver({ emails: ['ada@example.com', 'max@example.com'] });
    const { code } = await issueCode(db(), { ...delivered.link, email: 'max@example.com' });
    await revealKey(db(), { ...delivered.link, email: 'max@example.com', code, ...CLIENT });
    for (const email of ['max@example.com', 'ada@example.com']) {
      expect((await refusal(issueCode(db(), { ...delivered.link, email }))).code).toBe('LINK_USED');
    }
    const [listed] = await listDeliveries(db(), delivered.organization.id);
    expect(listed).toMatchObject({ status: 'viewed', viewsRequired: 'first' });
    expect(listed?.recipients).toEqual([
      { email: 'ada@example.com', viewedAt: null, viewedIp: null, viewedUserAgent: null },
      {
        email: 'max@example.com',
        viewedAt: expect.any(Date),
        viewedIp: CLIENT.ip,
        viewedUserAgent: CLIENT.userAgent,
      },
    ]);
  });

  it('shows the key once to each listed address when the delivery requires all of them', async () => {
    const delivered = await deliver({ emails: ['ada@example.com', 'max@example.com'], viewsRequired: 'all' });
    const keys = [];
    for (const email of ['ada@example.com', 'max@example.com']) {
      const { code } = await issueCode(db(), { ...delivered.link, email });
      keys.push(
        await decrypt(
          await revealKey(db(), { ...delivered.link, email, code, ...CLIENT }),
          delivered.linkId,
          delivered.secret,
        ),
      );
      expect((await refusal(issueCode(db(), { ...delivered.link, email }))).code).toBe('LINK_USED');
    }
    expect(keys[0]).toBe(keys[1]);
    const [row] = await db().query<{ ciphertext: unknown }>(
      'select ciphertext from key_deliveries where id = $1',
      [delivered.delivery.id],
    );
    expect(row?.ciphertext).toBeNull();
  });

  it('ends a delivery after its hour: LINK_EXPIRED, the ciphertext deleted and an unseen key revoked', async () => {
    const delivered = await deliver({ minutes: 5 });
    await db().query(
      "update key_deliveries set expires_at = clock_timestamp() - interval '1 second' where id = $1",
      [delivered.delivery.id],
    );
    expect((await refusal(describeDelivery(db(), delivered.link))).code).toBe('LINK_EXPIRED');
    expect(await expireDeliveries(db())).toBeGreaterThanOrEqual(1);
    const [row] = await db().query<{ ciphertext: unknown }>(
      'select ciphertext from key_deliveries where id = $1',
      [delivered.delivery.id],
    );
    expect(row?.ciphertext).toBeNull();
    const [key] = await apiKeys.list(db(), delivered.organization.id);
    expect(key?.revokedAt).toBeInstanceOf(Date);
    const [listed] = await listDeliveries(db(), delivered.organization.id);
    expect(listed?.status).toBe('expired');
  });

  it('revokes a delivery and its key: LINK_REVOKED on the link', async () => {
    const delivered = await deliver();
    const revoked = await revokeDelivery(db(), delivered.delivery.id);
    expect(revoked.status).toBe('revoked');
    expect((await refusal(describeDelivery(db(), delivered.link))).code).toBe('LINK_REVOKED');
    const [key] = await apiKeys.list(db(), delivered.organization.id);
    expect(key?.revokedAt).toBeInstanceOf(Date);
  });
});
