import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import { notMailed } from '../errors.ts';
import type { Mailer, SentMail } from '../mail/mailer.ts';
import { invitationMail, passwordResetMail, type Inviter } from './account-mail.ts';
import type { IssuedLink } from './links.ts';
import { reissueInvitation } from './person-changes.ts';
import type { Role } from './roles.ts';
import { TENANT_TABLES } from './tenant-tables.ts';
import {
  inviteUser,
  normalizeEmail,
  requestPasswordReset,
  type AccountTenant,
  type RecordChange,
  type User,
} from './users.ts';

/**
 * The pages one kind of tenant's people sign in to (the customer dashboard, the organization console), as mail
 * about their accounts names them and links to them.
 */
export interface AccountPages {
  kind: AccountTenant['kind'];
  /** How mail names the pages, e.g. "the Portfolio dashboard". */
  product: string;
  /** The page that takes an invitation's token, and the one that takes a password reset's. */
  invitationLink: (token: string) => string;
  passwordResetLink: (token: string) => string;
  /** The public base address of the pages (`https://console.example.com`): whose host name passkeys are for. */
  publicUrl: () => string;
  mailer: Mailer;
}

/**
 * Invites a person to a tenant and mails them the link to set their password (see `inviteUser`), naming the admin
 * who invites them (`invitedBy`; the operator's invitations name none). When the mail cannot be sent the person
 * stays invited and SERVICE_UNAVAILABLE says so: inviting them again mails a new link and ends this one.
 */
export async function invitePersonByMail(
  db: Database,
  pages: AccountPages,
  options: {
    tenant: { id: string; name: string };
    email: string;
    role: Role;
    name?: string | undefined;
    invitedBy?: (Inviter & { id: string }) | undefined;
    record?: RecordChange | undefined;
  },
): Promise<{ user: User; expiresAt: Date; mail: SentMail }> {
  const { user, link } = await inviteUser(db, {
    tenant: { kind: pages.kind, id: options.tenant.id },
    email: options.email,
    role: options.role,
    name: options.name,
    invitedBy: options.invitedBy?.id,
    record: options.record,
  });
  const mail = await mailInvitation(pages, {
    user,
    link,
    tenantName: options.tenant.name,
    invitedBy: options.invitedBy,
    unsent: { what: `${user.email} is invited, but the invitation`, then: 'invite them again' },
  });
  return { user, expiresAt: link.expiresAt, mail };
}

/**
 * Mails a person who has not accepted their invitation a new one, from the admin `by` (see `reissueInvitation`:
 * the older link stops working, and it is refused within a minute of the last). When the mail cannot be sent
 * SERVICE_UNAVAILABLE says so, and the older link works no more: send it again once mail works.
 */
export async function resendInvitationByMail(
  db: Database,
  pages: AccountPages,
  options: {
    tenant: { id: string; name: string };
    id: string;
    by: Inviter & { id: string };
    record?: RecordChange | undefined;
  },
): Promise<{ user: User; expiresAt: Date }> {
  const { user, link } = await reissueInvitation(db, {
    tenant: { kind: pages.kind, ...options.tenant },
    id: options.id,
    callerId: options.by.id,
    record: options.record,
  });
  await mailInvitation(pages, {
    user,
    link,
    tenantName: options.tenant.name,
    invitedBy: options.by,
    unsent: { what: `The new invitation to ${user.email}`, then: 'send it again' },
  });
  return { user, expiresAt: link.expiresAt };
}

/**
 * Mails `user` the invitation that `link` opens, to the tenant named `tenantName`, from `invitedBy` when an admin
 * invites. When the mail cannot be sent it throws SERVICE_UNAVAILABLE (see `notMailed`), where `unsent` names what
 * was not mailed and what to do once mail works: a first invitation and a resent one say it in their own words.
 */
async function mailInvitation(
  pages: AccountPages,
  options: {
    user: User;
    link: IssuedLink;
    tenantName: string;
    invitedBy?: Inviter | undefined;
    unsent: { what: string; then: string };
  },
): Promise<SentMail> {
  const { user, link, unsent } = options;
  const message = invitationMail({
    to: user.email,
    tenantName: options.tenantName,
    product: pages.product,
    role: user.role,
    link: pages.invitationLink(link.token),
    expiresAt: link.expiresAt,
    invitedBy: options.invitedBy,
  });
  try {
    return await pages.mailer.send(message);
  } catch (error) {
    throw notMailed(unsent.what, error, unsent.then);
  }
}

/**
 * Mails a password reset link for each tenant of this kind where this address has an active account, and
 * nothing otherwise. It answers the same either way, and a mail that cannot be sent is only logged: the
 * caller's answer must not tell which addresses have accounts. Each mail's log line names `requestId`, the
 * request that asked: the mail goes after its answer.
 */
export async function mailPasswordResets(
  db: Database,
  pages: AccountPages,
  log: Pick<Logger, 'error'>,
  email: string,
  requestId?: string,
): Promise<void> {
  let address: string;
  try {
    address = normalizeEmail(email);
  } catch {
    return;
  }
  const { table, column, handle } = TENANT_TABLES[pages.kind];
  const tenants = await db.query<{ id: string; name: string }>(
    `select t.id, t.name from users u join ${table} t on t.id = u.${column}
     where u.email = $1 and u.password_hash is not null and u.deactivated_at is null order by t.${handle}`,
    [address],
  );
  for (const tenant of tenants) {
    const reset = await requestPasswordReset(db, { kind: pages.kind, id: tenant.id }, address);
    if (!reset) continue;
    const message = passwordResetMail({
      to: reset.user.email,
      tenantName: tenant.name,
      product: pages.product,
      link: pages.passwordResetLink(reset.link.token),
      expiresAt: reset.link.expiresAt,
    });
    await pages.mailer.send({ ...message, log: { requestId } }).catch((error: unknown) => {
      log.error({ err: error, userId: reset.user.id }, 'a password reset link could not be mailed');
    });
  }
}
