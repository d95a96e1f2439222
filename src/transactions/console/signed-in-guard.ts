import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/database.ts';
import { notSignedIn } from '../../errors.ts';
import { signedInConsoleCaller, type ConsoleCaller } from './caller.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person of a console route, once `signedInToConsole` checked them. */
    consoleCaller: ConsoleCaller | null;
  }
}

/**
 * The guard of the console's routes past signing in, as a `preHandler` hook: the session must be signed in
 * (UNAUTHENTICATED otherwise). The caller is then on `request.consoleCaller`, read afresh, so a deactivated
 * person or a changed role counts at once.
 *
 * @example
 * routes.addHook('preHandler', signedInToConsole(db));
 */
export function signedInToConsole(db: Queryable): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const caller = await signedInConsoleCaller(db, request);
    if (!caller) {
      throw notSignedIn();
    }
    request.consoleCaller = caller;
  };
}
