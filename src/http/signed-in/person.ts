import type { FastifyRequest } from 'fastify';
import type { ConsoleRole, DashboardRole } from '../../accounts/roles.ts';
import { FACTOR_KINDS_SQL, POLICY_COVERS_SQL } from '../../accounts/factors/factor-policy.ts';
import { signedInPart, type SessionLimits } from '../../accounts/sessions.ts';
import { TENANT_TABLES } from '../../accounts/tenant-tables.ts';
import type { Queryable } from '../../db/database.ts';

/** The kinds of tenant people sign in to: a Portfolio instance (the dashboard), an organization (the console). */
export type TenantKind = keyof typeof TENANT_TABLES;

/** The roles of each kind of tenant. */
interface RolesOf {
  instance: DashboardRole;
  organization: ConsoleRole;
}

/** A tenant as a signed-in person's pages know it: its id, its handle (an instance's slug), its name. */
export interface Tenant {
  id: string;
  handle: string;
  name: string;
}

/**
 * A signed-in person and their tenant, under the tenant's own name: `{ user, organization }` in the console,
 * `{ user, instance }` in the dashboard.
 */
export type SignedInPerson<Kind extends TenantKind> = {
  readonly user: { id: string; email: string; name: string; role: RolesOf[Kind] };
  /**
   * Whether their tenant's policy requires a second factor of their role (`required`), and whether they have one
   * (`present`), as read with them (accounts/factors/factor-policy.ts).
   */
  readonly secondFactor?: { required: boolean; present: boolean };
} & { readonly [K in Kind]: Tenant };

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a signed-in surface's route, once the kit's guard read them (surface.ts). */
    signedInPerson: { user: { role: string } } | null;
  }
}

/**
 * The signed-in person of a session, read afresh (a deactivated person or a changed role counts at once), or
 * undefined: no one signed in, the session is past its limits, or the person has left their tenant. Their
 * tenant's policy requires a second factor of them unless the session began through single sign-on (their
 * identity provider's factors apply).
 */
export async function readSignedInPerson<Kind extends TenantKind>(
  db: Queryable,
  kind: Kind,
  session: { userId?: unknown; signedInAt?: unknown; signedInThrough?: unknown },
  limits: SessionLimits,
): Promise<SignedInPerson<Kind> | undefined> {
  const signedIn = signedInPart(session, limits);
  if (!signedIn) return undefined;
  const tenants = TENANT_TABLES[kind];
  const [row] = await db.query<
    SignedInPerson<Kind>['user'] & { tenant: Tenant; factorRequired: boolean; factorPresent: boolean }
  >(
    `select u.id, u.email, u.name, u.role,
            json_build_object('id', t.id, 'handle', t.${tenants.handle}, 'name', t.name) as tenant,
            ${POLICY_COVERS_SQL('t', 'u.role')} as "factorRequired",
            cardinality(${FACTOR_KINDS_SQL('u.id')}) > 0 as "factorPresent"
     from users u join ${tenants.table} t on t.id = u.${tenants.column}
     where u.id = $1 and u.password_hash is not null and u.deactivated_at is null`,
    [signedIn.userId],
  );
  if (!row) return undefined;
  const { tenant, factorRequired, factorPresent, ...user } = row;
  const secondFactor = {
    required: factorRequired && session.signedInThrough !== 'sso',
    present: factorPresent,
  };
  return { user, [kind]: tenant, secondFactor } as unknown as SignedInPerson<Kind>;
}

/** A signed-in person's tenant, whatever its kind. */
export function tenantOf<Kind extends TenantKind>(person: SignedInPerson<Kind>, kind: Kind): Tenant {
  return (person as unknown as Record<Kind, Tenant>)[kind];
}

/**
 * Who is calling a route of a signed-in surface, and for which tenant, as its guard read them before the route
 * ran. Throws when it did not: a route that reads a person must be declared with more than `public` access.
 *
 * @example
 * const caller = signedInPerson(request, 'organization'); // { user, organization }
 */
export function signedInPerson<Kind extends TenantKind>(
  request: FastifyRequest,
  kind: Kind,
): SignedInPerson<Kind> {
  const person = request.signedInPerson;
  if (!person || !(kind in person))
    throw new Error(`a route of the ${kind}'s surface ran without its person`);
  return person as unknown as SignedInPerson<Kind>;
}

/**
 * A person as a surface's session answer shows them: the user, and the tenant by handle and name under the
 * tenant's own words (`{ instance: { slug, name } }`, `{ organization: { handle, name } }`); nulls when no one is
 * signed in. No tenant id: the pages name tenants by handle. `secondFactorRequired`: the person must add a second
 * factor before anything else (see {@link secondFactorDue}).
 */
export function publicPerson<Kind extends TenantKind>(
  kind: Kind,
  person: SignedInPerson<Kind> | undefined,
): Record<string, unknown> {
  if (!person) return { user: null, [kind]: null, secondFactorRequired: false };
  const { handle, name } = tenantOf(person, kind);
  return {
    user: person.user,
    [kind]: { [TENANT_TABLES[kind].handle]: handle, name },
    secondFactorRequired: secondFactorDue(person),
  };
}

/**
 * Whether a signed-in person must add a second factor before anything else: their tenant requires one of their
 * role, and they have none.
 */
export function secondFactorDue(person: Pick<SignedInPerson<TenantKind>, 'secondFactor'>): boolean {
  return person.secondFactor !== undefined && person.secondFactor.required && !person.secondFactor.present;
}
