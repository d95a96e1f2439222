import { readConnection, removeConnection, saveConnection } from '../../accounts/sso/connections.ts';
import type { RecordJoin } from '../../accounts/sso/sso-people.ts';
import type { Queryable } from '../../db/database.ts';
import type { ContractRoute } from '../../http/contract-routes.ts';
import { ssoCallbackUrl } from '../../http/signed-in/sso-routes.ts';
import type { SignedInRouteContract } from '../../http/signed-in/surface.ts';
import { recordTeamChange, type TeamChange } from '../history/team-activity.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleCaller, ConsoleDeps } from './deps.ts';
import { CONSOLE_PATH } from './links.ts';

/** The console's single sign-on callback URL, which an admin registers with the identity provider. */
export const consoleSsoCallbackUrl = (deps: Pick<ConsoleDeps, 'transactionsUrl'>) =>
  ssoCallbackUrl(deps.transactionsUrl(), `${CONSOLE_PATH}/api`);

/** An account made at a single sign-on, in the team's activity: the person joined, as the connection's role. */
export const recordSsoJoin: RecordJoin = (tx, { tenantId, user }) =>
  recordTeamChange(tx, {
    organizationId: tenantId,
    userId: user.id,
    actorId: user.id,
    action: 'sso_joined',
    details: { role: user.role },
  });

/**
 * The organization's single sign-on, set by its admins (accounts/sso/connections.ts): read, connected or changed
 * (once its issuer answered), and removed; each change in the team's activity.
 */
export function registerConsoleSsoRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  const tenantOf = (caller: ConsoleCaller) => ({ kind: 'organization' as const, id: caller.organization.id });
  const recorded =
    (caller: ConsoleCaller, action: TeamChange, requestId: string, details?: Record<string, unknown>) =>
    (tx: Queryable) =>
      recordTeamChange(tx, {
        organizationId: caller.organization.id,
        userId: caller.user.id,
        actorId: caller.user.id,
        action,
        details,
        requestId,
      });
  route(contract.ssoConnection, async (caller) => ({
    connection: await readConnection(db, tenantOf(caller)),
    callbackUrl: consoleSsoCallbackUrl(deps),
  }));
  route(contract.saveSsoConnection, async (caller, { body }, request) => ({
    connection: await saveConnection(db, {
      tenant: tenantOf(caller),
      settings: body,
      record: recorded(caller, 'sso_configured', request.id, {
        issuer: body.issuer.trim(),
        domains: body.domains,
        ssoOnly: body.ssoOnly,
      }),
    }),
    callbackUrl: consoleSsoCallbackUrl(deps),
  }));
  route(contract.removeSsoConnection, async (caller, _input, request) => {
    await removeConnection(db, {
      tenant: tenantOf(caller),
      record: recorded(caller, 'sso_removed', request.id),
    });
    return {};
  });
}
