import { PRODUCT } from './product.ts';
import { Skeleton } from '@radix-ui/themes';
import type { ComponentType } from 'react';
import { Chunked } from '../shared/app/chunk.tsx';
import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { Loading, SessionPending } from '../shared/accounts/session-pending.tsx';
import { AppShell } from '../shared/app/app-shell.tsx';
import { SecondFactorRequiredPage } from '../shared/accounts/factors/second-factor-required.tsx';
import { RoleBadge } from '../shared/accounts/roles.tsx';
import { ROLES } from './roles.ts';
import { NotFoundPage } from '../shared/app/not-found-page.tsx';
import { accountRoutes } from '../shared/accounts/account-routes.tsx';
import { ACCOUNTS } from './accounts.ts';
import { WrongInstancePage } from './pages/wrong-instance.tsx';
import { useSession } from './session.tsx';
import type { PageLoader } from '../shared/app/early-reads.ts';
import { lazyPage } from '../shared/app/lazy-page.ts';
import { load } from './opened-page.ts';

/**
 * A page of an instance, `pick`ed from its module: its shell (header, tabs) stays while the module loads, and a
 * page whose module has come renders at once (the company's page, which the server draws: lazy-page.ts).
 */
function instancePage<Module>(
  load: PageLoader<Module>,
  pick: (module: Module) => ComponentType,
): ComponentType {
  const Page = lazyPage(load, pick);
  return function InstancePage() {
    return (
      <Chunked what="This page" fallback={<Skeleton height="320px" />}>
        <Page />
      </Chunked>
    );
  };
}

/**
 * The pages of chunks of their own, each loaded when first needed (their loaders: opened-page.ts, which starts the
 * companies' or a company's at once when the dashboard is opened there).
 */
const CompaniesPage = instancePage(load.companies, (module) => module.CompaniesPage);
const CompanyPage = instancePage(load.company, (module) => module.CompanyPage);
const SettingsLayout = instancePage(load.settings, (module) => module.SettingsLayout);
const ApiKeysPage = instancePage(load.apiKeys, (module) => module.ApiKeysPage);
const PeoplePage = instancePage(load.people, (module) => module.PeoplePage);
/** Signing in, and the pages of the mailed links (web/shared/accounts/). */
const ACCOUNT_ROUTES = accountRoutes(ACCOUNTS);

/**
 * The dashboard's pages, under /dashboard: signing in and the mailed links' pages, then each instance's pages
 * under /dashboard/<instance slug>/ (companies, a company, settings → API keys and people).
 */
export function App() {
  const { session, refresh } = useSession();
  if (session.status === 'loading' || session.status === 'unreachable') {
    return <SessionPending session={session} refresh={refresh} product={PRODUCT} name="dashboard" />;
  }
  const home = session.status === 'signed-in' ? `/${session.tenant.slug}/companies` : '/sign-in';
  // Said of an unknown address inside an instance (in its shell, to its people only) and of any other.
  const notFound = <NotFoundPage home={home} homeLabel="Go to the dashboard" />;
  return (
    <Chunked what="This page" fallback={<Loading />}>
      <Routes>
        <Route path="/" element={<Navigate to={home} replace />} />
        {ACCOUNT_ROUTES}
        <Route path="/:slug" element={<InstancePages />}>
          <Route index element={<Navigate to="companies" replace />} />
          <Route path="companies" element={<CompaniesPage />} />
          <Route path="companies/:companyId" element={<CompanyPage />} />
          <Route path="settings" element={<SettingsLayout />}>
            <Route index element={<Navigate to="api-keys" replace />} />
            <Route path="api-keys" element={<ApiKeysPage />} />
            <Route path="people" element={<PeoplePage />} />
          </Route>
          <Route path="*" element={notFound} />
        </Route>
        <Route path="*" element={notFound} />
      </Routes>
    </Chunked>
  );
}

/**
 * The pages of one instance: for its signed-in people only. Anyone else goes to sign in and comes back here
 * afterwards; a person of another instance is told so.
 */
function InstancePages() {
  const { session, signOut, refresh } = useSession();
  const { slug } = useParams();
  const { pathname, search } = useLocation();
  const path = `${pathname}${search}`;
  if (session.status !== 'signed-in') {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(path)}`} replace />;
  }
  if (session.tenant.slug !== slug) return <WrongInstancePage path={path} />;
  if (session.secondFactorRequired === true) {
    return (
      <SecondFactorRequiredPage
        product={ACCOUNTS.product}
        tenantName={session.tenant.name}
        refresh={refresh}
        signOut={signOut}
      />
    );
  }
  const base = `/${slug}`;
  return (
    <AppShell
      tenant={session.tenant.name}
      user={session.user}
      role={<RoleBadge role={session.user.role} roles={ROLES} />}
      sections={[
        { to: `${base}/companies`, label: 'Companies' },
        {
          to: `${base}/settings/api-keys`,
          label: 'Settings',
          active: pathname.startsWith(`${base}/settings`),
        },
      ]}
      signOut={signOut}
    />
  );
}
