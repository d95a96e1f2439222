import { PRODUCT } from './product.ts';
import { Button, Flex, Skeleton, Spinner, Text } from '@radix-ui/themes';
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes, useLocation, useParams } from 'react-router';
import { AppShell } from './components/app-shell.tsx';
import { AuthLayout } from '../shared/auth-layout.tsx';
import { ErrorCallout } from '../shared/error-callout.tsx';
import { PageHeading } from '../shared/page-heading.tsx';
import { ApiKeysPage } from './pages/api-keys.tsx';
import { CompaniesPage } from './pages/companies.tsx';
import { ForgotPasswordPage } from './pages/forgot-password.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { PeoplePage } from './pages/people.tsx';
import { SetPasswordPage } from './pages/set-password.tsx';
import { SettingsLayout } from './pages/settings.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { WrongInstancePage } from './pages/wrong-instance.tsx';
import { useSession } from './session.tsx';

/** A company's page, with its charts: loaded when first opened, so that signing in loads less. */
const CompanyPage = lazy(async () => ({ default: (await import('./pages/company.tsx')).CompanyPage }));

/**
 * The dashboard's pages, under /dashboard: signing in and the mailed links' pages, then each instance's pages
 * under /dashboard/<instance slug>/ (companies, a company, settings → API keys and people).
 */
export function App() {
  const { session, refresh } = useSession();
  if (session.status === 'loading') {
    return (
      <Flex align="center" justify="center" className="full-height" role="status">
        <Spinner size="3" />
        <Text ml="2" color="gray">
          Loading…
        </Text>
      </Flex>
    );
  }
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
    <Routes>
      <Route path="/" element={<Navigate to={home} replace />} />
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/invitation" element={<SetPasswordPage purpose="invitation" />} />
      <Route path="/reset-password" element={<SetPasswordPage purpose="reset" />} />
      <Route path="/:slug" element={<InstancePages />}>
        <Route index element={<Navigate to="companies" replace />} />
        <Route path="companies" element={<CompaniesPage />} />
        <Route
          path="companies/:companyId"
          element={
            <Suspense fallback={<Skeleton height="320px" />}>
              <CompanyPage />
            </Suspense>
          }
        />
        <Route path="settings" element={<SettingsLayout />}>
          <Route index element={<Navigate to="api-keys" replace />} />
          <Route path="api-keys" element={<ApiKeysPage />} />
          <Route path="people" element={<PeoplePage />} />
        </Route>
        <Route path="*" element={<NotFoundPage home={home} />} />
      </Route>
      <Route path="*" element={<NotFoundPage home={home} />} />
    </Routes>
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
