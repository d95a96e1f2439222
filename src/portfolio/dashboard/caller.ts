import type { FastifyRequest } from 'fastify';
import type { DashboardRole } from '../../accounts/roles.ts';
import { signedInPart } from '../../accounts/sessions.ts';
import type { Queryable } from '../../db/database.ts';
import type { PortfolioInstance } from '../instances.ts';

/** The person behind a dashboard request, as the page shows them, and their instance. */
export interface DashboardCaller {
  user: { id: string; email: string; name: string; role: DashboardRole };
  instance: Pick<PortfolioInstance, 'id' | 'slug' | 'name'>;
}

/**
 * The signed-in person of a request's session, read afresh (a removed person or a changed role counts at
 * once), or undefined: no one signed in, the session is past its limits, or the person has left the instance.
 */
export async function signedInCaller(
  db: Queryable,
  request: FastifyRequest,
): Promise<DashboardCaller | undefined> {
  const signedIn = signedInPart(request.session);
  if (!signedIn) return undefined;
  const [row] = await db.query<
    DashboardCaller['user'] & { instanceId: string; slug: string; instanceName: string }
  >(
    `select u.id, u.email, u.name, u.role, i.id as "instanceId", i.slug, i.name as "instanceName"
     from users u join portfolio_instances i on i.id = u.instance_id
     where u.id = $1 and u.password_hash is not null and u.deactivated_at is null`,
    [signedIn.userId],
  );
  if (!row) return undefined;
  const { instanceId, slug, instanceName, ...user } = row;
  return { user, instance: { id: instanceId, slug, name: instanceName } };
}

/** A caller as the JSON routes show it: no instance id (the page names instances by slug). */
export function publicCaller(caller: DashboardCaller | undefined): {
  user: DashboardCaller['user'] | null;
  instance: { slug: string; name: string } | null;
} {
  if (!caller) return { user: null, instance: null };
  return { user: caller.user, instance: { slug: caller.instance.slug, name: caller.instance.name } };
}
