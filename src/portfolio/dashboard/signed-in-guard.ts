import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/database.ts';
import { AppError, notSignedIn } from '../../errors.ts';
import { signedInCaller, type DashboardCaller } from './caller.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a dashboard instance route, once `signedInToInstance` checked them. */
    dashboardCaller: DashboardCaller | null;
  }
}

/**
 * The guard of an instance's routes (`/instances/:slug/…`), as a `preHandler` hook: the session must be signed in
 * (UNAUTHENTICATED), to this instance (WRONG_INSTANCE, answered alike whether or not the slug exists). The caller
 * is then on `request.dashboardCaller`, read afresh, so a removed person or a changed role counts at once.
 *
 * @example
 * routes.addHook('preHandler', signedInToInstance(db));
 */
export function signedInToInstance(db: Queryable): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const { slug } = request.params as { slug: string };
    const caller = await signedInCaller(db, request);
    if (!caller) {
      throw notSignedIn();
    }
    if (caller.instance.slug !== slug) {
      throw new AppError(
        'WRONG_INSTANCE',
        `You are signed in to ${caller.instance.name}, not to this instance: sign out, then sign in with an account of this one.`,
      );
    }
    request.dashboardCaller = caller;
  };
}
