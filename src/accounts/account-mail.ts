import type { MailMessage } from '../mail/mailer.ts';
import { escapeHtml as html, formatWhen as when } from '../mail/message-text.ts';
import { ROLE_DESCRIPTIONS, type Role } from './roles.ts';

/** Who sent an invitation, as its mail names them. */
export interface Inviter {
  name: string;
  email: string;
}

/**
 * The invitation to a tenant's pages: who invites (the admin by name and address, when a person did; the operator's
 * invitations name the tenant alone), to which tenant, as what, the link to set a password, and until when it
 * works. Text and HTML say the same.
 */
export function invitationMail(options: {
  to: string;
  /** The tenant's display name, e.g. "Acme Ventures". */
  tenantName: string;
  /** What the pages are, e.g. "the Portfolio dashboard". */
  product: string;
  role: Role;
  link: string;
  expiresAt: Date;
  invitedBy?: Inviter | undefined;
}): MailMessage {
  const { tenantName, product, role, link, expiresAt, invitedBy } = options;
  const by =
    invitedBy === undefined
      ? 'You have been invited'
      : `${invitedBy.name === '' ? invitedBy.email : `${invitedBy.name} (${invitedBy.email})`} invited you`;
  const intro = `${by} to ${tenantName} on ${product}, as ${ROLE_DESCRIPTIONS[role]}.`;
  const action = 'Set your password to accept:';
  const expiry = `The link works once, until ${when(expiresAt)}. If you did not expect this invitation, ignore this message.`;
  return {
    to: options.to,
    subject: `You are invited to ${tenantName}`,
    text: `${intro}\n\n${action}\n${link}\n\n${expiry}\n`,
    html: [
      `<p>${html(intro)}</p>`,
      `<p><a href="${html(link)}">Set your password</a> to accept.</p>`,
      `<p>Or open this address: ${html(link)}</p>`,
      `<p>${html(expiry)}</p>`,
    ].join('\n'),
    links: [link],
  };
}

/**
 * A password reset link of one tenant's pages, mailed on request. It says which tenant, that the link works
 * once for an hour, and that nothing changes if the person did not ask.
 */
export function passwordResetMail(options: {
  to: string;
  tenantName: string;
  product: string;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const { tenantName, product, link, expiresAt } = options;
  const intro = `Someone asked to reset your password for ${tenantName} on ${product}.`;
  const expiry = `The link works once, until ${when(expiresAt)}. If you did not ask, ignore this message: your password stays as it is.`;
  return {
    to: options.to,
    subject: `Reset your password for ${tenantName}`,
    text: `${intro}\n\nChoose a new password:\n${link}\n\n${expiry}\n`,
    html: [
      `<p>${html(intro)}</p>`,
      `<p><a href="${html(link)}">Choose a new password</a>.</p>`,
      `<p>Or open this address: ${html(link)}</p>`,
      `<p>${html(expiry)}</p>`,
    ].join('\n'),
    links: [link],
  };
}
