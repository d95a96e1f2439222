import { Skeleton } from '@radix-ui/themes';
import { useEffect, type ReactNode } from 'react';
import { Chunked, lazyChunk } from '../shared/app/chunk.tsx';
import { Route, Routes, useParams } from 'react-router';
import { PortalLayout } from './components/portal-layout.tsx';
import { HomePage } from './pages/home.tsx';
import { LinkProblemPage, LoadingPage, NoLinkPage } from './pages/link-problem.tsx';
import { StepNotFound } from './pages/step-not-found.tsx';
import { VoidedPage } from './pages/voided.tsx';
import { PortalProvider, useRecipientView } from './portal-state.tsx';

/**
 * The steps' pages, loaded apart from the overview (where the mailed link leads): an item's form
 * (react-jsonschema-form is most of the portal's script, fetched once the view is in wherever the recipient is,
 * for the next step), signing, submitting.
 */
const load = {
  itemStep: () => import('./pages/item-step.tsx'),
  signStep: () => import('./pages/sign-step.tsx'),
  submitStep: () => import('./pages/submit-step.tsx'),
  electronicRecords: () => import('./pages/electronic-records.tsx'),
};
const ItemStepPage = lazyChunk(async () => ({ default: (await load.itemStep()).ItemStepPage }));
const SignStepPage = lazyChunk(async () => ({ default: (await load.signStep()).SignStepPage }));
const SubmitStepPage = lazyChunk(async () => ({ default: (await load.submitStep()).SubmitStepPage }));
const ElectronicRecordsPage = lazyChunk(async () => ({
  default: (await load.electronicRecords()).ElectronicRecordsPage,
}));

/** A step's page, inside the portal's layout, which stays while the page's module loads. */
function StepPage({ children }: { children: ReactNode }) {
  return (
    <Chunked what="This step" fallback={<Skeleton height="480px" />}>
      {children}
    </Chunked>
  );
}

/**
 * The portal's pages, under /r (the router's basename): `/r/<token>` the overview (or where things stand once
 * submitted), `/r/<token>/<process>/items/<vulcanKey>` an item's form, `/r/<token>/<process>/sign`,
 * `/r/<token>/<process>/submit`, and `/r/<token>/electronic-records` (the disclosure, withdrawing it, paper). The token is the link's secret: it is never sent anywhere but to the
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
  const { state, setView, retry, fail } = useRecipientView(token);
  const ready = state.status === 'ready';
  useEffect(() => {
    // Fetched ahead for the next step; should it not come, the step's page loads it again, or says it did not.
    if (ready) load.itemStep().catch(() => undefined);
  }, [ready]);
  if (state.status === 'loading') return <LoadingPage />;
  if (state.status === 'failed') {
    // The organization ended the transaction: its own page, with their reason.
    if (state.error.code === 'TRANSACTION_VOIDED') return <VoidedPage error={state.error} />;
    return <LinkProblemPage error={state.error} onRetry={retry} />;
  }
  return (
    <PortalProvider token={token} view={state.view} setView={setView} fail={fail}>
      <PortalLayout>
        <Routes>
          <Route index element={<HomePage />} />
          <Route
            path=":processKey/items/:vulcanKey"
            element={
              <StepPage>
                <ItemStepPage />
              </StepPage>
            }
          />
          <Route
            path=":processKey/sign"
            element={
              <StepPage>
                <SignStepPage />
              </StepPage>
            }
          />
          <Route
            path=":processKey/submit"
            element={
              <StepPage>
                <SubmitStepPage />
              </StepPage>
            }
          />
          <Route
            path="electronic-records"
            element={
              <StepPage>
                <ElectronicRecordsPage />
              </StepPage>
            }
          />
          <Route path="*" element={<StepNotFound />} />
        </Routes>
      </PortalLayout>
    </PortalProvider>
  );
}
