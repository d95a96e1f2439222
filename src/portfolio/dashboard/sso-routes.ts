import { readConnection, removeConnection, saveConnection } from '../../accounts/sso/connections.ts';
import type { ContractRoute } from '../../http/contract-routes.ts';
import { ssoCallbackUrl } from '../../http/signed-in/sso-routes.ts';
import type { SignedInRouteContract } from '../../http/signed-in/surface.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardCaller, DashboardDeps } from './deps.ts';
import { DASHBOARD_PATH } from './links.ts';

/** The dashboard's single sign-on callback URL, which an admin registers with the identity provider. */
export const dashboardSsoCallbackUrl = (deps: Pick<DashboardDeps, 'mail'>) =>
  ssoCallbackUrl(deps.mail.portfolioUrl, `${DASHBOARD_PATH}/api`);

/**
 * The instance's single sign-on, set by its admins under `/instances/:slug/sso` (accounts/sso/connections.ts):
 * read, connected or changed (once its issuer answered), and removed.
 */
export function registerDashboardSsoRoutes(
  route: ContractRoute<DashboardCaller, SignedInRouteContract>,
  deps: DashboardDeps,
): void {
  const { db } = deps;
  const tenantOf = (caller: DashboardCaller) => ({ kind: 'instance' as const, id: caller.instance.id });
  route(contract.ssoConnection, async (caller) => ({
    connection: await readConnection(db, tenantOf(caller)),
    callbackUrl: dashboardSsoCallbackUrl(deps),
  }));
  route(contract.saveSsoConnection, async (caller, { body }) => ({
    connection: await saveConnection(db, { tenant: tenantOf(caller), settings: body }),
    callbackUrl: dashboardSsoCallbackUrl(deps),
  }));
  route(contract.removeSsoConnection, async (caller) => {
    await removeConnection(db, { tenant: tenantOf(caller) });
    return {};
  });
}
