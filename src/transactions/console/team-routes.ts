import type { ContractRoute } from '../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleCaller, ConsoleDeps } from './deps.ts';
import { clientDateTime } from '../../validation/date-time.ts';
import { teamActivityOf } from '../history/team-activity.ts';
import { deactivateMember, inviteToTeam, teamOf } from './team.ts';

/**
 * The team: who may sign in to the organization's console, invited and deactivated by admins (team.ts), and what
 * they did.
 */
export function registerTeamRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  route(contract.listTeam, (caller) => teamOf(db, caller));
  route(contract.invite, (caller, { body }) => inviteToTeam(deps, caller, body));
  route(contract.teamActivity, async (caller, { query }) => ({
    entries: await teamActivityOf(db, {
      organizationId: caller.organization.id,
      userId: query.person,
      // The date-time format admits a leap second and year 0000, which no query takes.
      before:
        query.before === undefined
          ? undefined
          : clientDateTime(query.before, { name: 'before', part: 'query parameter' }),
    }),
  }));
  route(contract.deactivate, (caller, { params }) => deactivateMember(db, caller, params.id));
}
