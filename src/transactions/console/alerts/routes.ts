import type { ContractRoute } from '../../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../../http/signed-in/surface.ts';
import type { ConsoleCaller, ConsoleDeps } from '../deps.ts';
import { alertsRoutes as contract } from './alerts-contract.ts';
import { alertsOf, saveAlerts } from './preferences.ts';

/** The signed-in person's own mail alerts: which they get (preferences.ts). Every role may manage theirs. */
export function registerAlertRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: Pick<ConsoleDeps, 'db'>,
): void {
  const { db } = deps;
  route(contract.readAlerts, (caller) => alertsOf(db, caller));
  route(contract.saveAlerts, (caller, { body }) => saveAlerts(db, caller, body.kinds));
}
