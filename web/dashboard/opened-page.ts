// What the page the dashboard was opened at needs first, started by the entry (main.tsx) before it imports the
// app: the pages' chunks (each also the loader of its page in app.tsx) and a company's read. It stays small, in
// the entry's chunk: nothing here may import the app's modules.
import { loadEarly, pageLoader, readEarly, type Started } from '../shared/app/early-reads.ts';
import type { AccountRoutes } from '../shared/accounts/api-client.ts';
import { client, dashboardApi } from './api.ts';

/**
 * The modules of the pages, each loaded when first needed (the companies, a company's page, the settings' dialogs,
 * the mailed links' pages), so that the first pages load less: a company's page opened from a link loads neither
 * the companies' code nor its selects.
 */
export const load = {
  companies: pageLoader(() => import('./pages/companies.tsx')),
  /** A company's page: the server draws it, so its module is remembered once it has come (`pageLoader`). */
  company: pageLoader(() => import('./pages/company.tsx')),
  settings: pageLoader(() => import('./pages/settings.tsx')),
  apiKeys: pageLoader(() => import('./pages/api-keys.tsx')),
  people: pageLoader(() => import('./pages/people.tsx')),
  /** Signing in, where the dashboard sends whoever is not signed in: started at once when it is opened there. */
  signIn: () => import('../shared/accounts/sign-in.tsx'),
};

/**
 * Starts what the page the dashboard was opened at needs first, before the session is known: a company's page,
 * its chunk and its read (the company, its updates and investments), the companies' chunk (at the dashboard's
 * address or an instance's, where a signed-in person lands), or signing in's chunk. They then leave beside the
 * app's script, not a round trip each after it (bench/RESULTS.md, issue 44); the page's `useResource` takes the
 * answer. Answers when the session and the page's chunk have come (or failed): a page the server drew waits for
 * them before the app renders over it.
 */
export function startOpenedPage({ pathname }: { pathname: string }): Promise<unknown> {
  // Who is signed in: every page asks first (the HTML preloads it), and one the server drew renders with it.
  const session = readEarly(client.routes<AccountRoutes<unknown>>(), 'GET /session');
  return Promise.all([session.settled, startPage(pathname)?.settled]);
}

/** Starts the opened page's chunk and first read (see {@link startOpenedPage}): answers the chunk's load. */
function startPage(pathname: string): Started | undefined {
  if (/^\/dashboard\/sign-in\/?$/.test(pathname)) {
    loadEarly(load.signIn);
    return;
  }
  if (
    /^\/dashboard\/?$|^\/dashboard\/[^/]+\/(companies\/?)?$/.test(pathname) &&
    !/^\/dashboard\/(forgot-password|invitation|reset-password)\/?$/.test(pathname)
  ) {
    loadEarly(load.companies);
    return;
  }
  const [, slug, id] = /^\/dashboard\/([^/]+)\/companies\/([^/]+)\/?$/.exec(pathname) ?? [];
  if (slug === undefined || id === undefined) return;
  try {
    readEarly(dashboardApi, 'GET /instances/:slug/companies/:id', {
      params: { slug: decodeURIComponent(slug), id: decodeURIComponent(id) },
    });
  } catch {
    // Not an address the page can read: it says so itself.
  }
  return loadEarly(load.company);
}
