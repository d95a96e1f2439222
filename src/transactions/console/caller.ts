import type { FastifyRequest } from 'fastify';
import type { ConsoleRole } from '../../accounts/roles.ts';
import { signedInPart } from '../../accounts/sessions.ts';
import type { Queryable } from '../../db/database.ts';

/** The person behind a console request, and their organization. */
export interface ConsoleCaller {
  user: { id: string; email: string; name: string; role: ConsoleRole };
  organization: { id: string; handle: string; name: string };
}

/**
 * The signed-in person of a request's session, read afresh (a deactivated person or a changed role counts at
 * once), or undefined: no one signed in, the session is past its limits, or the person was deactivated.
 */
export async function signedInConsoleCaller(
  db: Queryable,
  request: FastifyRequest,
): Promise<ConsoleCaller | undefined> {
  const signedIn = signedInPart(request.session);
  if (!signedIn) return undefined;
  const [row] = await db.query<
    ConsoleCaller['user'] & { organizationId: string; handle: string; organizationName: string }
  >(
    `select u.id, u.email, u.name, u.role, o.id as "organizationId", o.handle, o.name as "organizationName"
     from users u join organizations o on o.id = u.organization_id
     where u.id = $1 and u.password_hash is not null and u.deactivated_at is null`,
    [signedIn.userId],
  );
  if (!row) return undefined;
  const { organizationId, handle, organizationName, ...user } = row;
  return { user, organization: { id: organizationId, handle, name: organizationName } };
}

/** A caller as the JSON routes show it: no organization id (the page needs none). */
export function publicConsoleCaller(caller: ConsoleCaller | undefined): {
  user: ConsoleCaller['user'] | null;
  organization: { handle: string; name: string } | null;
} {
  if (!caller) return { user: null, organization: null };
  const { handle, name } = caller.organization;
  return { user: caller.user, organization: { handle, name } };
}
