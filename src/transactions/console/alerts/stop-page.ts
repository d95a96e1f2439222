import { createHash } from 'node:crypto';
import { escapeHtml } from '../../../mail/message-text.ts';
import { CONSOLE_PATH } from '../links.ts';
import type { StopLinkState } from './stop-tokens.ts';

/**
 * The pages of a digest's "Stop these alerts" link, written on the server: they work in any browser a mail client
 * opens, scripts off included. A GET only asks (mail scanners that fetch every link stop nothing); the button
 * POSTs to the same address, as RFC 8058's one-click does.
 */

/** Where a person picks their alerts again. */
const PREFERENCES_PATH = `${CONSOLE_PATH}/alerts`;

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;background:#f9f9fb;color:#1c2024;line-height:1.5}
main{max-width:32rem;margin:0 auto;background:#fff;border:1px solid #e0e1e6;border-radius:8px;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
button{font:inherit;font-weight:600;color:#fff;background:#3e63dd;border:0;border-radius:6px;padding:.6rem 1.2rem;min-height:44px;cursor:pointer}
button:focus-visible,a:focus-visible{outline:2px solid #3e63dd;outline-offset:2px}
a{color:#3a5bc7}`;

/** The pages' Content-Security-Policy: their one style sheet (by its hash), forms posting to themselves, nothing else. */
export const STOP_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A stop page: its HTTP status and its HTML. */
export interface StopPage {
  status: number;
  html: string;
}

function page(status: number, title: string, body: string): StopPage {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · Portico</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
  return { status, html };
}

const preferencesLink = `<p><a href="${PREFERENCES_PATH}">Choose which alerts you get</a> (in the console, where you may be asked to sign in).</p>`;

/**
 * The page of a stop link: before (`asked`: a button that stops), after (`stopped`), or why the link does not work
 * (404 unknown, 410 expired).
 */
export function stopPage(state: StopLinkState, moment: 'asked' | 'stopped'): StopPage {
  if (state.status === 'unknown') {
    return page(
      404,
      'This link does not work',
      `<p>This link to stop mail alerts is not one Portico knows: it may have been cut short when it was copied.</p>${preferencesLink}`,
    );
  }
  if (state.status === 'expired') {
    return page(
      410,
      'This link has expired',
      `<p>Links to stop mail alerts work for 90 days after their mail was sent.</p>${preferencesLink}`,
    );
  }
  const who = `${escapeHtml(state.email)} from ${escapeHtml(state.organizationName)}`;
  if (moment === 'stopped') {
    return page(
      200,
      'Alerts stopped',
      `<p role="status">No more mail alerts go to ${who}.</p>${preferencesLink}`,
    );
  }
  if (state.stopped) {
    return page(200, 'These alerts are stopped', `<p>No mail alerts go to ${who}.</p>${preferencesLink}`);
  }
  return page(
    200,
    'Stop mail alerts?',
    `<p>Stop every mail alert to ${who}? You can pick them again at any time.</p>
<form method="post"><button type="submit">Stop these alerts</button></form>`,
  );
}
