import type { FastifyInstance } from 'fastify';
import { browserSession } from '../../http/browser-session.ts';
import { pageContentSecurityPolicy, registerWebSurface } from '../../http/web-pages.ts';
import { DASHBOARD_PATH } from './links.ts';
import type { DashboardDeps } from './deps.ts';
import { registerInstanceRoutes } from './instance-routes.ts';
import { registerSessionRoutes } from './session-routes.ts';

/** Where the dashboard's JSON routes are. */
export const DASHBOARD_API_PATH = `${DASHBOARD_PATH}/api`;

/** The session cookie: sent only to the JSON routes, never read by the page's scripts. */
export const SESSION_COOKIE = 'portico_session';

/** What the dashboard page may load: see `pageContentSecurityPolicy`. */
export const DASHBOARD_CONTENT_SECURITY_POLICY = pageContentSecurityPolicy();

/**
 * The customer dashboard on the Portfolio service: its page under `/dashboard` (every path without a dot, as it
 * routes on the client) and its JSON routes under `/dashboard/api`, which take a server-side session and a CSRF
 * token on every request that changes something (`browserSession`, http/browser-session.ts; 2 hours idle, 12
 * hours at most).
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  registerWebSurface(app, {
    surface: 'dashboard',
    path: DASHBOARD_PATH,
    contentSecurityPolicy: DASHBOARD_CONTENT_SECURITY_POLICY,
    clientRoutes: true,
    title: 'The dashboard',
    worksWithout: 'The API at /v1/external works without it.',
    distDir: deps.distDir,
  });

  await app.register(
    async (api) => {
      await api.register(browserSession, {
        db: deps.db,
        secretName: 'dashboard_session_cookies',
        cookieName: SESSION_COOKIE,
        path: DASHBOARD_API_PATH,
      });
      registerSessionRoutes(api, deps);
      registerInstanceRoutes(api, deps);
    },
    { prefix: DASHBOARD_API_PATH },
  );
}
