// The organization console of the Transactions service, served by Portico itself at /console: every script,
// style sheet and font comes from this origin (see src/transactions/console/console.ts).
import { mountThemed } from '../shared/boot.tsx';
import '../shared/app/app.css';
import { BrowserRouter } from 'react-router';
import { App, startOpenedPage } from './app.tsx';
import { SessionProvider } from './session.tsx';

startOpenedPage(window.location);
mountThemed(
  'console',
  <BrowserRouter basename="/console">
    <SessionProvider>
      <App />
    </SessionProvider>
  </BrowserRouter>,
);
