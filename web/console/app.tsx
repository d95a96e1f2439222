import { Navigate, Route, Routes, useLocation } from 'react-router';
import type { ReactNode } from 'react';
import { Chunked, lazyChunk } from '../shared/app/chunk.tsx';
import { accountRoutes } from '../shared/accounts/account-routes.tsx';
import { AppShell, type ShellSection } from '../shared/app/app-shell.tsx';
import { RoleBadge } from '../shared/accounts/roles.tsx';
import { Loading, SessionPending } from '../shared/accounts/session-pending.tsx';
import { SignInAgainDialog } from '../shared/accounts/sign-in-again.tsx';
import { SecondFactorRequiredPage } from '../shared/accounts/factors/second-factor-required.tsx';
import { NotFoundPage } from '../shared/app/not-found-page.tsx';
import { lazyPage } from '../shared/app/lazy-page.ts';
import { LiveProvider } from './live.tsx';
import {
  loadClosingPage,
  loadClosingsPage,
  loadNewClosingPage,
  loadQueuePage,
  loadStartPage,
  loadTransactionPage,
} from './opened-page.ts';
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

/**
 * The pages of chunks of their own, each loaded when it is opened (their loaders: opened-page.ts), the work queue
 * too: a transaction's page opened from a link loads neither the queue's code nor its selects (issue 44).
 */
const QueuePage = lazyChunk(loadQueuePage);
/** The team: its people, their invitations, the organization's sign-in settings; a chunk of its own. */
const TeamPage = lazyChunk(async () => ({ default: (await import('./pages/team.tsx')).TeamPage }));
/** A transaction's page: the server draws it, and the app renders over it at once (lazy-page.ts). */
const TransactionPage = lazyPage(loadTransactionPage, (module) => module.default);
const StartPage = lazyChunk(loadStartPage);
const ClosingsPage = lazyChunk(loadClosingsPage);
const NewClosingPage = lazyChunk(loadNewClosingPage);
const ClosingPage = lazyChunk(loadClosingPage);
/** The templates: their list, the import and a template's page (with its workflow drawn), chunks of their own. */
const TemplatesPage = lazyChunk(() => import('./pages/templates/templates-page.tsx'));
const ImportTemplatePage = lazyChunk(() => import('./pages/templates/import-page.tsx'));
const TemplatePage = lazyChunk(() => import('./pages/templates/template-page.tsx'));
/** The person's mail alerts: a chunk of its own. */
const AlertsPage = lazyChunk(() => import('./pages/alerts.tsx'));
/** A bulk action: its preflight before it runs, and its page after; a chunk each. */
const NewBulkPage = lazyChunk(() => import('./pages/bulk/new-bulk-page.tsx'));
const BulkPage = lazyChunk(() => import('./pages/bulk/bulk-page.tsx'));

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
    <Chunked what="This page" fallback={<Loading />}>
      <Routes>
        <Route path="/" element={<Navigate to={home} replace />} />
        {ACCOUNT_ROUTES}
        <Route element={<SignedInPages />}>
          <Route path="/queue" element={<Lazily page={<QueuePage />} />} />
          <Route path="/team" element={<Lazily page={<TeamPage />} />} />
          <Route
            path="/transactions/new"
            element={
              <Chunked what="This page" fallback={<Loading />}>
                <StartPage />
              </Chunked>
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
              <Chunked what="This page" fallback={<Loading />}>
                <TransactionPage />
              </Chunked>
            }
          />
        </Route>
        <Route path="*" element={<NotFoundPage home={home} homeLabel="Go to the console" />} />
      </Routes>
    </Chunked>
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

/** A page of a chunk of its own, "Loading" until its chunk is there (or saying it did not come), in the shell. */
function Lazily({ page }: { page: ReactNode }) {
  return (
    <Chunked what="This page" fallback={<Loading />}>
      {page}
    </Chunked>
  );
}
