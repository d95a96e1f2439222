import { secondFactorPolicyOf } from '../../accounts/factors/factor-policy.ts';
import { endSessionsOfColleague } from '../../accounts/session-list.ts';
import type { ContractRoute } from '../../http/contract-routes.ts';
import type { SignedInRouteContract } from '../../http/signed-in/surface.ts';
import { consoleRoutes as contract } from './contract.ts';
import type { ConsoleCaller, ConsoleDeps } from './deps.ts';
import { clientDateTime } from '../../validation/date-time.ts';
import { recordTeamChange, teamActivityOf } from '../history/team-activity.ts';
import {
  changeMemberRole,
  deactivateMember,
  inviteToTeam,
  reactivateMember,
  resendTeamInvitation,
  teamOf,
} from './team.ts';
import { resetMemberFactors, setTeamFactorPolicy } from './team-factors.ts';

/**
 * The team: who may sign in to the organization's console, invited, given roles, deactivated and reactivated by
 * admins (team.ts), and what they did.
 */
export function registerTeamRoutes(
  route: ContractRoute<ConsoleCaller, SignedInRouteContract>,
  deps: ConsoleDeps,
): void {
  const { db } = deps;
  route(contract.listTeam, (caller) => teamOf(db, caller));
  route(contract.invite, (caller, { body }, request) =>
    inviteToTeam(deps, caller, { ...body, requestId: request.id }),
  );
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
  route(contract.deactivate, (caller, { params }, request) =>
    deactivateMember(db, caller, { id: params.id, requestId: request.id }),
  );
  route(contract.endMemberSessions, async (caller, { params }, request) => {
    const sessionsEnded = await endSessionsOfColleague(
      db,
      { kind: 'organization', id: caller.organization.id },
      params.id,
    );
    await recordTeamChange(db, {
      organizationId: caller.organization.id,
      userId: params.id,
      actorId: caller.user.id,
      action: 'sessions_ended',
      details: { sessionsEnded },
      requestId: request.id,
    });
    return { sessionsEnded };
  });
  route(contract.resetMemberFactors, async (caller, { params }, request) => {
    const reset = await resetMemberFactors(deps, {
      organization: caller.organization,
      person: { id: params.id },
      by: caller.user,
      requestId: request.id,
    });
    if (!reset.mail)
      request.log.error({ userId: params.id }, 'the mail of a reset of factors could not be sent');
    return { sessionsEnded: reset.sessionsEnded, mailed: reset.mail !== null };
  });
  route(contract.secondFactorPolicy, async (caller) => ({
    policy: await secondFactorPolicyOf(db, { kind: 'organization', id: caller.organization.id }),
  }));
  route(contract.setSecondFactorPolicy, (caller, { body }, request) =>
    setTeamFactorPolicy(db, {
      organizationId: caller.organization.id,
      actorId: caller.user.id,
      policy: body,
      requestId: request.id,
    }),
  );
  route(contract.changeRole, (caller, { params, body }, request) =>
    changeMemberRole(db, caller, { id: params.id, role: body.role, requestId: request.id }),
  );
  route(contract.reactivate, (caller, { params }, request) =>
    reactivateMember(db, caller, { id: params.id, requestId: request.id }),
  );
  route(contract.resendInvitation, (caller, { params }, request) =>
    resendTeamInvitation(deps, caller, { id: params.id, requestId: request.id }),
  );
}
