import { lazyChunk } from '../app/chunk.tsx';
import { Route } from 'react-router';
import type { AccountSurface } from './surface.ts';

/**
 * The routes of the account pages on `surface`, for its `<Routes>`: `/sign-in`, and the pages of the mailed links
 * (`/invitation`, `/reset-password`) and `/forgot-password`, whose modules load when first opened, so that the
 * signed-in pages load less (signing in, with its passkeys and single sign-on, was a tenth of the app's script;
 * a surface's entry starts the sign-in page's chunk when it is opened there, see `web/<surface>/opened-page.ts`).
 * Call it once, where the surface's app is defined, not while it renders.
 *
 * @example
 * const ACCOUNT_ROUTES = accountRoutes(ACCOUNTS);
 * <Routes>{ACCOUNT_ROUTES}<Route path="/team" element={<TeamPage />} /></Routes>
 */
export function accountRoutes<Answer, User, Tenant>(surface: AccountSurface<Answer, User, Tenant>) {
  const SignInPage = lazyChunk(async () => {
    const { SignInPage: Page } = await import('./sign-in.tsx');
    return { default: () => <Page surface={surface} /> };
  });
  const ForgotPasswordPage = lazyChunk(async () => {
    const { ForgotPasswordPage: Page } = await import('./forgot-password.tsx');
    return { default: () => <Page surface={surface} /> };
  });
  const SetPasswordPage = lazyChunk(async () => {
    const { SetPasswordPage: Page } = await import('./set-password.tsx');
    return {
      default: ({ purpose }: { purpose: 'invitation' | 'reset' }) => (
        <Page surface={surface} purpose={purpose} />
      ),
    };
  });
  return (
    <>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/invitation" element={<SetPasswordPage purpose="invitation" />} />
      <Route path="/reset-password" element={<SetPasswordPage purpose="reset" />} />
    </>
  );
}
