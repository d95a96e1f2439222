import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import {
  deleteSession,
  readSession,
  sessionWriter,
  type SessionData,
  type SessionLimits,
} from '../../accounts/sessions.ts';
import type { Queryable } from '../../db/database.ts';

declare module 'fastify' {
  interface Session {
    /** The signed-in user, and when they signed in (ms since the epoch); absent before sign-in. */
    userId?: string;
    signedInAt?: number;
    /** `sso` when the person signed in through their identity provider, whose own factors then apply. */
    signedInThrough?: 'sso';
    /**
     * A sign-in half done: the password was right, and the person's authenticator code is still to come (within
     * 5 minutes of `pendingSince`, ms since the epoch). It signs no one in: only `userId` does.
     */
    pendingUserId?: string;
    pendingSince?: number;
    /**
     * The challenge of the passkey ceremony this browser began (passkey-routes.ts), for one purpose, answered
     * once within 5 minutes of `issuedAt` (ms since the epoch).
     */
    passkeyChallenge?: { value: string; purpose: 'register' | 'sign-in' | 'second-step'; issuedAt: number };
    /** Shown on the person's list of sessions (session-routes.ts): its public id, browser and address. */
    publicId?: string;
    userAgent?: string;
    ipAddress?: string;
    /** The CSRF secret of @fastify/csrf-protection. */
    _csrf?: string;
  }
}

/** Calls a callback of @fastify/session's store with a promise's outcome. */
function settle<T>(work: Promise<T>, callback: (error?: Error | null, value?: T) => void): void {
  work.then(
    (value) => {
      callback(null, value);
    },
    (error: unknown) => {
      callback(error instanceof Error ? error : new Error(String(error)));
    },
  );
}

/**
 * @fastify/session's store on our database (`user_sessions`, see `accounts/sessions.ts`): sessions by the
 * SHA-256 of their id, past the surface's idle or absolute limit read as none or signed out.
 */
export function databaseSessionStore(db: Queryable, limits: SessionLimits): SessionStore {
  const write = sessionWriter(db, limits);
  return {
    get(sessionId, callback) {
      settle(
        readSession(db, sessionId, limits).then((data) => (data ?? null) as Session | null),
        callback,
      );
    },
    set(sessionId, session, callback) {
      settle(write(sessionId, session as SessionData), callback);
    },
    destroy(sessionId, callback) {
      settle(deleteSession(db, sessionId), callback);
    },
  };
}
