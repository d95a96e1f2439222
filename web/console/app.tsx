import { Navigate, Route, Routes, useLocation } from 'react-router';
import { lazy, Suspense, type ReactNode } from 'react';
import { accountRoutes } from '../shared/accounts/account-routes.tsx';
import { AppShell, type ShellSection } from '../shared/app/app-shell.tsx';
import { RoleBadge } from '../shared/accounts/roles.tsx';
import { Loading, SessionPending } from '../shared/accounts/session-pending.tsx';
import { SignInAgainDialog } from '../shared/accounts/sign-in-again.tsx';
import { SecondFactorRequiredPage } from '../shared/accounts/factors/second-factor-required.tsx';
import { NotFoundPage } from '../shared/app/not-found-page.tsx';
import { readEarly } from '../shared/app/early-reads.ts';
import { consoleApi } from './api.ts';
import { LiveProvider } from './live.tsx';
import { QueuePage } from './pages/queue.tsx';
import { TeamPage } from './pages/team.tsx';
import { ROLES } from './roles.ts';
import { ACCOUNTS, useSession } from './session.tsx';

/** The sections of the console's navigation, each a page under `/console`; the first is the home. */
export const SECTIONS: readonly ShellSection[] = [
  { to: '/queue', label: 'Work queue' },
  { to: '/closings', label: 'Closings' },
  { to: '/templates', label: 'Templates' },
  { to: '/team', label: 'Team' },
];

/** The person's own pages, in their menu. */
const PERSONAL: readonly ShellSection[] = [{ to: '/alerts', label: 'Mail alerts' }];

/** Signing in, and the pages of the mailed links (web/shared/accounts/). */
const ACCOUNT_ROUTES = accountRoutes(ACCOUNTS);

/** A transaction's page, with its workflow drawn: a chunk of its own, loaded when one is opened. */
const loadTransactionPage = () => import('./pages/transaction/transaction-page.tsx');
const TransactionPage = lazy(loadTransactionPage);
/** "New transaction", the form that starts one: a chunk of its own too, loaded when it is opened. */
const loadStartPage = () => import('./pages/start/start-page.tsx');
const StartPage = lazy(loadStartPage);
/** The closings: their list, "New closing" and a closing's page, each a chunk of its own. */
const loadClosingsPage = () => import('./pages/closings/closings-page.tsx');
const ClosingsPage = lazy(loadClosingsPage);
const loadNewClosingPage = () => import('./pages/closings/new-closing-page.tsx');
const NewClosingPage = lazy(loadNewClosingPage);
const loadClosingPage = () => import('./pages/closings/closing-page.tsx');
const ClosingPage = lazy(loadClosingPage);
/** The templates: their list, the import and a template's page (with its workflow drawn), chunks of their own. */
const TemplatesPage = lazy(() => import('./pages/templates/templates-page.tsx'));
const ImportTemplatePage = lazy(() => import('./pages/templates/import-page.tsx'));
const TemplatePage = lazy(() => import('./pages/templates/template-page.tsx'));
/** The person's mail alerts: a chunk of its own. */
const AlertsPage = lazy(() => import('./pages/alerts.tsx'));
/** A bulk action: its preflight before it runs, and its page after; a chunk each. */
const NewBulkPage = lazy(() => import('./pages/bulk/new-bulk-page.tsx'));
const BulkPage = lazy(() => import('./pages/bulk/bulk-page.tsx'));

/**
 * Starts what the page the console was opened at needs first, before the session is known: the work queue's
 * first page (at its plain address: the home, where sign-in lands), "New transaction"'s chunk and what its form
 * offers, a transaction's chunk and its reads above the fold (the transaction, its workflow and its review), or a
 * closings page's chunk and what it reads first (the closings, what "New closing" offers, or the closing). A phone
 * then waits one round trip for them rather than three in a row (bench/RESULTS.md, 2026-11-28).
 */
export function startOpenedPage({ pathname, search }: { pathname: string; search: string }): void {
  if (/^\/console\/?$|^\/console\/queue\/?$/.test(pathname) && search === '') {
    readEarly(consoleApi, 'GET /queue', { query: {} });
    readEarly(consoleApi, 'GET /queue/options');
    return;
  }
  if (/^\/console\/transactions\/new\/?$/.test(pathname)) {
    void loadStartPage();
    readEarly(consoleApi, 'GET /start/options');
    return;
  }
  if (/^\/console\/closings\/?$/.test(pathname)) {
    void loadClosingsPage();
    readEarly(consoleApi, 'GET /closings');
    return;
  }
  if (/^\/console\/closings\/new\/?$/.test(pathname)) {
    void loadNewClosingPage();
    readEarly(consoleApi, 'GET /start/options');
    return;
  }
  const closing = /^\/console\/closings\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (closing !== undefined) {
    void loadClosingPage();
    try {
      readEarly(consoleApi, 'GET /closings/:id', { params: { id: decodeURIComponent(closing) } });
    } catch {
      // Not an address the page can read: it says so itself.
    }
    return;
  }
  const opened = /^\/console\/transactions\/([^/]+)\/?$/.exec(pathname)?.[1];
  if (opened === undefined) return;
  void loadTransactionPage();
  let id: string;
  try {
    id = decodeURIComponent(opened);
  } catch {
    return; // Not an address the page can read: it says so itself.
  }
  const params = { id };
  readEarly(consoleApi, 'GET /transactions/:id', { params });
  readEarly(consoleApi, 'GET /transactions/:id/workflow', { params });
  readEarly(consoleApi, 'GET /transactions/:id/review', { params });
}

/**
 * The console's pages, under /console: signing in and the mailed links' pages, then the pages of the signed-in
 * in the console's shell (`SignedInPages`).
 */
export function App() {
  const { session, refresh } = useSession();
  if (session.status === 'loading' || session.status === 'unreachable') {
    return <SessionPending session={session} refresh={refresh} product={ACCOUNTS.product} name="console" />;
  }
  const home = session.status === 'signed-in' ? ACCOUNTS.home(session.tenant) : '/sign-in';
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/" element={<Navigate to={home} replace />} />
        {ACCOUNT_ROUTES}
        <Route element={<SignedInPages />}>
          <Route path="/queue" element={<QueuePage />} />
          <Route path="/team" element={<TeamPage />} />
          <Route
            path="/transactions/new"
            element={
              <Suspense fallback={<Loading />}>
                <StartPage />
              </Suspense>
            }
          />
          <Route path="/closings" element={<Lazily page={<ClosingsPage />} />} />
          <Route path="/closings/new" element={<Lazily page={<NewClosingPage />} />} />
          <Route path="/closings/:id" element={<Lazily page={<ClosingPage />} />} />
          <Route path="/templates" element={<Lazily page={<TemplatesPage />} />} />
          <Route path="/templates/import" element={<Lazily page={<ImportTemplatePage />} />} />
          <Route path="/templates/:key" element={<Lazily page={<TemplatePage />} />} />
          <Route path="/alerts" element={<Lazily page={<AlertsPage />} />} />
          <Route path="/bulk/new" element={<Lazily page={<NewBulkPage />} />} />
          <Route path="/bulk/:id" element={<Lazily page={<BulkPage />} />} />
          <Route
            path="/transactions/:id"
            element={
              <Suspense fallback={<Loading />}>
                <TransactionPage />
              </Suspense>
            }
          />
        </Route>
        <Route path="*" element={<NotFoundPage home={home} homeLabel="Go to the console" />} />
      </Routes>
    </Suspense>
  );
}

/**
 * The pages of the signed-in, in the shell (the organization, the sections, the person's menu). Anyone else goes
 * to sign in and comes back here afterwards. A session that ends under a page keeps it, and asks to sign in above
 * it; another person signing in there gets the page afresh (`key`), without what the first one typed, and a
 * stream of changes (`LiveProvider`) of their own.
 */
function SignedInPages() {
  const { session, signOut, refresh } = useSession();
  const { pathname, search } = useLocation();
  if (session.status !== 'signed-in') {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(`${pathname}${search}`)}`} replace />;
  }
  const { user, tenant } = session;
  if (session.secondFactorRequired === true) {
    return (
      <SecondFactorRequiredPage
        product={ACCOUNTS.product}
        tenantName={tenant.name}
        refresh={refresh}
        signOut={signOut}
      />
    );
  }
  return (
    <LiveProvider key={`${tenant.handle} ${user.id}`}>
      <AppShell
        tenant={tenant.name}
        user={user}
        role={<RoleBadge role={user.role} roles={ROLES} />}
        sections={SECTIONS}
        personal={PERSONAL}
        signOut={signOut}
      >
        <SignInAgainDialog surface={ACCOUNTS} />
      </AppShell>
    </LiveProvider>
  );
}

/** A page of a chunk of its own, "Loading" until its chunk is there, in the shell. */
function Lazily({ page }: { page: ReactNode }) {
  return <Suspense fallback={<Loading />}>{page}</Suspense>;
}
