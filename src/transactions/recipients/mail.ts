import type { MailMessage } from '../../mail/mailer.ts';
import { escapeHtml, formatWhen } from '../../mail/message-text.ts';

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

/** What the mail of a transaction's primary recipient says. */
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
 * and whom to ask, with the personal line of the person who started the transaction (`note`), quoted as text. The
 * link is its only secret; it is also given as `links`, so that without an SMTP server the
 * operator finds it in the log (as with the dashboard's invitations). After a reset of the link
 * (`linkReplaced`), it says so and that the old link no longer works.
 *
 * @example
 * await mailer.send(invitationMail({ to, noticeName, organizationName, templateName, asked, contact, link, expiresAt }));
 */
export function invitationMail(
  facts: RecipientMailFacts,
  options: { linkReplaced?: boolean; note?: string | null } = {},
): MailMessage {
  const subject = `${facts.organizationName} asks you to complete: ${facts.templateName}`;
  if (options.linkReplaced === true) {
    return recipientMail(facts, {
      subject: `New link: ${subject}`,
      intro: `${facts.organizationName} replaced your link to ${quoted(facts.templateName)}. The link you had before no longer works: use the new one below.`,
      action: 'Open your new link',
    });
  }
  const intro = `${facts.organizationName} asks you to complete ${quoted(facts.templateName)} through Portico.`;
  const { note } = options;
  return recipientMail(facts, {
    subject,
    intro,
    action: 'Start',
    quote: note ? { says: `${facts.organizationName} writes:`, text: note } : undefined,
  });
}

/**
 * A reminder of the invitation: the same facts, said to be a reminder, sent while the recipient has something
 * to submit (see recipients/notice-sender.ts).
 */
export function reminderMail(facts: RecipientMailFacts): MailMessage {
  const intro = `A reminder: ${facts.organizationName} is waiting for you to complete ${quoted(facts.templateName)} through Portico.`;
  return recipientMail(facts, {
    subject: `Reminder: ${facts.organizationName} asks you to complete: ${facts.templateName}`,
    intro,
    action: 'Continue',
  });
}

/**
 * The mail of a request for changes: the sponsor sent a revision back to the recipient, with what they said
 * (quoted as text, never as HTML) and the link to make the changes.
 */
export function changesRequestedMail(
  facts: RecipientMailFacts,
  options: { message: string | null },
): MailMessage {
  return recipientMail(facts, {
    subject: `${facts.organizationName} asks for changes: ${facts.templateName}`,
    intro: `${facts.organizationName} reviewed what you submitted for ${quoted(facts.templateName)} and asks you to change it, then sign and submit again.`,
    quote:
      options.message === null
        ? undefined
        : { says: `${facts.organizationName} writes:`, text: options.message },
    open: 'Open your personal link to see what to change (the fields are marked):',
    action: 'Make the changes',
  });
}

/**
 * The mail sent when the transaction completes: everyone signed, and the recipient's signed copy waits on their
 * page. A link, never an attachment: the portal's page (rather than a /files link, which works for at most a
 * day) makes a fresh download link each time it is opened, for as long as the recipient's link works.
 */
export function signedCopyMail(facts: RecipientMailFacts): MailMessage {
  return recipientMail(facts, {
    subject: `Signed by everyone: ${facts.templateName} with ${facts.organizationName}`,
    intro: `Everyone has signed ${quoted(facts.templateName)} with ${facts.organizationName}: it is complete.`,
    asked: false,
    open: 'Download your signed copy from your personal page:',
    action: 'Download your signed copy',
    expiry: `The link works until ${formatWhen(facts.expiresAt)}: keep your copy before then. It is yours alone: do not forward it.`,
  });
}

/**
 * The mail sent when the organization voids the transaction: nothing more is asked of the recipient, with the
 * reason the organization gave (quoted as text, never as HTML). Their link now shows the same.
 *
 * @example
 * await mailer.send(voidedMail(facts, { reason: 'The fund closed before your subscription.' }));
 */
export function voidedMail(facts: RecipientMailFacts, options: { reason: string }): MailMessage {
  return recipientMail(facts, {
    subject: `Cancelled: ${facts.templateName} with ${facts.organizationName}`,
    intro: `${facts.organizationName} cancelled (voided) ${quoted(facts.templateName)}: nothing more is asked of you.`,
    quote: { says: `${facts.organizationName} writes:`, text: options.reason },
    asked: false,
    open: 'Your personal page says the same:',
    action: 'See what happened',
    expiry: 'You need not do anything. Do not forward this message: the link is yours alone.',
  });
}

function quoted(text: string): string {
  return `“${text}”`;
}

function recipientMail(
  facts: RecipientMailFacts,
  wording: {
    subject: string;
    intro: string;
    action: string;
    /** What someone said, quoted as they wrote it. */
    quote?: { says: string; text: string } | undefined;
    /** Whether the mail lists what is asked. @default true */
    asked?: boolean;
    open?: string;
    expiry?: string;
  },
): MailMessage {
  const { link } = facts;
  const { quote } = wording;
  const greeting = `Dear ${facts.noticeName},`;
  const asked = facts.asked.length > 0 && wording.asked !== false ? 'What is asked:' : undefined;
  const open = wording.open ?? 'Open your personal link to see what to fill in and sign:';
  const expiry =
    wording.expiry ??
    `The link works until ${formatWhen(facts.expiresAt)}. It is yours alone: do not forward it, as whoever has it can see and change your answers.`;
  const contact =
    facts.contact.email === null
      ? `Questions? Ask ${facts.contact.name}, for ${facts.organizationName}. Do not reply to this message.`
      : `Questions? Write to ${facts.contact.name} at ${facts.contact.email}, for ${facts.organizationName}. Do not reply to this message.`;
  const text = [
    greeting,
    wording.intro,
    ...(quote
      ? [
          `${quote.says}\n${quote.text
            .split(/\r?\n/)
            .map((line) => `> ${line}`)
            .join('\n')}`,
        ]
      : []),
    ...(asked ? [`${asked}\n${facts.asked.map((title) => `- ${title}`).join('\n')}`] : []),
    `${open}\n${link}`,
    expiry,
    contact,
  ].join('\n\n');
  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(wording.intro)}</p>`,
    // The sponsor's words are text: escaped, their line breaks kept.
    ...(quote
      ? [
          `<p>${escapeHtml(quote.says)}</p>`,
          `<blockquote>${quote.text.split(/\r?\n/).map(escapeHtml).join('<br>')}</blockquote>`,
        ]
      : []),
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
