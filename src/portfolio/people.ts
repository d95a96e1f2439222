import { invitationMail, passwordResetMail } from '../accounts/account-mail.ts';
import type { Role } from '../accounts/roles.ts';
import { inviteUser, requestPasswordReset, normalizeEmail, type User } from '../accounts/users.ts';
import type { Database } from '../db/database.ts';
import { notMailed } from '../errors.ts';
import type { Logger } from 'pino';
import type { Mailer, SentMail } from '../mail/mailer.ts';
import { invitationLink, passwordResetLink } from './dashboard/links.ts';
import type { PortfolioInstance } from './instances.ts';

/** How mail names the pages a customer's people use. */
const PRODUCT = 'the Portfolio dashboard';

/** What mailing people of an instance needs: the mailer, and the public address links point to. */
export interface PeopleMail {
  mailer: Mailer;
  /** The Portfolio service's public base address (no trailing slash). */
  portfolioUrl: string;
}

/**
 * Invites a person to a customer instance and mails them the link to set their password (see `inviteUser`).
 * When the mail cannot be sent the person stays invited and SERVICE_UNAVAILABLE says so: inviting them again
 * mails a new link and ends this one.
 */
export async function invitePerson(
  db: Database,
  mail: PeopleMail,
  options: {
    instance: Pick<PortfolioInstance, 'id' | 'name'>;
    email: string;
    role: Role;
    name?: string | undefined;
    invitedBy?: string | undefined;
  },
): Promise<{ user: User; expiresAt: Date; mail: SentMail }> {
  const { user, link } = await inviteUser(db, {
    tenant: { kind: 'instance', id: options.instance.id },
    email: options.email,
    role: options.role,
    name: options.name,
    invitedBy: options.invitedBy,
  });
  const message = invitationMail({
    to: user.email,
    tenantName: options.instance.name,
    product: PRODUCT,
    role: user.role,
    link: invitationLink(mail.portfolioUrl, link.token),
    expiresAt: link.expiresAt,
  });
  try {
    return { user, expiresAt: link.expiresAt, mail: await mail.mailer.send(message) };
  } catch (error) {
    throw notMailed(`${user.email} is invited, but the invitation`, error, 'invite them again');
  }
}

/**
 * Mails a password reset link for each customer instance where this address has an account, and nothing
 * otherwise. It answers the same either way, and a mail that cannot be sent is only logged: the caller's
 * answer must not tell which addresses have accounts.
 */
export async function mailPasswordResets(
  db: Database,
  mail: PeopleMail,
  log: Pick<Logger, 'error'>,
  email: string,
): Promise<void> {
  let address: string;
  try {
    address = normalizeEmail(email);
  } catch {
    return;
  }
  const instances = await db.query<Pick<PortfolioInstance, 'id' | 'name'>>(
    `select i.id, i.name from users u join portfolio_instances i on i.id = u.instance_id
     where u.email = $1 and u.password_hash is not null order by i.slug`,
    [address],
  );
  for (const instance of instances) {
    const reset = await requestPasswordReset(db, { kind: 'instance', id: instance.id }, address);
    if (!reset) continue;
    const message = passwordResetMail({
      to: reset.user.email,
      tenantName: instance.name,
      product: PRODUCT,
      link: passwordResetLink(mail.portfolioUrl, reset.link.token),
      expiresAt: reset.link.expiresAt,
    });
    await mail.mailer.send(message).catch((error: unknown) => {
      log.error({ err: error, userId: reset.user.id }, 'a password reset link could not be mailed');
    });
  }
}
