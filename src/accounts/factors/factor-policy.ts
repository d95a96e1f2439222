import type { Queryable } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { Role } from '../roles.ts';
import { TENANT_TABLES } from '../tenant-tables.ts';

/**
 * The second factors a person may have, and a tenant's policy requiring one. Everything that asks "does this
 * person have a second factor" asks here ({@link FACTOR_KINDS_SQL}, {@link factorKindsOf}); every factor a reset
 * removes is removed here ({@link removeEveryFactor}): a new kind of factor is added in this one file.
 */

/** A kind of second factor: an authenticator app, a passkey (recovery codes only stand in for an app). */
export type FactorKind = 'authenticator' | 'passkey';

/**
 * The kinds of second factor the user whose id is the SQL expression `userId` has, as an SQL expression of a
 * `text[]` (empty when none): what the signed-in person's read joins in, and {@link factorKindsOf} answers.
 */
export function FACTOR_KINDS_SQL(userId: string): string {
  return `array_remove(array[
    case when exists (select 1 from authenticator_apps fa where fa.user_id = ${userId} and fa.confirmed_at is not null)
      then 'authenticator' end,
    case when exists (select 1 from passkeys fp where fp.user_id = ${userId}) then 'passkey' end
  ]::text[], null)`;
}

/** The kinds of second factor a person has (empty when none). */
export async function factorKindsOf(db: Queryable, userId: string): Promise<FactorKind[]> {
  const [row] = await db.query<{ kinds: FactorKind[] }>(`select ${FACTOR_KINDS_SQL('$1::uuid')} as kinds`, [
    userId,
  ]);
  return row?.kinds ?? [];
}

/**
 * Whether a person keeps a second factor once `removing` is gone: their authenticator app, or one passkey of
 * theirs by id (what a policy that requires one of them asks before either is removed).
 */
export async function keepsAFactorWithout(
  db: Queryable,
  userId: string,
  removing: { authenticator: true } | { passkeyId: string },
): Promise<boolean> {
  const [row] = await db.query<{ kept: boolean }>(
    `select exists (select 1 from authenticator_apps where user_id = $1 and confirmed_at is not null and not $2)
         or exists (select 1 from passkeys where user_id = $1 and id is distinct from $3::uuid) as kept`,
    [userId, 'authenticator' in removing, 'passkeyId' in removing ? removing.passkeyId : null],
  );
  return row?.kept ?? false;
}

/** Whether a person has any second factor. */
export async function hasSecondFactor(db: Queryable, userId: string): Promise<boolean> {
  return (await factorKindsOf(db, userId)).length > 0;
}

/**
 * Removes every second factor of a person (their authenticator app, confirmed or not, their recovery codes and
 * their passkeys); answers the kinds they had.
 */
export async function removeEveryFactor(db: Queryable, userId: string): Promise<FactorKind[]> {
  const had = await factorKindsOf(db, userId);
  await db.query('delete from authenticator_apps where user_id = $1', [userId]);
  await db.query('delete from recovery_codes where user_id = $1', [userId]);
  await db.query('delete from passkeys where user_id = $1', [userId]);
  return had;
}

/** Who must sign in with a second factor: nobody, everyone, or the people of some roles. */
export interface SecondFactorPolicy {
  required: 'nobody' | 'everyone' | 'roles';
  /** The roles required to, when `required` is `roles` (empty otherwise). */
  roles: Role[];
}

/**
 * The SQL expression (a boolean) of whether the policy of the tenant row `tenant` covers the role `role`
 * (both SQL expressions): what the signed-in person's read joins in, and {@link policyCovers} says in TypeScript.
 */
export function POLICY_COVERS_SQL(tenant: string, role: string): string {
  return `(${tenant}.second_factor_required = 'everyone'
    or (${tenant}.second_factor_required = 'roles' and ${role} = any(${tenant}.second_factor_roles)))`;
}

/** Whether a policy requires a second factor of a person of this role. */
export function policyCovers(policy: SecondFactorPolicy, role: Role): boolean {
  return policy.required === 'everyone' || (policy.required === 'roles' && policy.roles.includes(role));
}

/** A tenant, by kind and id. */
export interface PolicyTenant {
  kind: keyof typeof TENANT_TABLES;
  id: string;
}

/** A tenant's policy on second factors. */
export async function secondFactorPolicyOf(db: Queryable, tenant: PolicyTenant): Promise<SecondFactorPolicy> {
  const [row] = await db.query<SecondFactorPolicy>(
    `select second_factor_required as required, second_factor_roles as roles
     from ${TENANT_TABLES[tenant.kind].table} where id = $1`,
    [tenant.id],
  );
  if (!row) throw new Error(`no ${tenant.kind} ${tenant.id}`);
  return row;
}

/**
 * Sets a tenant's policy, given the roles it has (`known`): a role it does not have, or `roles` naming none, is
 * refused. Roles are kept only with `roles`, in the order `known` lists them. Answers the policy as set, and the
 * one before.
 */
export async function setSecondFactorPolicy(
  db: Queryable,
  tenant: PolicyTenant,
  policy: SecondFactorPolicy,
  known: readonly Role[],
): Promise<{ policy: SecondFactorPolicy; before: SecondFactorPolicy }> {
  const unknown = policy.roles.filter((role) => !known.includes(role));
  if (unknown.length > 0) {
    throw new AppError(
      'BAD_USER_INPUT',
      `There is no role "${unknown[0] ?? ''}" here: choose among ${known.join(', ')}.`,
      { field: 'roles' },
    );
  }
  if (policy.required === 'roles' && policy.roles.length === 0) {
    throw new AppError(
      'BAD_USER_INPUT',
      'Choose at least one role that must use two-step sign-in, or require it of nobody.',
      { field: 'roles' },
    );
  }
  const roles = policy.required === 'roles' ? known.filter((role) => policy.roles.includes(role)) : [];
  const [before] = await db.query<SecondFactorPolicy>(
    `with old as (select second_factor_required as required, second_factor_roles as roles
                  from ${TENANT_TABLES[tenant.kind].table} where id = $1 for update)
     update ${TENANT_TABLES[tenant.kind].table} t set second_factor_required = $2, second_factor_roles = $3
     from old where t.id = $1 returning old.required, old.roles`,
    [tenant.id, policy.required, roles],
  );
  if (!before) throw new Error(`no ${tenant.kind} ${tenant.id}`);
  return { policy: { required: policy.required, roles }, before };
}
