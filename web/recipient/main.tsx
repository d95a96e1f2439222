// The recipient portal of the Transactions service, at /r/<token>: an invited recipient (a fund's investor)
// fills in, uploads, signs and submits. Every script, style sheet and font comes from this origin (see
// src/transactions/recipients/page-route.ts).
import '@radix-ui/themes/styles.css';
import '../shared/base.css';
import './recipient.css';
import { Theme } from '@radix-ui/themes';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { useAppearance } from '../shared/appearance.ts';
import { App } from './app.tsx';

function Page() {
  return (
    <Theme appearance={useAppearance()} accentColor="indigo" grayColor="slate" radius="medium" hasBackground>
      <BrowserRouter basename="/r">
        <App />
      </BrowserRouter>
    </Theme>
  );
}

const root = document.getElementById('recipient');
if (!root) throw new Error('the page has no #recipient element');
createRoot(root).render(
  <StrictMode>
    <Page />
  </StrictMode>,
);
