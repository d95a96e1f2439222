import { Skeleton } from '@radix-ui/themes';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Route, Routes, useParams } from 'react-router';
import { recipientApi } from './api.ts';
import { PortalLayout } from './components/portal-layout.tsx';
import { HomePage } from './pages/home.tsx';
import { LinkProblemPage, LoadingPage, NoLinkPage } from './pages/link-problem.tsx';
import { SignStepPage } from './pages/sign-step.tsx';
import { StepNotFound } from './pages/step-not-found.tsx';
import { SubmitStepPage } from './pages/submit-step.tsx';
import { PortalProvider, useRecipientView } from './portal-state.tsx';

/** An item's form: loaded apart (react-jsonschema-form is most of the page's script), fetched once the view is in. */
const loadItemStep = () => import('./pages/item-step.tsx');
const ItemStepPage = lazy(async () => ({ default: (await loadItemStep()).ItemStepPage }));

/**
 * The portal's pages, under /r (the router's basename): `/r/<token>` the overview (or where things stand once
 * submitted), `/r/<token>/<process>/items/<vulcanKey>` an item's form, `/r/<token>/<process>/sign`,
 * `/r/<token>/<process>/submit`. The token is the link's secret: it is never sent anywhere but to the
 * recipient routes, and the page sends no Referer.
 */
export function App() {
  return (
    <Routes>
      <Route path="/" element={<NoLinkPage />} />
      <Route path="/:token/*" element={<Portal />} />
    </Routes>
  );
}

function Portal() {
  const { token = '' } = useParams();
  const api = useMemo(() => recipientApi(token), [token]);
  const { state, setView, retry, fail } = useRecipientView(api);
  const ready = state.status === 'ready';
  useEffect(() => {
    if (ready) void loadItemStep();
  }, [ready]);
  if (state.status === 'loading') return <LoadingPage />;
  if (state.status === 'failed') return <LinkProblemPage error={state.error} onRetry={retry} />;
  return (
    <PortalProvider token={token} api={api} view={state.view} setView={setView} fail={fail}>
      <PortalLayout>
        <Routes>
          <Route index element={<HomePage />} />
          <Route
            path=":processKey/items/:vulcanKey"
            element={
              <Suspense fallback={<Skeleton height="480px" />}>
                <ItemStepPage />
              </Suspense>
            }
          />
          <Route path=":processKey/sign" element={<SignStepPage />} />
          <Route path=":processKey/submit" element={<SubmitStepPage />} />
          <Route path="*" element={<StepNotFound />} />
        </Routes>
      </PortalLayout>
    </PortalProvider>
  );
}
