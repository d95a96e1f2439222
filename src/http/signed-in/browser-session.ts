import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifySession from '@fastify/session';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { SessionLimits } from '../../accounts/sessions.ts';
import type { Database } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { databaseSessionStore } from './session-store.ts';

export interface BrowserSessionOptions {
  db: Database;
  /** The instance secret that signs the session cookie (`instance_secrets`), one per surface. */
  secretName: string;
  cookieName: string;
  /** The path the cookie is sent to: the surface's page (drawn for the person) and its JSON routes. */
  path: string;
  /** How long its sessions last idle, and at most after signing in. */
  limits: SessionLimits;
}

/**
 * The sessions of people signed in to a page, and CSRF protection for what they change, as one Fastify plugin
 * for the routes registered beside it: a server-side session (@fastify/session on `user_sessions`, the cookie
 * HttpOnly, Secure, SameSite=Strict, sent only under `path`, expiring after the idle limit) and a CSRF token (@fastify/csrf-protection,
 * read from `X-CSRF-Token`) on every request other than GET and HEAD. The customer dashboard uses it; the
 * organization console will.
 *
 * @example
 * await api.register(browserSession, { db, secretName: 'dashboard_session_cookies', cookieName, path });
 */
export const browserSession = fastifyPlugin(
  async (api: FastifyInstance, options: BrowserSessionOptions) => {
    const secret = (await loadInstanceSecret(options.db, options.secretName)).toString('base64url');
    await api.register(fastifyCookie);
    await api.register(fastifySession, {
      secret,
      cookieName: options.cookieName,
      store: databaseSessionStore(options.db, options.limits),
      // Only a session that holds something (a CSRF secret, a user) is stored.
      saveUninitialized: false,
      rolling: true,
      cookie: {
        path: options.path,
        httpOnly: true,
        secure: true,
        sameSite: 'strict',
        maxAge: options.limits.idleMs,
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
  },
  { name: 'portico-browser-session', fastify: '5.x' },
);
