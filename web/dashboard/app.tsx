import { PRODUCT } from './product.ts';
import { Button, Flex, Skeleton, Spinner, Text } from '@radix-ui/themes';
import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { AuthLayout } from '../shared/auth-layout.tsx';
import { ErrorCallout } from '../shared/error-callout.tsx';
import { PageHeading } from '../shared/page-heading.tsx';
import { AppShell } from './components/app-shell.tsx';
import { CompaniesPage } from './pages/companies.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { WrongInstancePage } from './pages/wrong-instance.tsx';
import { useSession } from './session.tsx';

/**
 * The modules of the pages other than signing in and the companies (where signing in leads), each loaded when
 * first needed (a company's charts, the settings' dialogs, the mailed links' pages), so that the first pages
 * load less. Loading the first page's module at once, beside the first script, made a company's page slower on
 * a phone (`npm run bench:pages`): its 100 KiB took the bandwidth the first script and the style sheet needed.
 */
const load = {
  company: () => import('./pages/company.tsx'),
  settings: () => import('./pages/settings.tsx'),
  apiKeys: () => import('./pages/api-keys.tsx'),
  people: () => import('./pages/people.tsx'),
  forgotPassword: () => import('./pages/forgot-password.tsx'),
  setPassword: () => import('./pages/set-password.tsx'),
};
const CompanyPage = lazy(async () => ({ default: (await load.company()).CompanyPage }));
const SettingsLayout = lazy(async () => ({ default: (await load.settings()).SettingsLayout }));
const ApiKeysPage = lazy(async () => ({ default: (await load.apiKeys()).ApiKeysPage }));
const PeoplePage = lazy(async () => ({ default: (await load.people()).PeoplePage }));
const ForgotPasswordPage = lazy(async () => ({ default: (await load.forgotPassword()).ForgotPasswordPage }));
const SetPasswordPage = lazy(async () => ({ default: (await load.setPassword()).SetPasswordPage }));

function Loading() {
  return (
    <Flex align="center" justify="center" className="full-height" role="status">
      <Spinner size="3" />
      <Text ml="2" color="gray">
        Loading…
      </Text>
    </Flex>
  );
}

/** A page of an instance: its shell (header, tabs) stays while the page's module loads. */
function InstancePage({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Skeleton height="320px" />}>{children}</Suspense>;
}

/**
 * The dashboard's pages, under /dashboard: signing in and the mailed links' pages, then each instance's pages
 * under /dashboard/<instance slug>/ (companies, a company, settings → API keys and people).
 */
export function App() {
  const { session, refresh } = useSession();
  if (session.status === 'loading') return <Loading />;
  if (session.status === 'unreachable') {
    return (
      <AuthLayout product={PRODUCT}>
        <PageHeading title="The dashboard cannot reach Portico" />
        <ErrorCallout error={session.error} />
        <Button onClick={() => void refresh()}>Try again</Button>
      </AuthLayout>
    );
  }
  const home = session.status === 'signed-in' ? `/${session.instance.slug}/companies` : '/sign-in';
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/" element={<Navigate to={home} replace />} />
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/invitation" element={<SetPasswordPage purpose="invitation" />} />
        <Route path="/reset-password" element={<SetPasswordPage purpose="reset" />} />
        <Route path="/:slug" element={<InstancePages />}>
          <Route index element={<Navigate to="companies" replace />} />
          <Route
            path="companies"
            element={
              <InstancePage>
                <CompaniesPage />
              </InstancePage>
            }
          />
          <Route
            path="companies/:companyId"
            element={
              <InstancePage>
                <CompanyPage />
              </InstancePage>
            }
          />
          <Route
            path="settings"
            element={
              <InstancePage>
                <SettingsLayout />
              </InstancePage>
            }
          >
            <Route index element={<Navigate to="api-keys" replace />} />
            <Route
              path="api-keys"
              element={
                <InstancePage>
                  <ApiKeysPage />
                </InstancePage>
              }
            />
            <Route
              path="people"
              element={
                <InstancePage>
                  <PeoplePage />
                </InstancePage>
              }
            />
          </Route>
          <Route path="*" element={<NotFoundPage home={home} />} />
        </Route>
        <Route path="*" element={<NotFoundPage home={home} />} />
      </Routes>
    </Suspense>
  );
}

/**
 * The pages of one instance: for its signed-in people only. Anyone else goes to sign in and comes back here
 * afterwards; a person of another instance is told so.
 */
function InstancePages() {
  const { session } = useSession();
  const { slug } = useParams();
  const { pathname, search } = useLocation();
  const path = `${pathname}${search}`;
  if (session.status !== 'signed-in') {
    return <Navigate to={`/sign-in?next=${encodeURIComponent(path)}`} replace />;
  }
  if (session.instance.slug !== slug) return <WrongInstancePage path={path} />;
  return <AppShell />;
}
