import { createContext, use, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, whenSessionEnds } from './api.ts';
import type { InstanceSummary, SessionAnswer, SignedInUser } from './types.ts';

/** Who is signed in, as the page knows it. */
export type SessionState =
  | { status: 'loading' }
  /** The server could not be asked (offline, down): the page offers to try again. */
  | { status: 'unreachable'; error: ApiError }
  | { status: 'signed-out'; notice?: string | undefined }
  | { status: 'signed-in'; user: SignedInUser; instance: InstanceSummary };

interface SessionContextValue {
  session: SessionState;
  /** Takes the answer of a route that signs in (sign-in, an accepted invitation). */
  signedIn: (answer: SessionAnswer) => void;
  signOut: () => Promise<void>;
  /** Asks the server again who is signed in. */
  refresh: () => Promise<void>;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

function stateOf(answer: SessionAnswer, notice?: string): SessionState {
  return answer.user && answer.instance
    ? { status: 'signed-in', user: answer.user, instance: answer.instance }
    : { status: 'signed-out', notice };
}

/** Knows who is signed in: asks the server once at start, then follows sign-in, sign-out and ended sessions. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionState>({ status: 'loading' });

  const refresh = useCallback(async () => {
    try {
      setSession(stateOf(await api<SessionAnswer>('GET', '/session')));
    } catch (error) {
      setSession({
        status: 'unreachable',
        error: error instanceof ApiError ? error : new ApiError(0, 'NETWORK_ERROR', String(error), undefined),
      });
    }
  }, []);

  useEffect(() => {
    void refresh();
    whenSessionEnds(() => {
      // A fresh CSRF token for the sign-in form, and a word on why the person is asked to sign in again.
      void api<SessionAnswer>('GET', '/session').then(
        (answer) => {
          setSession(stateOf(answer, 'Your session has ended. Sign in again to go on.'));
        },
        () => {
          setSession({ status: 'signed-out', notice: 'Your session has ended. Sign in again to go on.' });
        },
      );
    });
  }, [refresh]);

  const value = useMemo<SessionContextValue>(
    () => ({
      session,
      signedIn: (answer) => {
        setSession(stateOf(answer));
      },
      signOut: async () => {
        await api('DELETE', '/session');
        setSession({ status: 'signed-out', notice: 'You have signed out.' });
      },
      refresh,
    }),
    [session, refresh],
  );
  return <SessionContext value={value}>{children}</SessionContext>;
}

/** The session and what changes it; only inside {@link SessionProvider}. */
export function useSession(): SessionContextValue {
  const value = use(SessionContext);
  if (!value) throw new Error('useSession is used outside SessionProvider');
  return value;
}

/** The signed-in person and instance, on pages that only render when someone is signed in. */
export function useSignedIn(): { user: SignedInUser; instance: InstanceSummary } {
  const { session } = useSession();
  if (session.status !== 'signed-in') throw new Error('useSignedIn is used on a page shown signed out');
  return session;
}
