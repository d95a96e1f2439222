// The console's app, mounted into the page: its router, its session and its shell (app.tsx), in Portico's theme.
// The entry (main.tsx) imports it once the opened page's first reads are on their way, and mounts it: a function,
// not a side effect of loading, as this module shares its chunk with what the pages' chunks import.
import { mountThemed } from '../shared/boot.tsx';
import '../shared/app/app.css';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

/** Renders the console into `#console`. */
export function mountConsole(): void {
  mountThemed(
    'console',
    <BrowserRouter basename="/console">
      <SessionProvider>
        <App />
      </SessionProvider>
    </BrowserRouter>,
  );
}
