// The customer dashboard of the Portfolio service, served by Portico itself at /dashboard: every script, style
// sheet and font comes from this origin (see src/portfolio/dashboard/dashboard.ts).
import '@radix-ui/themes/styles.css';
import '../shared/base.css';
import './dashboard.css';
import { Theme } from '@radix-ui/themes';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { useAppearance } from '../shared/appearance.ts';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

function Dashboard() {
  return (
    <Theme appearance={useAppearance()} accentColor="indigo" grayColor="slate" radius="medium" hasBackground>
      <BrowserRouter basename="/dashboard">
        <SessionProvider>
          <App />
        </SessionProvider>
      </BrowserRouter>
    </Theme>
  );
}

const root = document.getElementById('dashboard');
if (!root) throw new Error('the page has no #dashboard element');
createRoot(root).render(
  <StrictMode>
    <Dashboard />
  </StrictMode>,
);
