// A signed-in page the server drew (src/http/drawing/): its words are in the HTML, so a phone paints them
// before any script has come, and the app then renders over them. The entry takes the answers the server drew
// it with, and tells the server, for the next page, how this reader reads: their language, time zone and
// light or dark.
import type { ReaderCookie } from '../../../src/http/drawing/drawing-contract.ts';
import { answerEarly, importWhenParsed } from './early-reads.ts';

/** The cookie that tells the server how to write a page for this browser (src/http/drawing/drawn-pages.ts reads it). */
const READER_COOKIE: ReaderCookie = 'portico_reader';

/**
 * Sets the reader cookie: the browser's language, time zone and light or dark appearance, a year, to every path
 * of this host (both services' pages), as the server draws a page in them. Nothing in it is secret.
 */
function tellReader(): void {
  const reader = new URLSearchParams({
    locale: navigator.language,
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    scheme: window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
  });
  document.cookie = `${READER_COOKIE}=${encodeURIComponent(reader.toString())}; path=/; max-age=31536000; samesite=lax; secure`;
}

/**
 * Whether the server drew the page: then the answers it drew it with (`<script type="application/json"
 * id="<surface>-answers">`, before the entry's script) are taken as the page's first reads, by their addresses.
 */
function takeDrawnAnswers(surface: string): boolean {
  const sent = document.getElementById(`${surface}-answers`);
  if (sent === null) return false;
  try {
    const answers = JSON.parse(sent.textContent) as Record<string, unknown>;
    for (const [url, data] of Object.entries(answers)) answerEarly(url, data);
  } catch {
    // Not what the server writes: the page reads its answers itself.
  }
  return true;
}

/**
 * What a signed-in surface's entry does: tells the reader cookie, takes a drawn page's answers, starts what the
 * opened page needs first (`startOpenedPage`, which answers when the session and the page's chunk have come), and
 * mounts the app (`loadApp` imports it) once the document is parsed; over a drawn page, once the app can render
 * the same page at once.
 *
 * @example
 * startSurface('console', startOpenedPage, async () => (await import('./mount.tsx')).mountConsole);
 */
export function startSurface(
  surface: string,
  startOpenedPage: (location: Location) => Promise<unknown>,
  loadApp: () => Promise<() => void>,
): void {
  tellReader();
  const drawn = takeDrawnAnswers(surface);
  const opened = startOpenedPage(window.location);
  importWhenParsed(async () => {
    const [mount] = await Promise.all([loadApp(), drawn ? opened : undefined]);
    mount();
  }, sayAppNotLoaded);
}

/**
 * Says at the top of the page that its app did not come (the connection dropped, Portico was updated since the page
 * came, or the person left while it loaded), with a link that loads the page again: a page the server drew stays
 * readable under it, but nothing on it would work. The app's style sheet, which the HTML links, draws it.
 */
function sayAppNotLoaded(): void {
  const notice = document.createElement('p');
  notice.setAttribute('role', 'alert');
  notice.className = 'app-not-loaded';
  const reload = document.createElement('a');
  reload.href = window.location.href;
  reload.textContent = 'Reload the page';
  notice.append(
    'This page did not finish loading: the connection may have dropped, or Portico was updated since it opened. ',
    reload,
  );
  document.body.prepend(notice);
}
