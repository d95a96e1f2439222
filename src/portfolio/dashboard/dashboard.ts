import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifySession from '@fastify/session';
import type { FastifyInstance } from 'fastify';
import { SESSION_IDLE_MS } from '../../accounts/sessions.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { databaseSessionStore } from '../../http/session-store.ts';
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
 * routes on the client) and its JSON routes under `/dashboard/api`, which take a server-side session
 * (@fastify/session on `user_sessions`, cookie HttpOnly, Secure, SameSite=Strict, 2 hours idle, 12 hours at
 * most) and a CSRF token (@fastify/csrf-protection) on every request that changes something.
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

  const secret = (await loadInstanceSecret(deps.db, 'dashboard_session_cookies')).toString('base64url');
  await app.register(
    async (api) => {
      await api.register(fastifyCookie);
      await api.register(fastifySession, {
        secret,
        cookieName: SESSION_COOKIE,
        store: databaseSessionStore(deps.db),
        // Only a session that holds something (a CSRF secret, a user) is stored.
        saveUninitialized: false,
        rolling: true,
        cookie: {
          path: DASHBOARD_API_PATH,
          httpOnly: true,
          secure: true,
          sameSite: 'strict',
          maxAge: SESSION_IDLE_MS,
        },
      });
      await api.register(fastifyCsrfProtection, {
        sessionPlugin: '@fastify/session',
        getToken: (request) => {
          const token = request.headers['x-csrf-token'];
          return typeof token === 'string' ? token : undefined;
        },
      });
      api.addHook('onRequest', (request, reply, done) => {
        if (request.method === 'GET' || request.method === 'HEAD') done();
        else api.csrfProtection(request, reply, done);
      });
      registerSessionRoutes(api, deps);
      registerInstanceRoutes(api, deps);
    },
    { prefix: DASHBOARD_API_PATH },
  );
}
