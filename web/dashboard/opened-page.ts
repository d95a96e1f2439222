// What the page the dashboard was opened at needs first, started by the entry (main.tsx) before it imports the
// app: the pages' chunks (each also the loader of its page in app.tsx) and a company's read. It stays small, in
// the entry's chunk: nothing here may import the app's modules.
import { loadEarly, readEarly } from '../shared/app/early-reads.ts';
import { dashboardApi } from './api.ts';

/**
 * The modules of the pages, each loaded when first needed (the companies, a company's page, the settings' dialogs,
 * the mailed links' pages), so that the first pages load less: a company's page opened from a link loads neither
 * the companies' code nor its selects.
 */
export const load = {
  companies: () => import('./pages/companies.tsx'),
  company: () => import('./pages/company.tsx'),
  settings: () => import('./pages/settings.tsx'),
  apiKeys: () => import('./pages/api-keys.tsx'),
  people: () => import('./pages/people.tsx'),
  /** Signing in, where the dashboard sends whoever is not signed in: started at once when it is opened there. */
  signIn: () => import('../shared/accounts/sign-in.tsx'),
};

/**
 * Starts what the page the dashboard was opened at needs first, before the session is known: a company's page,
 * its chunk and its read (the company, its updates and investments), the companies' chunk (at the dashboard's
 * address or an instance's, where a signed-in person lands), or signing in's chunk. They then leave beside the
 * app's script, not a round trip each after it (bench/RESULTS.md, issue 44); the page's `useResource` takes the
 * answer.
 */
export function startOpenedPage({ pathname }: { pathname: string }): void {
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
  loadEarly(load.company);
}
