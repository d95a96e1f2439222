// The dashboard's app, mounted into the page: its router, its session and its pages (app.tsx), in Portico's
// theme. The entry (main.tsx) imports it once the opened page's first read is on its way, and mounts it: a
// function, not a side effect of loading, as this module shares its chunk with what the pages' chunks import.
import { mountThemed } from '../shared/boot.tsx';
import '../shared/app/app.css';
import './dashboard.css';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

/** Renders the dashboard into `#dashboard`. */
export function mountDashboard(): void {
  mountThemed(
    'dashboard',
    <BrowserRouter basename="/dashboard">
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>,
  );
}
