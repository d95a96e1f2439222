import type { ContractRoute } from '../../http/contract-routes.ts';
import type { ConsoleCaller } from './caller.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleDeps } from './deps.ts';
import { teamActivityOf } from '../history/team-activity.ts';
import { deactivateMember, inviteToTeam, teamOf } from './team.ts';

/**
 * The team: who may sign in to the organization's console, invited and deactivated by admins (team.ts), and what
 * they did.
 */
export function registerTeamRoutes(route: ContractRoute<ConsoleCaller>, deps: ConsoleDeps): void {
  const { db } = deps;
  route('GET', '/team', contract.listTeam, (caller) => teamOf(db, caller));
  route('POST', '/team', contract.invite, (caller, { body }) => inviteToTeam(deps, caller, body));
  route('GET', '/team/activity', contract.teamActivity, async (caller, { query }) => ({
    entries: await teamActivityOf(db, {
      organizationId: caller.organization.id,
      userId: query.person,
      before: query.before === undefined ? undefined : new Date(query.before),
    }),
  }));
  route('POST', '/team/:id/deactivate', contract.deactivate, (caller, { params }) =>
    deactivateMember(db, caller, params.id),
  );
}
