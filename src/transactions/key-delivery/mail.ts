import type { Environment } from '../../config.ts';
import type { MailMessage } from '../../mail/mailer.ts';
import { escapeHtml, formatWhen } from '../../mail/message-text.ts';

/** How mail names an environment's keys. */
const ENVIRONMENT_TEXT: Record<Environment, string> = {
  staging: 'staging (test) key, sk_test_…',
  production: 'production (live) key, sk_live_…',
};

/**
 * The mail that brings a delivery's link to one of its addresses: who issued a key for what, the link, until
 * when it works, and what the page will ask. The link is the only secret in it.
 */
export function keyDeliveryMail(options: {
  to: string;
  organizationName: string;
  environment: Environment;
  link: string;
  expiresAt: Date;
}): MailMessage {
  const { organizationName, environment, link, expiresAt } = options;
  const intro = `A Portico Transactions API ${ENVIRONMENT_TEXT[environment]} was issued for ${organizationName}, to be retrieved by ${options.to}.`;
  const how =
    'The page asks for your e-mail address and mails a code to it: only the addresses the key was issued to can see it, once.';
  const expiry = `The link works until ${formatWhen(expiresAt)}. Do not forward it. If you did not expect a key, ignore this message: the key will be revoked unseen.`;
  return {
    to: options.to,
    subject: `Your Portico API key for ${organizationName}`,
    text: `${intro}\n\nOpen this link to see it:\n${link}\n\n${how}\n\n${expiry}\n`,
    html: [
      `<p>${escapeHtml(intro)}</p>`,
      `<p><a href="${escapeHtml(link)}">See the key</a></p>`,
      `<p>Or open this address: ${escapeHtml(link)}</p>`,
      `<p>${escapeHtml(how)}</p>`,
      `<p>${escapeHtml(expiry)}</p>`,
    ].join('\n'),
    // Not `links`: they would be logged, and this one carries the secret the key is encrypted under.
  };
}

/** The mail with a code that proves an address on the delivery page: the code, and nothing else secret. */
export function keyDeliveryCodeMail(options: {
  to: string;
  organizationName: string;
  code: string;
  expiresAt: Date;
}): MailMessage {
  const { organizationName, code, expiresAt } = options;
  const intro = `Your code to see the Portico API key issued for ${organizationName}:`;
  const rest = `It works once, until ${formatWhen(expiresAt)}. Enter it on the page where you asked for it. If you did not ask for a code, ignore this message: without it no one sees the key.`;
  return {
    to: options.to,
    // Not in the subject, which mail servers and Portico's own log show.
    subject: `Your code for the Portico API key of ${organizationName}`,
    text: `${intro}\n\n${code}\n\n${rest}\n`,
    html: [
      `<p>${escapeHtml(intro)}</p>`,
      `<p style="font-size:24px;font-weight:bold;letter-spacing:4px">${escapeHtml(code)}</p>`,
      `<p>${escapeHtml(rest)}</p>`,
    ].join('\n'),
  };
}
