// The console's app, mounted into the page: its router, its session and its shell (app.tsx), in Portico's theme.
// Imported by the entry (main.tsx) once the opened page's first reads are on their way.
import { mountThemed } from '../shared/boot.tsx';
import '../shared/app/app.css';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

mountThemed(
  'console',
  <BrowserRouter basename="/console">
    <SessionProvider>
      <App />
    </SessionProvider>
  </BrowserRouter>,
);
