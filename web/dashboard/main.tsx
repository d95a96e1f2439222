// The customer dashboard of the Portfolio service, served by Portico itself at /dashboard: every script, style
// sheet and font comes from this origin (see src/portfolio/web/dashboard.ts).
import '@radix-ui/themes/styles.css';
import '../shared/base.css';
import './dashboard.css';
import { Theme } from '@radix-ui/themes';
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

const darkScheme = window.matchMedia('(prefers-color-scheme: dark)');

/** Light or dark, as the device is set, following a change while the page is open. */
function useAppearance(): 'light' | 'dark' {
  const [dark, setDark] = useState(darkScheme.matches);
  useEffect(() => {
    const follow = (event: MediaQueryListEvent) => {
      setDark(event.matches);
    };
    darkScheme.addEventListener('change', follow);
    return () => {
      darkScheme.removeEventListener('change', follow);
    };
  }, []);
  return dark ? 'dark' : 'light';
}

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
