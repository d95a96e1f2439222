// What the page the console was opened at needs first, started by the entry (main.tsx) before it imports the
// app: the pages' chunks that this starts (each also the loader of its page's `lazy` in app.tsx), and their first
// reads. It stays small, in the entry's chunk (web/vite.config.ts): nothing here may import the app's modules.
import { loadEarly, pageLoader, readEarly, type Started } from '../shared/app/early-reads.ts';
import type { AccountRoutes } from '../shared/accounts/api-client.ts';
import { client, consoleApi } from './api.ts';

/** The work queue, the home: a chunk of its own, started at once when the console is opened there. */
export const loadQueuePage = async () => ({ default: (await import('./pages/queue.tsx')).QueuePage });
/** Signing in, where the console sends whoever is not signed in: started at once when it is opened there. */
const loadSignInPage = () => import('../shared/accounts/sign-in.tsx');
/**
 * A transaction's page, with its workflow drawn: a chunk of its own, loaded when one is opened. The server draws
 * it (src/transactions/console/console.ts, `drawnConsolePage`), so it is remembered once it has come (`pageLoader`).
 */
export const loadTransactionPage = pageLoader(() => import('./pages/transaction/transaction-page.tsx'));
/** "New transaction", the form that starts one: a chunk of its own too, loaded when it is opened. */
export const loadStartPage = () => import('./pages/start/start-page.tsx');
/** The closings: their list, "New closing" and a closing's page, each a chunk of its own. */
export const loadClosingsPage = () => import('./pages/closings/closings-page.tsx');
export const loadNewClosingPage = () => import('./pages/closings/new-closing-page.tsx');
export const loadClosingPage = () => import('./pages/closings/closing-page.tsx');

/**
 * Starts what the page the console was opened at needs first, before the session is known: the work queue's chunk
 * and its first page (at its plain address: the home, where sign-in lands), signing in's chunk, "New transaction"'s chunk and what its form
 * offers, a transaction's chunk and its reads above the fold (the transaction, its workflow and its review), or a
 * closings page's chunk and what it reads first (the closings, what "New closing" offers, or the closing). A phone
 * then waits one round trip for them rather than three in a row (bench/RESULTS.md, 2026-11-28). The console's
 * entry calls it before it imports the app, so they leave beside the app's script rather than after it. Answers
 * when the session and the page's chunk have come (or failed): a page the server drew waits for them before the
 * app renders over it.
 */
export function startOpenedPage({
  pathname,
  search,
}: {
  pathname: string;
  search: string;
}): Promise<unknown> {
  // Who is signed in: every page asks first (the HTML preloads it), and one the server drew renders with it.
  const session = readEarly(client.routes<AccountRoutes<unknown>>(), 'GET /session');
  return Promise.all([session.settled, startPage(pathname, search)?.settled]);
}

/** Starts the opened page's chunk and first reads (see {@link startOpenedPage}): answers the chunk's load. */
function startPage(pathname: string, search: string): Started | undefined {
  if (/^\/console\/?$|^\/console\/queue\/?$/.test(pathname)) {
    loadEarly(loadQueuePage);
    if (search !== '') return;
    readEarly(consoleApi, 'GET /queue', { query: {} });
    readEarly(consoleApi, 'GET /queue/options');
    return;
  }
  if (/^\/console\/sign-in\/?$/.test(pathname)) {
    loadEarly(loadSignInPage);
    return;
  }
  if (/^\/console\/transactions\/new\/?$/.test(pathname)) {
    loadEarly(loadStartPage);
    readEarly(consoleApi, 'GET /start/options');
    return;
  }
  if (/^\/console\/closings\/?$/.test(pathname)) {
    loadEarly(loadClosingsPage);
    readEarly(consoleApi, 'GET /closings');
    return;
  }
  if (/^\/console\/closings\/new\/?$/.test(pathname)) {
    loadEarly(loadNewClosingPage);
    readEarly(consoleApi, 'GET /start/options');
    return;
  }
  const closing = /^\/console\/closings\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (closing !== undefined) {
    loadEarly(loadClosingPage);
    try {
      readEarly(consoleApi, 'GET /closings/:id', { params: { id: decodeURIComponent(closing) } });
    } catch {
      // Not an address the page can read: it says so itself.
    }
    return;
  }
  const opened = /^\/console\/transactions\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (opened === undefined) return;
  let id: string | undefined;
  try {
    id = decodeURIComponent(opened);
  } catch {
    // Not an address the page can read: it says so itself.
  }
  if (id !== undefined) {
    // The reads first: on HTTP/1.1's six connections, the transaction's answer is what the header waits for.
    const params = { id };
    readEarly(consoleApi, 'GET /transactions/:id', { params });
    readEarly(consoleApi, 'GET /transactions/:id/workflow', { params });
    readEarly(consoleApi, 'GET /transactions/:id/review', { params });
  }
  return loadEarly(loadTransactionPage);
}
