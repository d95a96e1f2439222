import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';
import { registerAccountRoutes } from '../../http/account-routes.ts';
import { browserSession } from '../../http/browser-session.ts';
import { contractRoutes } from '../../http/contract-routes.ts';
import { pageContentSecurityPolicy, registerWebSurface } from '../../http/web-pages.ts';
import { publicConsoleCaller, signedInConsoleCaller, type ConsoleCaller } from './caller.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleDeps } from './deps.ts';
import { signedInToConsole } from './signed-in-guard.ts';
import { CONSOLE_API_PATH, CONSOLE_PATH } from './links.ts';
import { consolePages } from './team.ts';
import { registerTeamRoutes } from './team-routes.ts';
import { registerQueueRoutes } from './queue/routes.ts';
import { registerTransactionRoutes } from './transaction/routes.ts';
import { createLiveChanges } from './live.ts';
import { registerLiveRoute } from './live-route.ts';
import { createLiveStreams, HEARTBEAT_MS, STREAMS_PER_PERSON } from './live-streams.ts';

/** The console's session cookie: sent only to its JSON routes, never read by the page's scripts. */
export const CONSOLE_SESSION_COOKIE = 'portico_console_session';

/**
 * The organization console on the Transactions service: its page under `/console` (every path without a dot, as
 * it routes on the client) and its JSON routes under `/console/api`, which take a server-side session and a
 * CSRF token on every request that changes something (`browserSession`, http/browser-session.ts), and a role
 * that allows what a route does (permissions.ts).
 */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { db } = deps;
  const live = createLiveChanges(db);
  app.addHook('onClose', () => live.close());
  const streams = createLiveStreams(db, {
    log: app.log,
    heartbeatMs: deps.live?.heartbeatMs ?? HEARTBEAT_MS,
    streamsPerPerson: deps.live?.streamsPerPerson ?? STREAMS_PER_PERSON,
  });
  registerWebSurface(app, {
    surface: 'console',
    path: CONSOLE_PATH,
    contentSecurityPolicy: pageContentSecurityPolicy(),
    clientRoutes: true,
    title: 'The console',
    worksWithout: 'The API at /beta works without it.',
    distDir: deps.distDir,
  });

  await app.register(
    async (api) => {
      await api.register(browserSession, {
        db,
        secretName: 'console_session_cookies',
        cookieName: CONSOLE_SESSION_COOKIE,
        path: CONSOLE_API_PATH,
      });
      // A change made here may have ended sessions (signing out, a new password, a deactivation): their streams
      // on this node end now, not at the next heartbeat. Other nodes' end at theirs.
      api.addHook('onResponse', (request, reply, done) => {
        if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) {
          streams.checkNow();
        }
        done();
      });
      registerAccountRoutes(api, {
        db,
        pages: consolePages(deps),
        name: 'console',
        contract,
        signedInAnswer: async (request) => {
          const caller = await signedInConsoleCaller(db, request);
          return caller && publicConsoleCaller(caller);
        },
        signedOutAnswer: publicConsoleCaller(undefined),
        chosenTenant: (body) => (typeof body.organization === 'string' ? body.organization : undefined),
        choiceRequired: (choices) =>
          new AppError(
            'ORGANIZATION_CHOICE_REQUIRED',
            'This address and password open several organizations: choose one.',
            { organizations: choices },
          ),
      });

      api.decorateRequest('consoleCaller', null);
      const callerOf = (request: FastifyRequest): ConsoleCaller => {
        if (!request.consoleCaller) throw new Error('a console route ran without its caller');
        return request.consoleCaller;
      };
      void api.register((routes, _options, done) => {
        routes.addHook('preHandler', signedInToConsole(db));
        const route = contractRoutes(routes, callerOf);
        registerTeamRoutes(route, deps);
        registerTransactionRoutes(route, deps);
        registerQueueRoutes(route, deps);
        registerLiveRoute(routes, live, streams, callerOf);
        done();
      });
    },
    { prefix: CONSOLE_API_PATH },
  );
}
