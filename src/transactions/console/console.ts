import { DEFAULT_UPLOAD_MAX_BYTES } from '../recipients/uploads.ts';
import { registerPaperFormRoute } from './transaction/paper-form-route.ts';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_SESSION_LIMITS } from '../../accounts/sessions.ts';
import type { DrawnRoute } from '../../http/drawing/drawn-pages.ts';
import { registerSignedInSurface } from '../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleDeps } from './deps.ts';
import { CONSOLE_PATH } from './links.ts';
import { createLiveChanges } from './live.ts';
import { registerLiveRoute } from './live-route.ts';
import { createLiveStreams, HEARTBEAT_MS, STREAMS_PER_PERSON } from './live-streams.ts';
import { registerQueueRoutes } from './queue/routes.ts';
import { registerExportRoute } from './export/export-route.ts';
import { registerEvidenceRoutes } from './export/evidence-route.ts';
import { registerStartRoutes } from './start/routes.ts';
import { registerClosingRoutes } from './closings/routes.ts';
import { registerClosingListRoute } from './closings/list-route.ts';
import { registerTemplateRoutes } from './templates/routes.ts';
import { registerBulkRoutes } from './bulk/routes.ts';
import { PERMISSIONS } from './role-permissions.ts';
import { consolePages } from './team.ts';
import { registerTeamRoutes } from './team-routes.ts';
import { recordSsoJoin, registerConsoleSsoRoutes } from './sso-routes.ts';
import { registerTransactionRoutes } from './transaction/routes.ts';
import { registerAlertRoutes } from './alerts/routes.ts';
import { registerAlertStopRoute } from './alerts/stop-route.ts';

/**
 * The console's session cookie: sent to its page (which the server draws for the person) and its JSON routes, never
 * read by the page's scripts. Named anew when it moved from `/console/api` to `/console`: a cookie of the old path
 * would be sent first to the JSON routes, and shadow the new one.
 */
export const CONSOLE_SESSION_COOKIE = 'portico_console_sid';

/**
 * The console's pages the server draws for a signed-in person (http/drawing/drawn-pages.ts): a transaction's, the
 * heaviest to draw in a phone's browser, with the reads above its fold (web/console/opened-page.ts reads the same).
 */
export function drawnConsolePage(path: string): DrawnRoute | undefined {
  const opened = /^\/transactions\/([^/]+)\/?$/.exec(path)?.[1];
  if (opened === undefined || opened === 'new') return undefined;
  let id: string;
  try {
    id = encodeURIComponent(decodeURIComponent(opened));
  } catch {
    return undefined;
  }
  return {
    reads: [`/transactions/${id}`, `/transactions/${id}/workflow`, `/transactions/${id}/review`],
    module: 'pages/transaction/transaction-page.tsx',
  };
}

/**
 * The organization console on the Transactions service, a signed-in surface (http/signed-in/surface.ts): its
 * page under `/console` and its JSON routes under `/console/api`, each declaring the permission of
 * role-permissions.ts it needs (contract.ts); and its stream of live changes.
 */
export async function registerConsole(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { db } = deps;
  const sessionLimits = deps.sessionLimits ?? DEFAULT_SESSION_LIMITS;
  const live = createLiveChanges(db);
  app.addHook('onClose', () => live.close());
  const streams = createLiveStreams(db, {
    sessionLimits,
    log: app.log,
    heartbeatMs: deps.live?.heartbeatMs ?? HEARTBEAT_MS,
    streamsPerPerson: deps.live?.streamsPerPerson ?? STREAMS_PER_PERSON,
  });
  await registerAlertStopRoute(app, deps);
  await registerSignedInSurface(app, {
    name: 'console',
    kind: 'organization',
    page: {
      path: CONSOLE_PATH,
      title: 'The console',
      worksWithout: 'The API at /beta works without it.',
      distDir: deps.distDir,
      drawn: drawnConsolePage,
      drawer: deps.pageDrawer,
    },
    cookieName: CONSOLE_SESSION_COOKIE,
    sessionLimits,
    db,
    contract,
    permissions: PERMISSIONS,
    mail: consolePages(deps),
    sso: { publicUrl: deps.transactionsUrl, recordJoin: recordSsoJoin },
    // A change made here may have ended sessions (signing out, a new password, a deactivation): their streams
    // on this node end now, not at the next heartbeat. Other nodes' end at theirs.
    afterChange: () => {
      streams.checkNow();
    },
    routes: (route, api) => {
      registerTeamRoutes(route, deps);
      registerConsoleSsoRoutes(route, deps);
      registerTransactionRoutes(route, deps);
      registerQueueRoutes(route, deps);
      registerStartRoutes(route, deps);
      registerClosingRoutes(route, deps);
      registerAlertRoutes(route, deps);
      registerBulkRoutes(route, deps);
      registerClosingListRoute(api, { db, documentWorkers: deps.documentWorkers });
      registerTemplateRoutes(route, api, deps);
      registerLiveRoute(api, live, streams);
      registerExportRoute(api, deps);
      registerEvidenceRoutes(api, deps);
      registerPaperFormRoute(api, {
        db,
        files: deps.files,
        maxBytes: deps.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES,
      });
    },
  });
}
