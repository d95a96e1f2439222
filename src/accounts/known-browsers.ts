import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import type { MailMessage } from '../mail/mailer.ts';

/** The cookie that names a browser across sign-ins: random, long-lived, kept server-side only as its SHA-256. */
export const BROWSER_COOKIE = 'portico_device';
/** How long a browser stays known by its cookie (a year; each sign-in sets it again). */
export const BROWSER_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

/** A new browser cookie's value. */
export const newBrowserToken = (): string => randomBytes(24).toString('base64url');

/**
 * Records that the person signed in from this browser, and answers how it was: `known` (signed in from it
 * before), `new` (a browser not seen before, when the person has others: the person is mailed), or `first` (the
 * person's first known browser: the first sign-in of an account mails no one).
 */
export async function recordBrowser(
  db: Queryable,
  userId: string,
  browserToken: string,
): Promise<'known' | 'new' | 'first'> {
  const hash = createHash('sha256').update(browserToken).digest();
  const [row] = await db.query<{ inserted: boolean; others: number }>(
    `with added as (
       insert into known_browsers (user_id, browser_hash) values ($1, $2)
       on conflict do nothing returning 1)
     select exists (select 1 from added) as inserted,
            (select count(*)::int from known_browsers where user_id = $1 and browser_hash <> $2) as others`,
    [userId, hash],
  );
  if (!row?.inserted) return 'known';
  return row.others > 0 ? 'new' : 'first';
}

/** The mail of a sign-in from a browser the person had not signed in from before. */
export function newSignInMail(options: {
  to: string;
  product: string;
  browser: string;
  ipAddress: string;
  at: Date;
}): MailMessage {
  const line = `New sign-in to ${options.product}: ${options.browser} from ${options.ipAddress} at ${options.at.toISOString()}.`;
  const advice =
    "If this wasn't you, change your password and end the session (Sessions, in the menu under your name).";
  const escape = (text: string) =>
    text.replace(/[&<>"']/g, (character) => `&#${String(character.charCodeAt(0))};`);
  return {
    to: options.to,
    subject: `New sign-in to ${options.product}`,
    text: `${line}\n\n${advice}\n`,
    html: `<p>${escape(line)}</p>\n<p>${escape(advice)}</p>`,
  };
}
