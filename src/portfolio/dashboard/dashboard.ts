import type { FastifyInstance } from 'fastify';
import { wrongInstance } from '../../errors.ts';
import type { DrawnRoute } from '../../http/drawing/drawn-pages.ts';
import { registerSignedInSurface } from '../../http/signed-in/surface.ts';
import { dashboardPages } from '../people.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardDeps } from './deps.ts';
import { registerInstanceRoutes } from './instance-routes.ts';
import { DASHBOARD_PATH } from './links.ts';
import { PERMISSIONS } from './role-permissions.ts';
import { registerDashboardSsoRoutes } from './sso-routes.ts';

/** Where the dashboard's JSON routes are. */
export const DASHBOARD_API_PATH = `${DASHBOARD_PATH}/api`;

/**
 * The dashboard's pages the server draws for a signed-in person (http/drawing/drawn-pages.ts): a company's, with
 * its charts the heaviest to draw in a phone's browser, and its one read (web/dashboard/opened-page.ts reads the
 * same). The charts are drawn after the first paint, in their reserved room.
 */
export function drawnDashboardPage(path: string): DrawnRoute | undefined {
  const [, slug, id] = /^\/([^/]+)\/companies\/([^/]+)\/?$/.exec(path) ?? [];
  if (slug === undefined || id === undefined) return undefined;
  try {
    const param = (value: string) => encodeURIComponent(decodeURIComponent(value));
    return { reads: [`/instances/${param(slug)}/companies/${param(id)}`], module: 'pages/company.tsx' };
  } catch {
    return undefined;
  }
}

/**
 * The session cookie: sent to the page (which the server draws for the person) and the JSON routes, never read by
 * the page's scripts. Named anew when it moved from `/dashboard/api` to `/dashboard`: a cookie of the old path
 * would be sent first to the JSON routes, and shadow the new one.
 */
export const SESSION_COOKIE = 'portico_dashboard_sid';

/**
 * The customer dashboard on the Portfolio service, a signed-in surface (http/signed-in/surface.ts): its page
 * under `/dashboard` and its JSON routes under `/dashboard/api`. A person signs in to one customer instance,
 * choosing it by slug when their address and password open several; an instance's routes, under
 * `/instances/:slug/`, answer only the people of that instance (WRONG_INSTANCE otherwise, alike whether or not
 * the slug exists).
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  await registerSignedInSurface(app, {
    name: 'dashboard',
    kind: 'instance',
    page: {
      path: DASHBOARD_PATH,
      title: 'The dashboard',
      worksWithout: 'The API at /v1/external works without it.',
      distDir: deps.distDir,
      drawn: drawnDashboardPage,
      drawer: deps.pageDrawer,
    },
    cookieName: SESSION_COOKIE,
    sessionLimits: deps.sessionLimits,
    db: deps.db,
    contract,
    permissions: PERMISSIONS,
    mail: dashboardPages(deps.mail),
    tenantInPath: {
      param: 'slug',
      refusal: ({ instance }) => wrongInstance(instance.name),
    },
    sso: { publicUrl: () => deps.mail.portfolioUrl },
    routes: (route) => {
      registerInstanceRoutes(route, deps);
      registerDashboardSsoRoutes(route, deps);
    },
  });
}
