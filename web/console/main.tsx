// The organization console of the Transactions service, served by Portico itself at /console: every script,
// style sheet and font comes from this origin (see src/transactions/console/console.ts). The entry starts what
// the opened page reads first, then imports the app, whose script and style sheets the HTML already loads
// beside it (web/vite.config.ts, `preloadApp`).
import { importWhenParsed } from '../shared/app/early-reads.ts';
import { startOpenedPage } from './opened-page.ts';

startOpenedPage(window.location);
importWhenParsed(() => import('./mount.tsx'));
