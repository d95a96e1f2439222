import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { outOfRange } from '../errors.ts';

/** How long a link works when the caller does not say (`File.signedUrl`, `genTransactionFileLink`). */
export const DEFAULT_LINK_SECONDS = 15 * 60;
/** The shortest lifetime a caller may ask of a link. */
export const MIN_LINK_SECONDS = 60;
/** The longest lifetime a caller may ask of a link. */
export const MAX_LINK_SECONDS = 24 * 3600;

/** A link's expiry in its one spelling: unix seconds in decimal, no sign, no leading zero. */
const EXPIRES = /^(0|[1-9]\d{0,11})$/;
/** An HMAC-SHA256 in unpadded base64url: 32 bytes are 43 characters. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** Makes and checks signed download links (see {@link createFileLinks}). */
export interface FileLinks {
  /** The path and query of a link that downloads the file until `expiresAt`. */
  pathFor(fileId: string, expiresAt: Date): string;
  /**
   * Whether a link's expiry and signature are genuine, exactly as `pathFor` spelled them, and the link has not
   * expired.
   */
  verify(fileId: string, expires: string, signature: string, now?: Date): boolean;
  /** The path and query of a link that downloads a transaction's evidence bundle until `expiresAt`. */
  bundlePathFor(transactionId: string, expiresAt: Date): string;
  /** Whether a bundle link is genuine, as `bundlePathFor` spelled it, and has not expired. */
  verifyBundle(transactionId: string, expires: string, signature: string, now?: Date): boolean;
}

/**
 * Signed download links: `/files/<id>?expires=<unix seconds>&signature=<HMAC-SHA256 of "id.expires">`, and
 * `/evidence/<transaction id>?…` for an evidence bundle, whose HMAC is of "evidence:id.expires" so that a file's
 * link never opens a bundle. The signing key is the deployment's own, so any node can check a link another node
 * made.
 */
export function createFileLinks(secret: Buffer): FileLinks {
  // A KeyObject made once, as the cursors' (portfolio/cursor.ts): a fifth of the HMAC's cost with a Buffer.
  const key = createSecretKey(secret);
  const sign = (subject: string, expires: string): Buffer =>
    createHmac('sha256', key).update(`${subject}.${expires}`).digest();
  const pathFor = (path: string, subject: string, expiresAt: Date): string => {
    const expires = String(Math.floor(expiresAt.getTime() / 1000));
    return `${path}?expires=${expires}&signature=${sign(subject, expires).toString('base64url')}`;
  };
  const verify = (subject: string, expires: string, signature: string, now: Date): boolean => {
    if (!EXPIRES.test(expires) || Number(expires) * 1000 < now.getTime()) return false;
    // The text is compared, not what it decodes to: Buffer's base64url decoder also takes padding, spaces,
    // dots, '+' and '/', and ignores the last character's unused bits, so one signature would have many
    // spellings that all work.
    if (!SIGNATURE.test(signature)) return false;
    const expected = Buffer.from(sign(subject, expires).toString('base64url'));
    return timingSafeEqual(Buffer.from(signature), expected);
  };
  return {
    pathFor: (fileId, expiresAt) => pathFor(`/files/${fileId}`, fileId, expiresAt),
    verify: (fileId, expires, signature, now = new Date()) => verify(fileId, expires, signature, now),
    bundlePathFor: (transactionId, expiresAt) =>
      pathFor(`/evidence/${transactionId}`, `evidence:${transactionId}`, expiresAt),
    verifyBundle: (transactionId, expires, signature, now = new Date()) =>
      verify(`evidence:${transactionId}`, expires, signature, now),
  };
}

/**
 * When a link asked to work for `expiresInSeconds` (DEFAULT_LINK_SECONDS when absent) expires, or
 * BAD_USER_INPUT when that lifetime is not a whole number of seconds between MIN_LINK_SECONDS and
 * MAX_LINK_SECONDS.
 *
 * @example linkExpiry(3600) // an hour from now
 */
export function linkExpiry(expiresInSeconds?: number | null, now: Date = new Date()): Date {
  const seconds = expiresInSeconds ?? DEFAULT_LINK_SECONDS;
  if (!Number.isInteger(seconds) || seconds < MIN_LINK_SECONDS || seconds > MAX_LINK_SECONDS) {
    throw outOfRange('expiresInSeconds', MIN_LINK_SECONDS, MAX_LINK_SECONDS, { field: 'expiresInSeconds' });
  }
  return new Date(now.getTime() + seconds * 1000);
}

/**
 * An absolute download link for a file, working until `expiresAt` (see {@link linkExpiry}).
 *
 * @example
 * signedLink(links, { baseUrl: 'https://api.example.com', fileId, expiresAt: linkExpiry(3600) });
 * // { url: 'https://api.example.com/files/<id>?expires=…&signature=…', expiresAt }
 */
export function signedLink(
  links: FileLinks,
  options: { baseUrl: string; fileId: string; expiresAt: Date },
): { url: string; expiresAt: Date } {
  return {
    url: options.baseUrl + links.pathFor(options.fileId, options.expiresAt),
    expiresAt: options.expiresAt,
  };
}
