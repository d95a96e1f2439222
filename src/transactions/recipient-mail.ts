import type { MailMessage } from '../mail/mailer.ts';
import { escapeHtml, formatWhen } from '../mail/message-text.ts';

/**
 * A recipient's link: the recipient portal's page for their transmit token on the Transactions service's public
 * address (PORTICO_TRANSACTIONS_URL).
 *
 * @example
 * recipientLink('https://tx.example.com', token); // 'https://tx.example.com/r/<token>'
 */
export function recipientLink(transactionsUrl: string, transmitToken: string): string {
  return `${transactionsUrl.replace(/\/+$/, '')}/r/${transmitToken}`;
}

/** What the invitation and reminders of a transaction's primary recipient say. */
export interface RecipientMailFacts {
  /** The recipient's address (the transaction's `noticeEmail`). */
  to: string;
  /** Whom the mail greets (the transaction's `noticeName`). */
  noticeName: string;
  /** The organization that sends the transaction. */
  organizationName: string;
  /** The template's name, e.g. `Fund subscription`. */
  templateName: string;
  /** What is asked: the titles of the transaction's processes, e.g. `Subscription`. */
  asked: readonly string[];
  /** Whom to ask about it: the transaction's sender entity, with its address when it has one. */
  contact: { name: string; email: string | null };
  /** The recipient's link, `<PORTICO_TRANSACTIONS_URL>/r/<transmit token>`: the only secret in the mail. */
  link: string;
  /** When the link stops working. */
  expiresAt: Date;
}

/**
 * The mail inviting a transaction's primary recipient: who asks what of them, their link, until when it works,
 * and whom to ask. The link is its only secret; it is also given as `links`, so that without an SMTP server the
 * operator finds it in the log (as with the dashboard's invitations).
 *
 * @example
 * await mailer.send(invitationMail({ to, noticeName, organizationName, templateName, asked, contact, link, expiresAt }));
 */
export function invitationMail(facts: RecipientMailFacts): MailMessage {
  const intro = `${facts.organizationName} asks you to complete ${quoted(facts.templateName)} through Portico.`;
  return recipientMail(facts, {
    subject: `${facts.organizationName} asks you to complete: ${facts.templateName}`,
    intro,
    action: 'Start',
  });
}

/**
 * A reminder of the invitation: the same facts, said to be a reminder, sent while the recipient has something
 * to submit (see recipient-notices.ts).
 */
export function reminderMail(facts: RecipientMailFacts): MailMessage {
  const intro = `A reminder: ${facts.organizationName} is waiting for you to complete ${quoted(facts.templateName)} through Portico.`;
  return recipientMail(facts, {
    subject: `Reminder: ${facts.organizationName} asks you to complete: ${facts.templateName}`,
    intro,
    action: 'Continue',
  });
}

function quoted(text: string): string {
  return `“${text}”`;
}

function recipientMail(
  facts: RecipientMailFacts,
  wording: { subject: string; intro: string; action: string },
): MailMessage {
  const { link } = facts;
  const greeting = `Dear ${facts.noticeName},`;
  const asked = facts.asked.length > 0 ? 'What is asked:' : undefined;
  const open = 'Open your personal link to see what to fill in and sign:';
  const expiry = `The link works until ${formatWhen(facts.expiresAt)}. It is yours alone: do not forward it, as whoever has it can see and change your answers.`;
  const contact =
    facts.contact.email === null
      ? `Questions? Ask ${facts.contact.name}, for ${facts.organizationName}. Do not reply to this message.`
      : `Questions? Write to ${facts.contact.name} at ${facts.contact.email}, for ${facts.organizationName}. Do not reply to this message.`;
  const text = [
    greeting,
    wording.intro,
    ...(asked ? [`${asked}\n${facts.asked.map((title) => `- ${title}`).join('\n')}`] : []),
    `${open}\n${link}`,
    expiry,
    contact,
  ].join('\n\n');
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(wording.intro)}</p>`,
    ...(asked
      ? [
          `<p>${escapeHtml(asked)}</p>`,
          `<ul>${facts.asked.map((title) => `<li>${escapeHtml(title)}</li>`).join('')}</ul>`,
        ]
      : []),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(wording.action)}</a></p>`,
    `<p>Or open this address: ${escapeHtml(link)}</p>`,
    `<p>${escapeHtml(expiry)}</p>`,
    `<p>${escapeHtml(contact)}</p>`,
  ].join('\n');
  return { to: facts.to, subject: wording.subject, text: `${text}\n`, html, links: [link] };
}
