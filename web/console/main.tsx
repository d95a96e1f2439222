// The organization console of the Transactions service, served by Portico itself at /console: every script,
// style sheet and font comes from this origin (see src/transactions/console/console.ts). The entry starts what
// the opened page reads first, then imports the app, whose script and style sheets the HTML already loads
// beside it (web/vite.config.ts, `preloadApp`). On a page the server drew, it takes the answers the page was
// drawn with, and mounts the app over the page once it can render the same page at once: with the session and
// the page's chunk at hand.
import { startSurface } from '../shared/app/drawn-page.ts';
import { startOpenedPage } from './opened-page.ts';

startSurface('console', startOpenedPage, async () => (await import('./mount.tsx')).mountConsole);
