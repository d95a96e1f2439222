import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptKey, proofOf, readLink } from '../../web/key-delivery/link.ts';

const linkId = 'AbCdEfGhIjKlMnOpQrStUv';
const secretBytes = new Uint8Array(32).map((_, index) => index);
const secret = Buffer.from(secretBytes).toString('base64url');

describe('readLink', () => {
  it('reads the link id from the path and the secret from the fragment', () => {
    const link = readLink({ pathname: `/key-delivery/${linkId}/`, hash: `#${secret}` });
    expect(link).toEqual({ ok: true, linkId, secret: secretBytes });
  });

  it('says the address is not a key-delivery link when the id is missing or not base64url', () => {
    for (const pathname of ['/key-delivery/', '/key-delivery/short', `/key-delivery/${linkId}!`]) {
      expect(readLink({ pathname, hash: `#${secret}` })).toEqual({
        ok: false,
        problem: 'This address is not a key-delivery link: open the whole link from the e-mail.',
      });
    }
  });

  it('says the end of the link is missing or changed when the secret is not 43 base64url characters', () => {
    for (const hash of ['', `#${secret.slice(1)}`, `#${secret.slice(1)}+`]) {
      const link = readLink({ pathname: `/key-delivery/${linkId}`, hash });
      expect(link.ok).toBe(false);
      expect(link.ok ? '' : link.problem).toMatch(
        /^The end of this link \(after the #\) is missing or changed/,
      );
    }
  });
});

describe('proofOf', () => {
  it("is the secret's SHA-256 in base64url, without padding", async () => {
    const expected = Buffer.from(await webcrypto.subtle.digest('SHA-256', secretBytes)).toString('base64url');
    expect(await proofOf(secretBytes)).toBe(expected);
  });
});

describe('decryptKey', () => {
  const seal = async (plainText: string, additionalData: string) => {
    const key = await webcrypto.subtle.importKey('raw', secretBytes, 'AES-GCM', false, ['encrypt']);
    const iv = webcrypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await webcrypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(additionalData) },
      key,
      new TextEncoder().encode(plainText),
    );
    return {
      ciphertext: Buffer.from(ciphertext).toString('base64url'),
      iv: Buffer.from(iv).toString('base64url'),
    };
  };

  it('decrypts a key sealed under the link secret with the link id as additional data', async () => {
    const sealed = await seal('sk_test_abc123', linkId);
    expect(await decryptKey({ linkId, secret: secretBytes }, sealed)).toBe('sk_test_abc123');
  });

  it('throws for a key sealed for another link', async () => {
    const sealed = await seal('sk_test_abc123', 'AnotherLinkIdAnotherLi');
    await expect(decryptKey({ linkId, secret: secretBytes }, sealed)).rejects.toThrow();
  });
});
