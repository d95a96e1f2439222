import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFileLinks } from '../../src/files/file-links.ts';

const secret = randomBytes(32);
const links = createFileLinks(secret);
const fileId = '3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e';
const now = new Date('2026-11-22T09:30:00Z');
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The expiry and signature of a link to `id` that `links` made, as the download route receives them. */
function linkTo(id = fileId, expiresAt = new Date(now.getTime() + 60_000)) {
  const url = new URL(links.pathFor(id, expiresAt), 'https://portico.test');
  return {
    expires: url.searchParams.get('expires') ?? '',
    signature: url.searchParams.get('signature') ?? '',
  };
}

/** A signature made with the deployment's secret over any expiry text, as only the deployment can. */
function signed(id: string, expires: string): string {
  return createHmac('sha256', secret).update(`${id}.${expires}`).digest('base64url');
}

/** The signature with its last character changed only in the bits that 43 characters carry beyond 32 bytes. */
function withUnusedBitsChanged(signature: string): string {
  const last = BASE64URL.indexOf(signature.slice(-1));
  return signature.slice(0, -1) + (BASE64URL[last ^ 1] ?? '');
}

describe('signed download links', () => {
  it('verifies a link it made, until the link expires', () => {
    const { expires, signature } = linkTo();
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(links.verify(fileId, expires, signature, now)).toBe(true);
    expect(links.verify(fileId, expires, signature, new Date(now.getTime() + 59_000))).toBe(true);
    expect(links.verify(fileId, expires, signature, new Date(now.getTime() + 61_000))).toBe(false);
  });

  it('refuses a link to another file, or one that another deployment signed', () => {
    const { expires, signature } = linkTo();
    expect(links.verify('00000000-0000-4000-8000-000000000000', expires, signature, now)).toBe(false);
    expect(createFileLinks(randomBytes(32)).verify(fileId, expires, signature, now)).toBe(false);
  });

  it("keeps a bundle's links apart from a file's: neither opens the other, each until it expires", () => {
    const expiresAt = new Date(now.getTime() + 60_000);
    const bundle = new URL(links.bundlePathFor(fileId, expiresAt), 'https://portico.test');
    expect(bundle.pathname).toBe(`/evidence/${fileId}`);
    const expires = bundle.searchParams.get('expires') ?? '';
    const signature = bundle.searchParams.get('signature') ?? '';
    expect(links.verifyBundle(fileId, expires, signature, now)).toBe(true);
    expect(links.verifyBundle(fileId, expires, signature, new Date(now.getTime() + 61_000))).toBe(false);
    expect(links.verify(fileId, expires, signature, now)).toBe(false);
    const file = linkTo();
    expect(links.verifyBundle(fileId, file.expires, file.signature, now)).toBe(false);
  });

  it.each([
    ['padding', (s: string) => `${s}=`],
    ['two padding characters', (s: string) => `${s}==`],
    ['a trailing space (%20)', (s: string) => `${s} `],
    ['a leading space', (s: string) => ` ${s}`],
    ['a trailing dot', (s: string) => `${s}.`],
    ['a trailing newline', (s: string) => `${s}\n`],
    ['its last character changed in the unused bits', withUnusedBitsChanged],
    ['its last character left off', (s: string) => s.slice(0, -1)],
    ['the hexadecimal form', (s: string) => Buffer.from(s, 'base64url').toString('hex')],
  ])('refuses the signature with %s, though it decodes to the same bytes or a prefix', (_, spell) => {
    const { expires, signature } = linkTo();
    expect(links.verify(fileId, expires, spell(signature), now)).toBe(false);
  });

  it('refuses the same signature in every other spelling that decodes to the same bytes', () => {
    // Try until the signature has a '-' or '_', so that the standard-alphabet spelling differs from it.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const { expires, signature } = linkTo(fileId, new Date(now.getTime() + 60_000 + attempt * 1000));
      const spellings = [
        `${signature}=`,
        withUnusedBitsChanged(signature),
        signature.replaceAll('-', '+').replaceAll('_', '/'),
      ].filter((spelling) => spelling !== signature);
      for (const spelling of spellings) {
        // What made these work before: Buffer's lenient decoder reads them all as the genuine signature.
        expect(Buffer.from(spelling, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
        expect(links.verify(fileId, expires, spelling, now)).toBe(false);
      }
      if (spellings.length === 3) return;
    }
    throw new Error('no signature with - or _ in 50 tries');
  });

  it.each([
    ['a leading zero', (e: string) => `0${e}`],
    ['a plus sign', (e: string) => `+${e}`],
    ['a fraction', (e: string) => `${e}.0`],
    ['an exponent', (e: string) => `${Number(e) / 1000}e3`],
    ['a trailing space', (e: string) => `${e} `],
    ['thirteen digits', (e: string) => `${e}000`],
  ])('refuses an expiry with %s, even when it is genuinely signed', (_, spell) => {
    const { expires } = linkTo();
    const spelled = spell(expires);
    expect(links.verify(fileId, spelled, signed(fileId, spelled), now)).toBe(false);
  });

  it('accepts a genuinely signed expiry in its one decimal form', () => {
    const expires = String(Math.floor(now.getTime() / 1000) + 120);
    expect(links.verify(fileId, expires, signed(fileId, expires), now)).toBe(true);
  });

  it('refuses a very long signature or expiry without decoding it', () => {
    const { expires, signature } = linkTo();
    expect(links.verify(fileId, expires, signature.repeat(5000), now)).toBe(false);
    expect(links.verify(fileId, '9'.repeat(100_000), signature, now)).toBe(false);
  });
});
