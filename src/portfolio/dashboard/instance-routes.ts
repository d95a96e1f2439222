import { resetFactors } from '../../accounts/factors/factor-reset.ts';
import { secondFactorPolicyOf, setSecondFactorPolicy } from '../../accounts/factors/factor-policy.ts';
import { DASHBOARD_ROLES } from '../../accounts/roles.ts';
import { endSessionsOfColleague } from '../../accounts/session-list.ts';
import { dashboardPages } from '../people.ts';
import type { ContractRoute } from '../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../http/signed-in/surface.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardCaller, DashboardDeps } from './deps.ts';
import {
  changeRoleOf,
  companiesPage,
  companyOf,
  fundsOf,
  generateKey,
  invite,
  keysOf,
  peopleOf,
  removePerson,
  resendInvitation,
  revokeKey,
} from './instance-actions.ts';

/**
 * The routes of one instance's data, under `/instances/:slug/`: its API keys, its people and its portfolio, as
 * contract.ts declares them (who may call each included). Each calls one action of instance-actions.ts.
 */
export function registerInstanceRoutes(
  route: ContractRoute<DashboardCaller, SignedInRouteContract>,
  deps: DashboardDeps,
): void {
  const { db } = deps;
  route(contract.listKeys, (caller) => keysOf(db, caller));
  route(contract.createKey, (caller, { body }) => generateKey(db, caller, body.name));
  route(contract.revokeKey, (caller, { params }) => revokeKey(db, caller, params.id));
  route(contract.listPeople, (caller) => peopleOf(db, caller));
  route(contract.invitePerson, (caller, { body }) => invite(deps, caller, body));
  route(contract.removePerson, (caller, { params }) => removePerson(db, caller, params.id));
  route(contract.endPersonSessions, async (caller, { params }) => ({
    sessionsEnded: await endSessionsOfColleague(db, { kind: 'instance', id: caller.instance.id }, params.id),
  }));
  route(contract.resetPersonFactors, async (caller, { params }, request) => {
    const reset = await resetFactors(db, dashboardPages(deps.mail), {
      tenant: caller.instance,
      person: { id: params.id },
      by: caller.user,
      requestId: request.id,
    });
    if (!reset.mail)
      request.log.error({ userId: params.id }, 'the mail of a reset of factors could not be sent');
    return { sessionsEnded: reset.sessionsEnded, mailed: reset.mail !== null };
  });
  route(contract.secondFactorPolicy, async (caller) => ({
    policy: await secondFactorPolicyOf(db, { kind: 'instance', id: caller.instance.id }),
  }));
  route(contract.setSecondFactorPolicy, async (caller, { body }) => {
    const { policy } = await setSecondFactorPolicy(
      db,
      { kind: 'instance', id: caller.instance.id },
      body,
      DASHBOARD_ROLES,
    );
    return { policy };
  });
  route(contract.changePersonRole, (caller, { params, body }) =>
    changeRoleOf(db, caller, { id: params.id, role: body.role }),
  );
  route(contract.resendInvitation, (caller, { params }) => resendInvitation(deps, caller, params.id));
  route(contract.listFunds, (caller) => fundsOf(db, caller));
  route(contract.searchCompanies, (caller, { query }) => companiesPage(db, caller, query));
  route(contract.readCompany, (caller, { params }) => companyOf(deps, caller, params.id));
}
