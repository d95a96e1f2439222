import type { MailMessage } from '../../../mail/mailer.ts';
import { escapeHtml, formatWhen } from '../../../mail/message-text.ts';
import { CONSOLE_PATH } from '../links.ts';
import { ALERT_WORDS, DIGEST_EVERY_MS, type AlertKind } from './alert-kinds.ts';
import type { DigestContent, DigestEvent } from './digest.ts';

/** What a digest mail is made of: whom it goes to, what it lists, and its links' base and stop link. */
export interface DigestFacts {
  to: string;
  personName: string;
  organizationName: string;
  content: DigestContent;
  /** The end of what it lists. */
  through: Date;
  /** The Transactions service's public base address (no trailing slash). */
  transactionsUrl: string;
  /** The one-click stop link (stop-tokens.ts). */
  stopUrl: string;
}

/** The console page an event links to: its transaction's, its closing's; none for a webhook endpoint. */
function linkOf(transactionsUrl: string, event: DigestEvent): string | undefined {
  const console = `${transactionsUrl}${CONSOLE_PATH}`;
  const pages: Record<AlertKind, string | undefined> = {
    submitted: `${console}/transactions/${event.id}`,
    changes_answered: `${console}/transactions/${event.id}`,
    completed: `${console}/transactions/${event.id}`,
    closing_finished: `${console}/closings/${event.id}`,
    webhook_failing: undefined,
  };
  return pages[event.kind];
}

/** An event in words: "Redwood Family Trust — Fund subscription". */
function lineOf(event: DigestEvent): string {
  return event.detail === null ? event.name : `${event.name} — ${event.detail}`;
}

/** "3 submitted, 1 completed": what a digest holds, for its subject. */
function summaryOf(content: DigestContent): string {
  return content
    .map((group) => `${String(group.total)} ${ALERT_WORDS[group.kind].heading.toLowerCase()}`)
    .join(', ');
}

/**
 * The digest mail of one person: what happened in their organization, grouped by kind, each event with the
 * investor's name, the template's title and a link to its page in the console; a "Stop these alerts" link, the
 * headers of RFC 8058's one-click stop (`List-Unsubscribe` and `List-Unsubscribe-Post`), and a link to change
 * which alerts they get.
 */
export function digestMail(facts: DigestFacts): MailMessage {
  const { transactionsUrl, stopUrl } = facts;
  const preferences = `${transactionsUrl}${CONSOLE_PATH}/alerts`;
  const queue = `${transactionsUrl}${CONSOLE_PATH}/queue`;
  const greeting = facts.personName.trim() === '' ? 'Hello,' : `Hello ${facts.personName},`;
  const intro = `Here is what happened in ${facts.organizationName} since your last alerts, up to ${formatWhen(facts.through)}.`;
  const cadence = `You get at most one of these every ${String(DIGEST_EVERY_MS / 60_000)} minutes, for the alerts you picked.`;
  const more = (group: DigestContent[number]) => group.total - group.events.length;

  const text = [
    greeting,
    intro,
    ...facts.content.map((group) =>
      [
        `${ALERT_WORDS[group.kind].heading} (${String(group.total)})`,
        ...group.events.map((event) => {
          const link = linkOf(transactionsUrl, event);
          return `- ${lineOf(event)}${link === undefined ? '' : `\n  ${link}`}`;
        }),
        ...(more(group) > 0 ? [`- and ${String(more(group))} more: ${queue}`] : []),
      ].join('\n'),
    ),
    cadence,
    `Change which alerts you get: ${preferences}`,
    `Stop these alerts: ${stopUrl}`,
  ].join('\n\n');

  const html = [
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    ...facts.content.map((group) =>
      [
        `<h2>${escapeHtml(ALERT_WORDS[group.kind].heading)} (${String(group.total)})</h2>`,
        '<ul>',
        ...group.events.map((event) => {
          const link = linkOf(transactionsUrl, event);
          const line = escapeHtml(lineOf(event));
          return `<li>${link === undefined ? line : `<a href="${escapeHtml(link)}">${line}</a>`}</li>`;
        }),
        ...(more(group) > 0
          ? [`<li><a href="${escapeHtml(queue)}">and ${String(more(group))} more</a></li>`]
          : []),
        '</ul>',
      ].join(''),
    ),
    `<p>${escapeHtml(cadence)} <a href="${escapeHtml(preferences)}">Change which alerts you get</a>.</p>`,
    `<p><a href="${escapeHtml(stopUrl)}">Stop these alerts</a></p>`,
  ].join('\n');

  return {
    to: facts.to,
    subject: `${facts.organizationName}: ${summaryOf(facts.content)}`,
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${stopUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
    links: [stopUrl],
  };
}
