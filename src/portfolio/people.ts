import type { AccountPages } from '../accounts/people-mail.ts';
import type { Mailer } from '../mail/mailer.ts';
import { invitationLink, passwordResetLink } from './dashboard/links.ts';

/** What mailing people of an instance needs: the mailer, and the public address links point to. */
export interface PeopleMail {
  mailer: Mailer;
  /** The Portfolio service's public base address (no trailing slash). */
  portfolioUrl: string;
}

/** The customer dashboard, as mail about its people's accounts names it and links to it. */
export function dashboardPages(mail: PeopleMail): AccountPages {
  return {
    kind: 'instance',
    product: 'the Portfolio dashboard',
    invitationLink: (token) => invitationLink(mail.portfolioUrl, token),
    passwordResetLink: (token) => passwordResetLink(mail.portfolioUrl, token),
    publicUrl: () => mail.portfolioUrl,
    mailer: mail.mailer,
  };
}
