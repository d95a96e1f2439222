import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { linkErrors } from '../errors.ts';

/** What a mailed link lets its holder do once: set a first password, or a new one. */
export type LinkPurpose = 'invitation' | 'password_reset';

/** How long a link works: a week to accept an invitation, an hour to reset a password. */
export const LINK_LIFETIME_MS: Record<LinkPurpose, number> = {
  invitation: 7 * 24 * 3600 * 1000,
  password_reset: 3600 * 1000,
};

/** A link's secret, as it goes into the mailed URL, once. */
export interface IssuedLink {
  token: string;
  expiresAt: Date;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest();

/**
 * Issues a link of `purpose` for a user: 32 random bytes (base64url) whose SHA-256 alone is stored. It ends the
 * user's earlier unused links of the same purpose, so only the newest mail works.
 */
export async function issueLink(
  db: Queryable,
  options: { userId: string; purpose: LinkPurpose; createdBy?: string | undefined },
): Promise<IssuedLink> {
  const token = randomBytes(32).toString('base64url');
  await db.query(
    `update user_links set expires_at = least(expires_at, clock_timestamp())
     where user_id = $1 and purpose = $2 and used_at is null`,
    [options.userId, options.purpose],
  );
  const row = await oneRow<{ expiresAt: Date }>(
    db,
    `insert into user_links (user_id, purpose, token_hash, created_by, expires_at)
     values ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')
     returning expires_at as "expiresAt"`,
    [
      options.userId,
      options.purpose,
      hashOf(token),
      options.createdBy ?? null,
      LINK_LIFETIME_MS[options.purpose],
    ],
  );
  return { token, expiresAt: row.expiresAt };
}

const WHAT: Record<LinkPurpose, string> = { invitation: 'invitation', password_reset: 'password reset link' };

/** A link's row, as a check and a use read it. */
interface LinkRow {
  id: string;
  userId: string;
  expiresAt: Date;
  used: boolean;
  expired: boolean;
}

/**
 * The link of `token` and `purpose` while it works, locked until the caller's transaction ends when `lock` is
 * set; the errors of {@link redeemLink} otherwise.
 */
async function workingLink(
  db: Queryable,
  token: string,
  purpose: LinkPurpose,
  lock: boolean,
): Promise<LinkRow> {
  const [link] = await db.query<LinkRow>(
    `select id, user_id as "userId", expires_at as "expiresAt", used_at is not null as used,
       expires_at <= clock_timestamp() as expired
     from user_links where token_hash = $1 and purpose = $2${lock ? ' for update' : ''}`,
    [hashOf(token), purpose],
  );
  const what = WHAT[purpose];
  if (!link) throw linkErrors.notValid(what);
  if (link.used) throw linkErrors.used(what);
  if (link.expired) {
    throw purpose === 'invitation' ? linkErrors.invitationExpired() : linkErrors.resetExpired();
  }
  return link;
}

/**
 * Uses a link once, in the caller's transaction (the row stays locked until it ends, so two uses of one link
 * cannot both succeed), and answers whose it is. Throws LINK_INVALID for a token that names no link of this
 * purpose, LINK_USED for one used already, and LINK_EXPIRED for one past its time or replaced by a newer one.
 */
export async function redeemLink(
  db: Queryable,
  token: string,
  purpose: LinkPurpose,
): Promise<{ userId: string }> {
  const link = await workingLink(db, token, purpose, true);
  await db.query('update user_links set used_at = clock_timestamp() where id = $1', [link.id]);
  return { userId: link.userId };
}

/**
 * Whether a link works now, without using it: whose it is and until when, or the errors of {@link redeemLink}.
 * The page of a mailed link asks this before it shows its form.
 */
export async function checkLink(
  db: Queryable,
  token: string,
  purpose: LinkPurpose,
): Promise<{ userId: string; expiresAt: Date }> {
  const { userId, expiresAt } = await workingLink(db, token, purpose, false);
  return { userId, expiresAt };
}
