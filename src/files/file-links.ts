import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.ts';

/** How long `File.signedUrl` links work. */
export const DEFAULT_LINK_SECONDS = 15 * 60;
export const MIN_LINK_SECONDS = 60;
export const MAX_LINK_SECONDS = 24 * 3600;

/** A link's expiry in its one spelling: unix seconds in decimal, no sign, no leading zero. */
const EXPIRES = /^(0|[1-9]\d{0,11})$/;
/** An HMAC-SHA256 in unpadded base64url: 32 bytes are 43 characters. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export interface FileLinks {
  /** The path and query of a link that downloads the file until `expiresAt`. */
  pathFor(fileId: string, expiresAt: Date): string;
  /**
   * Whether a link's expiry and signature are genuine, exactly as `pathFor` spelled them, and the link has not
   * expired.
   */
  verify(fileId: string, expires: string, signature: string, now?: Date): boolean;
}

/**
 * Signed download links: `/files/<id>?expires=<unix seconds>&signature=<HMAC-SHA256 of "id.expires">`.
 * The signing key is the deployment's own, so any node can check a link another node made.
 */
export function createFileLinks(secret: Buffer): FileLinks {
  const sign = (fileId: string, expires: string): Buffer =>
    createHmac('sha256', secret).update(`${fileId}.${expires}`).digest();
  return {
    pathFor(fileId, expiresAt) {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      return `/files/${fileId}?expires=${expires}&signature=${sign(fileId, expires).toString('base64url')}`;
    },
    verify(fileId, expires, signature, now = new Date()) {
      if (!EXPIRES.test(expires) || Number(expires) * 1000 < now.getTime()) return false;
      // The text is compared, not what it decodes to: Buffer's base64url decoder also takes padding, spaces,
      // dots, '+' and '/', and ignores the last character's unused bits, so one signature would have many
      // spellings that all work.
      if (!SIGNATURE.test(signature)) return false;
      const expected = Buffer.from(sign(fileId, expires).toString('base64url'));
      return timingSafeEqual(Buffer.from(signature), expected);
    },
  };
}

/**
 * A secret the deployment generates for itself on first use and keeps in its database, so that every node
 * of a deployment shares it without configuration.
 */
export async function loadInstanceSecret(db: Queryable, name: string): Promise<Buffer> {
  await db.query('insert into instance_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [
    name,
    randomBytes(32),
  ]);
  const [row] = await db.query<{ value: Uint8Array }>('select value from instance_secrets where name = $1', [
    name,
  ]);
  if (!row) throw new Error(`instance secret ${name} is missing`);
  return Buffer.from(row.value);
}
