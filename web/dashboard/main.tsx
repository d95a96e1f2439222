// The customer dashboard of the Portfolio service, served by Portico itself at /dashboard: every script, style
// sheet and font comes from this origin (see src/portfolio/dashboard/dashboard.ts).
import { mountThemed } from '../shared/boot.tsx';
import '../shared/app/app.css';
import './dashboard.css';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

mountThemed(
  'dashboard',
  <BrowserRouter basename="/dashboard">
    <SessionProvider>
      <App />
    </SessionProvider>
  </BrowserRouter>,
);
