import type { FastifyInstance } from 'fastify';
import { endSessionOf, sessionsOf } from '../../accounts/session-list.ts';
import { endOtherSessionsOf, type SessionLimits } from '../../accounts/sessions.ts';
import type { Database } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { handRoute } from '../contract-routes.ts';
import type { accountRoutes } from './account-contract.ts';
import { signedInPerson, type TenantKind } from './person.ts';

/** What {@link registerSessionRoutes} is given by the surface's account routes. */
export interface SessionRoutesOptions {
  db: Database;
  kind: TenantKind;
  contract: ReturnType<typeof accountRoutes>;
  limits: SessionLimits;
}

/**
 * A person's own sessions, the same on every signed-in surface: the list, ending one by its public id, and ending
 * all but this one. An ended session's row is gone, so its browser's next request is signed out (401).
 */
export function registerSessionRoutes(api: FastifyInstance, options: SessionRoutesOptions): void {
  const { db, kind, contract, limits } = options;

  api.route({
    ...handRoute(contract.sessions),
    handler: async (request) => ({
      sessions: await sessionsOf(
        db,
        signedInPerson(request, kind).user.id,
        request.session.sessionId,
        limits,
      ),
    }),
  });

  api.route<{ Params: { sessionId: string } }>({
    ...handRoute(contract.endSession),
    handler: async (request) => {
      const { user } = signedInPerson(request, kind);
      if (!(await endSessionOf(db, user.id, request.params.sessionId))) {
        throw notFound('session', request.params.sessionId);
      }
      return {};
    },
  });

  api.route({
    ...handRoute(contract.endOtherSessions),
    handler: async (request) => ({
      otherSessionsEnded: await endOtherSessionsOf(
        db,
        [signedInPerson(request, kind).user.id],
        request.session.sessionId,
      ),
    }),
  });
}
