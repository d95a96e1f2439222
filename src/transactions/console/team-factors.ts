import { resetFactors, type ResetBy } from '../../accounts/factors/factor-reset.ts';
import { setSecondFactorPolicy, type SecondFactorPolicy } from '../../accounts/factors/factor-policy.ts';
import { CONSOLE_ROLES } from '../../accounts/roles.ts';
import type { Database } from '../../db/database.ts';
import { recordTeamChange } from '../history/team-activity.ts';
import type { ConsoleDeps } from './deps.ts';
import { consolePages } from './team.ts';

/**
 * Sets who must sign in to the organization's console with a second factor, by an admin (`actorId`), recorded in
 * the team's activity (`factor_policy_changed`, the policies before and after) in the same database transaction.
 */
export async function setTeamFactorPolicy(
  db: Database,
  options: { organizationId: string; actorId: string; policy: SecondFactorPolicy; requestId?: string },
): Promise<{ policy: SecondFactorPolicy }> {
  return db.transaction(async (tx) => {
    const { policy, before } = await setSecondFactorPolicy(
      tx,
      { kind: 'organization', id: options.organizationId },
      options.policy,
      CONSOLE_ROLES,
    );
    await recordTeamChange(tx, {
      organizationId: options.organizationId,
      userId: null,
      actorId: options.actorId,
      action: 'factor_policy_changed',
      details: { from: before, to: policy },
      requestId: options.requestId,
    });
    return { policy };
  });
}

/**
 * Resets the second factors of a person of the organization, named by id (an admin, from the team page) or by
 * address (the operator's `portico org users reset-factors`): see accounts/factors/factor-reset.ts. Recorded in
 * the team's activity (`factors_reset`) in the reset's database transaction, by the admin or by the operator.
 */
export async function resetMemberFactors(
  deps: Pick<ConsoleDeps, 'db' | 'mailer' | 'transactionsUrl'>,
  options: {
    organization: { id: string; name: string };
    person: { id: string } | { email: string };
    by: ResetBy;
    requestId?: string | undefined;
  },
) {
  const { organization, by } = options;
  return resetFactors(deps.db, consolePages(deps), {
    tenant: organization,
    person: options.person,
    by,
    requestId: options.requestId,
    record: (tx, person, done) =>
      recordTeamChange(tx, {
        organizationId: organization.id,
        userId: person.id,
        actorId: by === 'operator' ? null : by.id,
        action: 'factors_reset',
        details: done,
        requestId: options.requestId,
      }),
  });
}
