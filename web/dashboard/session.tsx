import { createSession } from '../shared/accounts/session.tsx';
import { client } from './api.ts';
import type { InstanceSummary, SessionAnswer, SignedInUser } from './types.ts';

/**
 * Who is signed in to the dashboard, and to which instance (the session's `tenant`). When a session ends under
 * a page, its routes ask to sign in and come back to it.
 */
export const { SessionProvider, useSession, useSignedIn } = createSession<
  SessionAnswer,
  SignedInUser,
  InstanceSummary
>({
  client,
  read: (answer) =>
    answer.user && answer.instance
      ? { user: answer.user, tenant: answer.instance, secondFactorRequired: answer.secondFactorRequired }
      : undefined,
  whenSessionEnds: 'sign-in-page',
});
