// The key-delivery page of the Transactions service, at /key-delivery/<link id>#<secret>: a listed address
// proves itself with a mailed code, then the page decrypts the key in the browser. Every script, style sheet
// and font comes from this origin (see src/transactions/key-delivery/routes.ts).
import '@radix-ui/themes/styles.css';
import '../shared/base.css';
import { Theme } from '@radix-ui/themes';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { useAppearance } from '../shared/appearance.ts';
import { KeyDelivery } from './key-delivery.tsx';

function Page() {
  return (
    <Theme appearance={useAppearance()} accentColor="indigo" grayColor="slate" radius="medium" hasBackground>
      <KeyDelivery />
    </Theme>
  );
}

const root = document.getElementById('key-delivery');
if (!root) throw new Error('the page has no #key-delivery element');
createRoot(root).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
