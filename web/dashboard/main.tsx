// The customer dashboard of the Portfolio service, served by Portico itself at /dashboard: every script, style
// sheet and font comes from this origin (see src/portfolio/dashboard/dashboard.ts). The entry starts what the
// opened page reads first, then imports the app, whose script and style sheets the HTML already loads beside it
// (web/vite.config.ts, `preloadApp`).
import { importWhenParsed } from '../shared/app/early-reads.ts';
import { startOpenedPage } from './opened-page.ts';

startOpenedPage(window.location);
importWhenParsed(() => import('./mount.tsx'));
