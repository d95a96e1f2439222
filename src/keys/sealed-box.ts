import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM boxes for values that must be stored and read back but not left readable in the database: a
 * value as JSON, sealed under a 32-byte key as iv (12 bytes) · tag (16 bytes) · ciphertext.
 *
 * @example
 * const box = seal({ secret: 'whsec_…' }, key);
 * open(box, key); // { secret: 'whsec_…' }
 */
export function seal(value: unknown, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The value of a box `seal` made under the same key; throws if the box was changed. */
export function open(sealed: Buffer, key: Buffer): unknown {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8'));
}
