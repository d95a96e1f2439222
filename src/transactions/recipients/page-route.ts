import type { FastifyInstance } from 'fastify';
import { pageContentSecurityPolicy, registerWebSurface } from '../../http/web-pages.ts';

/** Where the recipient portal is: `/r/<transmit token>`, the link the invitations mail. */
export const RECIPIENT_PAGE_PATH = '/r';

/**
 * The recipient portal on the Transactions service (`web/recipient/`), at `/r/<token>` and every step under it
 * (`/r/<token>/<process>/items/<item>`, `…/sign`, `…/submit`; the page routes on the client), its assets under
 * `/r/assets/`. It calls the recipient routes (`/recipient/<token>/…`, recipients/routes.ts) and frames their
 * PDF previews, so its policy allows frames of this origin; everything else is as strict as the other pages.
 *
 * @example
 * registerRecipientPage(app, { distDir: '/srv/portico/web/dist' });
 */
export function registerRecipientPage(
  app: FastifyInstance,
  options: { distDir?: string | undefined } = {},
): void {
  registerWebSurface(app, {
    surface: 'recipient',
    path: RECIPIENT_PAGE_PATH,
    contentSecurityPolicy: pageContentSecurityPolicy({ frames: true }),
    clientRoutes: true,
    title: 'The recipient portal',
    worksWithout:
      'Recipients can still be served through the recipient routes under /recipient/<token>, and the sender can fill in items through the API.',
    distDir: options.distDir,
  });
}
