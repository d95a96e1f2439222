// The dashboard's app, mounted into the page: its router, its session and its pages (app.tsx), in Portico's
// theme. Imported by the entry (main.tsx) once the opened page's first read is on its way.
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
