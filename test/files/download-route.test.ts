import { beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../support/data/transactions.ts';
import { useTransactionsSuite } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();
/** A genuine link's path, and its expiry and signature as they appear in its query; the tests only read it. */
let link: { path: string; expires: string; signature: string };

beforeAll(async () => {
  const story = await suite.tenant();
  const { body } = await graphql(
    suite.app,
    story.apiKey,
    'query ($id: uuid!) { transaction(id: $id) { transactionFiles { file { signedUrl } } } }',
    { id: story.transactionId },
  );
  const url = new URL(body.data?.transaction.transactionFiles[0].file.signedUrl);
  link = {
    path: url.pathname,
    expires: url.searchParams.get('expires') ?? '',
    signature: url.searchParams.get('signature') ?? '',
  };
});

async function download(query: string) {
  return suite.app.inject({ method: 'GET', url: `${link.path}?${query}` });
}

describe('GET /files/:id through a signed link', () => {
  it('downloads the file with the link exactly as it was given', async () => {
    const response = await download(`expires=${link.expires}&signature=${link.signature}`);
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it.each([
    ['padding', (s: string) => `${s}%3D`],
    ['a literal "="', (s: string) => `${s}=`],
    ['an encoded space', (s: string) => `${s}%20`],
    ['a "+", which a query reads as a space', (s: string) => `${s}+`],
    ['a dot', (s: string) => `${s}.`],
  ])('refuses the signature with %s appended, as FORBIDDEN', async (_, spell) => {
    const response = await download(`expires=${link.expires}&signature=${spell(link.signature)}`);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('FORBIDDEN');
  });

  it('refuses a link that repeats its signature parameter', async () => {
    const response = await download(
      `expires=${link.expires}&signature=${link.signature}&signature=${link.signature}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('BAD_USER_INPUT');
  });

  it('refuses the signature with its last character changed in bits that decoding ignores, as FORBIDDEN', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(link.signature.slice(-1));
    const changed = link.signature.slice(0, -1) + (alphabet[last ^ 1] ?? '');
    expect(Buffer.from(changed, 'base64url').equals(Buffer.from(link.signature, 'base64url'))).toBe(true);
    const response = await download(`expires=${link.expires}&signature=${changed}`);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('FORBIDDEN');
  });

  it('refuses an expiry with a leading zero, as FORBIDDEN', async () => {
    const response = await download(`expires=0${link.expires}&signature=${link.signature}`);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('FORBIDDEN');
  });
});
