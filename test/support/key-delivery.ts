import { createDecipheriv } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { simpleParser } from 'mailparser';

/** Helpers for tests that follow a key delivery outside a browser, doing what the delivery page does. */

/** The text part of a message written to a mail folder. */
export async function mailText(file: string): Promise<string> {
  return (await simpleParser(await readFile(file))).text ?? '';
}

/** The link id and the secret of the delivery link in a message's text. */
export function deliveryLinkIn(text: string): { linkId: string; secret: string } {
  const [, linkId, secret] = /\/key-delivery\/([\w-]{22})#([\w-]{43})/.exec(text) ?? [];
  if (linkId === undefined || secret === undefined) throw new Error(`no key-delivery link in: ${text}`);
  return { linkId, secret };
}

/** The key of a `reveal` answer, decrypted as the page does: AES-256-GCM, the link's id as additional data. */
export function decryptRevealed(
  link: { linkId: string; secret: string },
  revealed: { ciphertext: string; iv: string },
): string {
  const sealed = Buffer.from(revealed.ciphertext, 'base64url');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(link.secret, 'base64url'),
    Buffer.from(revealed.iv, 'base64url'),
  );
  decipher.setAAD(Buffer.from(link.linkId));
  decipher.setAuthTag(sealed.subarray(-16));
  return Buffer.concat([decipher.update(sealed.subarray(0, -16)), decipher.final()]).toString('utf8');
}
