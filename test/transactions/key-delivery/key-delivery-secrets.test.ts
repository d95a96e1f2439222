import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { deliverKey } from '../../../src/transactions/key-delivery/deliver-key.ts';
import { secretProof } from '../../../src/transactions/key-delivery/deliveries.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  decryptRevealed,
  deliveryLinkIn,
  mailText,
  useKeyDeliveryApp,
} from '../../support/data/key-delivery.ts';
import { uniqueHandle } from '../../support/data/transactions.ts';

// A delivery from issue to reveal, with mail written to files (the default that logs the most) and every log
// line of the service and its mail kept: neither the rows nor the log hold the key, the link or its secret.

const logged: string[] = [];
const service = useKeyDeliveryApp({
  logger: pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString('utf8'));
        done();
      },
    }),
  ),
});

/**
 * A new organization's key delivered to ada@example.com, with mail written to files: the delivery, what its link
 * carries, and a POST to one of the delivery routes with that link.
 */
async function deliverToAda() {
  const organization = await createOrganization(service.db, { handle: uniqueHandle('kds'), name: 'Acme' });
  const issued = await deliverKey(
    service.db,
    { mailer: service.mailer, transactionsUrl: 'https://api.example.com' },
    { organization, environment: 'staging', emails: ['ada@example.com'] },
  );
  const [sent] = issued.mail;
  if (sent?.via !== 'file') throw new Error('the mail was not written to a file');
  const { linkId, secret } = deliveryLinkIn(await mailText(sent.file));
  const post = (route: string, payload: object) =>
    service.app.inject({
      method: 'POST',
      url: `/key-delivery/api/${route}`,
      headers: { 'x-forwarded-proto': 'https' },
      payload: { linkId, proof: secretProof(secret), ...payload },
    });
  return { organization, issued, linkId, secret, post };
}

it('keeps the key, the link id, its secret and the code out of every database row and every log line', async () => {
  const { organization, linkId, secret, post } = await deliverToAda();

  const described = await post('describe', {});
  expect(described.statusCode, described.body).toBe(200);
  const asked = await post('code', { email: 'ada@example.com' });
  expect(asked.statusCode).toBe(202);
  const codeMail = logged
    .map((line) => JSON.parse(line) as { file?: string; subject?: string })
    .findLast((line) => line.subject?.startsWith('Your code'));
  const code = /\b(\d{8})\b/.exec(await mailText(codeMail?.file ?? ''))?.[1] ?? '';
  const revealed = await post('reveal', { email: 'ada@example.com', code });
  expect(revealed.statusCode).toBe(200);
  expect(revealed.headers['cache-control']).toBe('no-store');
  const key = decryptRevealed({ linkId, secret }, revealed.json<{ ciphertext: string; iv: string }>());
  expect(key).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);

  const rows = JSON.stringify(
    await service.db.query(
      `select row_to_json(t)::text as row from (
         select d.*, r.email, r.viewed_ip, r.viewed_user_agent, c.code_hash, k.display_prefix, k.secret_hash
         from key_deliveries d
         join key_delivery_recipients r on r.delivery_id = d.id
         join key_delivery_codes c on c.delivery_id = d.id
         join api_keys k on k.id = d.api_key_id
         where d.organization_id = $1) t`,
      [organization.id],
    ),
  );
  const log = logged.join('');
  expect(log).toContain('mail written to a file');
  for (const [what, value] of Object.entries({ key, linkId, secret, code, keyBody: key.slice(12) })) {
    expect(rows, `${what} in the rows`).not.toContain(value);
    expect(rows, `${what} in the rows, as hex`).not.toContain(Buffer.from(value).toString('hex'));
    expect(log, `${what} in the log`).not.toContain(value);
  }
});

it('mails at most 10 codes for one delivery in 10 minutes: the 11th request gets 429 RATE_LIMITED and no mail', async () => {
  const { issued, post } = await deliverToAda();
  const ask = () => post('code', { email: 'ada@example.com' });
  for (let request = 1; request <= 10; request += 1) expect((await ask()).statusCode).toBe(202);
  const codes = await service.db.query('select 1 from key_delivery_codes where delivery_id = $1', [
    issued.delivery.id,
  ]);
  const refused = await ask();
  expect(refused.statusCode).toBe(429);
  expect(refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(
    await service.db.query('select 1 from key_delivery_codes where delivery_id = $1', [issued.delivery.id]),
  ).toHaveLength(codes.length);
});

it("refuses code requests without the link's secret, and they use up none of the delivery's codes", async () => {
  const { issued, linkId, post } = await deliverToAda();
  const withoutSecret = (proof: string) =>
    service.app.inject({
      method: 'POST',
      url: '/key-delivery/api/code',
      headers: { 'x-forwarded-proto': 'https' },
      remoteAddress: '10.0.0.1',
      payload: { linkId, proof, email: 'ada@example.com' },
    });
  for (const proof of ['', 'not-the-proof', secretProof('AAAA')]) {
    for (let request = 0; request < 5; request += 1) {
      const refused = await withoutSecret(proof);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: { code: 'LINK_INVALID' } });
    }
  }
  expect(
    await service.db.query('select 1 from key_delivery_codes where delivery_id = $1', [issued.delivery.id]),
  ).toHaveLength(0);
  for (let request = 1; request <= 10; request += 1) {
    expect((await post('code', { email: 'ada@example.com' })).statusCode).toBe(202);
  }
});

it('compares no more than 5 of 25 wrong codes sent at once: 4 are wrong, the rest find the code locked', async () => {
  const { issued, linkId, secret, post } = await deliverToAda();
  expect((await post('code', { email: 'ada@example.com' })).statusCode).toBe(202);
  const answers = await Promise.all(
    Array.from({ length: 25 }, (_, index) =>
      service.app.inject({
        method: 'POST',
        url: '/key-delivery/api/reveal',
        headers: { 'x-forwarded-proto': 'https' },
        remoteAddress: '10.0.0.2',
        payload: {
          linkId,
          proof: secretProof(secret),
          email: 'ada@example.com',
          code: String(index).padStart(8, '9'),
        },
      }),
    ),
  );
  const codes = answers.map((answer) => answer.json<{ error: { code: string } }>().error.code);
  expect(codes.filter((code) => code === 'CODE_INVALID')).toHaveLength(4);
  expect(codes.filter((code) => code === 'CODE_LOCKED')).toHaveLength(21);
  const [row] = await service.db.query<{ attempts: number }>(
    'select attempts from key_delivery_codes where delivery_id = $1',
    [issued.delivery.id],
  );
  expect(row?.attempts).toBe(5);
});
