import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { takeEarly, takeEarlyAnswer } from '../app/early-reads.ts';
import { ApiError, SESSION_ENDED, type AccountRoutes, type ApiClient } from './api-client.ts';

/** Who is signed in, and to which tenant (the dashboard's instance, the console's organization). */
export interface SignedIn<User, Tenant> {
  user: User;
  tenant: Tenant;
  /** Their tenant requires a second factor of them, and they have none: the pages lead them to add one. */
  secondFactorRequired?: boolean | undefined;
}

/** Who is signed in, as the page knows it. */
export type SessionState<User, Tenant> =
  | { status: 'loading' }
  /** The server could not be asked (offline, down): the page offers to try again. */
  | { status: 'unreachable'; error: ApiError }
  | { status: 'signed-out'; notice?: string | undefined }
  | (SignedIn<User, Tenant> & {
      status: 'signed-in';
      /**
       * Set when the session ended under a page that stays ({@link SessionOptions.whenSessionEnds}
       * `'sign-in-above-page'`): the notice for the sign-in shown above the page.
       */
      ended?: string | undefined;
    });

/** The session and what changes it. */
export interface SessionContextValue<Answer, User, Tenant> {
  session: SessionState<User, Tenant>;
  /** Takes the answer of a route that signs in (sign-in, an accepted invitation), and answers who it signed in. */
  signedIn: (answer: Answer) => SignedIn<User, Tenant> | undefined;
  signOut: () => Promise<void>;
  /** Asks the server again who is signed in. */
  refresh: () => Promise<void>;
}

/**
 * What a signed-in person does with their own account from any page of a surface's shell (its person's menu):
 * change their password. The surface's session provides it (session.tsx), on its account routes.
 */
export interface AccountActions {
  /** `PUT /password`: their other sessions end, this one stays; answers how many ended. */
  changePassword: (body: {
    currentPassword: string;
    password: string;
  }) => Promise<{ otherSessionsEnded: number }>;
  /**
   * `GET /factors`: since when they have an authenticator app (an ISO time, or null), recovery codes left, and
   * their passkeys.
   */
  factors: () => Promise<{
    authenticatorAddedAt: string | null;
    recoveryCodesLeft: number;
    passkeys: PasskeySummary[];
  }>;
  /** `POST /factors/authenticator`: a new app's secret, as typed and as a QR code (an SVG). */
  beginAuthenticator: () => Promise<{ secret: string; uri: string; qrSvg: string }>;
  /** `POST /factors/authenticator/confirm`: the app confirmed by a code of it; its ten recovery codes, once. */
  confirmAuthenticator: (code: string) => Promise<{ recoveryCodes: string[] }>;
  /** `DELETE /factors/authenticator`, given a code of the app or the password. */
  removeAuthenticator: (proof: FactorProof) => Promise<void>;
  /** `POST /factors/recovery-codes`: ten new ones (the old stop working), given a code or the password. */
  remakeRecoveryCodes: (proof: FactorProof) => Promise<{ recoveryCodes: string[] }>;
  /** `POST /factors/passkeys/options`: the options of a new passkey, for the browser. */
  passkeyOptions: () => Promise<PublicKeyCredentialCreationOptionsJSON>;
  /** `POST /factors/passkeys`: adds the passkey the browser made, named. */
  addPasskey: (name: string, passkey: RegistrationResponseJSON) => Promise<PasskeySummary>;
  /** `PATCH /factors/passkeys/:id`. */
  renamePasskey: (id: string, name: string) => Promise<PasskeySummary>;
  /** `DELETE /factors/passkeys/:id`, given a code of the app or the password. */
  removePasskey: (id: string, proof: FactorProof) => Promise<void>;
  /** `GET /sessions`: their live sessions, this one first. */
  sessions: () => Promise<{ sessions: SessionSummary[] }>;
  /** `DELETE /sessions/:sessionId`: ends one, by its public id. */
  endSession: (sessionId: string) => Promise<void>;
  /** `POST /sessions/end-others`: ends all but this one; answers how many ended. */
  endOtherSessions: () => Promise<{ otherSessionsEnded: number }>;
}

/** One of the person's sessions, as `GET /sessions` answers it. */
export interface SessionSummary {
  id: string;
  browser: string;
  ipAddress: string | null;
  startedAt: string;
  lastActiveAt: string;
  current: boolean;
}

/** One of the person's passkeys, as `GET /factors` lists it. */
export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** What proves it is the person, to remove their app or remake their recovery codes. */
export type FactorProof = { code: string } | { password: string };

export const AccountActionsContext = createContext<AccountActions | undefined>(undefined);

/** The signed-in person's account actions; undefined outside a surface's session provider. */
export function useAccountActions(): AccountActions | undefined {
  return useContext(AccountActionsContext);
}

/** How a surface reads its session answers, and what its pages do when a session ends. */
export interface SessionOptions<Answer, User, Tenant> {
  client: ApiClient;
  /** Who a session answer says is signed in, or undefined when no one is. */
  read: (answer: Answer) => SignedIn<User, Tenant> | undefined;
  /**
   * When a route answers that the session has ended under a signed-in page: `'sign-in-page'` forgets who was
   * signed in (the page's routes then ask to sign in and come back); `'sign-in-above-page'` keeps the page and
   * everything typed on it, with `ended` set, for a sign-in shown above it.
   */
  whenSessionEnds: 'sign-in-page' | 'sign-in-above-page';
}

/** What {@link createSession} makes: the provider and its hooks. */
export interface SessionKit<Answer, User, Tenant> {
  /**
   * Knows who is signed in: asks the server once at start, then follows sign-in, sign-out and ended sessions; and
   * gives the shell what a person does with their own account ({@link AccountActions}).
   */
  SessionProvider: (props: { children: ReactNode }) => ReactNode;
  /** The session and what changes it; only inside `SessionProvider`. */
  useSession: () => SessionContextValue<Answer, User, Tenant>;
  /** The signed-in person and tenant, on pages that only render when someone is signed in. */
  useSignedIn: () => SignedIn<User, Tenant>;
}

/**
 * The session of a surface people sign in to, on its JSON routes' `GET /session`, `POST /session` (and what
 * else signs in) and `DELETE /session` (src/http/signed-in/account-contract.ts).
 *
 * @example
 * export const { SessionProvider, useSession, useSignedIn } = createSession<SessionAnswer, ConsoleUser, OrganizationSummary>({
 *   client, read: (answer) => answer.user && answer.organization ? { user: answer.user, tenant: answer.organization } : undefined,
 *   whenSessionEnds: 'sign-in-above-page',
 * });
 */
export function createSession<Answer, User, Tenant>(
  options: SessionOptions<Answer, User, Tenant>,
): SessionKit<Answer, User, Tenant> {
  const { client, read } = options;
  const api = client.routes<AccountRoutes<Answer>>();
  const SessionContext = createContext<SessionContextValue<Answer, User, Tenant> | undefined>(undefined);

  const stateOf = (answer: Answer, notice?: string): SessionState<User, Tenant> => {
    const signed = read(answer);
    return signed ? { status: 'signed-in', ...signed } : { status: 'signed-out', notice };
  };

  const sessionUrl = api.urlOf('GET /session');

  function SessionProvider({ children }: { children: ReactNode }) {
    // Known at once when the page's entry read it early and it has come (a page drawn on the server waits for it
    // before the app renders over it), or when the server draws the page.
    const [session, setSession] = useState<SessionState<User, Tenant>>(() => {
      const early = takeEarlyAnswer(sessionUrl);
      return early ? stateOf(early.data as Answer) : { status: 'loading' };
    });
    const [knownAtStart] = useState(session.status !== 'loading');

    /** Takes in who a `GET /session` answers is signed in, or that the server could not be asked. */
    const settle = useCallback(async (answer: Promise<Answer>) => {
      try {
        setSession(stateOf(await answer));
      } catch (error) {
        setSession({
          status: 'unreachable',
          error:
            error instanceof ApiError ? error : new ApiError(0, 'NETWORK_ERROR', String(error), undefined),
        });
      }
    }, []);
    const refresh = useCallback(() => settle(api('GET /session')), [settle]);

    useEffect(() => {
      if (!knownAtStart) {
        // The entry's early read, when it is still on its way.
        const read = () => api('GET /session');
        void settle(takeEarly(sessionUrl, read) ?? read());
      }
      // When the session has ended, no one is signed in, unless the page is kept: then it stays, marked ended.
      const ended = (state: SessionState<User, Tenant>): SessionState<User, Tenant> =>
        options.whenSessionEnds === 'sign-in-above-page' && state.status === 'signed-in'
          ? { ...state, ended: SESSION_ENDED }
          : { status: 'signed-out', notice: SESSION_ENDED };
      client.whenSessionEnds(() => {
        // A fresh CSRF token for the sign-in form (and who is signed in, if another tab signed in again).
        void api('GET /session').then(
          (answer) => {
            const signed = read(answer);
            setSession((state) => (signed ? { status: 'signed-in', ...signed } : ended(state)));
          },
          () => {
            setSession(ended);
          },
        );
      });
    }, [settle, knownAtStart]);

    const value = useMemo<SessionContextValue<Answer, User, Tenant>>(
      () => ({
        session,
        signedIn: (answer) => {
          setSession(stateOf(answer));
          return read(answer);
        },
        signOut: async () => {
          await api('DELETE /session');
          setSession({ status: 'signed-out', notice: 'You have signed out.' });
        },
        refresh,
      }),
      [session, refresh],
    );
    const account = useMemo<AccountActions>(
      () => ({
        changePassword: (body) => api('PUT /password', { body }),
        factors: () => api('GET /factors'),
        beginAuthenticator: () => api('POST /factors/authenticator'),
        confirmAuthenticator: (code) => api('POST /factors/authenticator/confirm', { body: { code } }),
        removeAuthenticator: async (proof) => {
          await api('DELETE /factors/authenticator', { body: proof });
        },
        remakeRecoveryCodes: (proof) => api('POST /factors/recovery-codes', { body: proof }),
        passkeyOptions: () => api('POST /factors/passkeys/options'),
        addPasskey: (name, passkey) => api('POST /factors/passkeys', { body: { name, passkey } }),
        renamePasskey: (id, name) => api('PATCH /factors/passkeys/:id', { params: { id }, body: { name } }),
        removePasskey: async (id, proof) => {
          await api('DELETE /factors/passkeys/:id', { params: { id }, body: proof });
        },
        sessions: () => api('GET /sessions'),
        endSession: async (sessionId) => {
          await api('DELETE /sessions/:sessionId', { params: { sessionId } });
        },
        endOtherSessions: () => api('POST /sessions/end-others'),
      }),
      [],
    );
    return (
      <SessionContext value={value}>
        <AccountActionsContext value={account}>{children}</AccountActionsContext>
      </SessionContext>
    );
  }

  function useSession(): SessionContextValue<Answer, User, Tenant> {
    const value = useContext(SessionContext);
    if (!value) throw new Error('useSession is used outside SessionProvider');
    return value;
  }

  function useSignedIn(): SignedIn<User, Tenant> {
    const { session } = useSession();
    if (session.status !== 'signed-in') throw new Error('useSignedIn is used on a page shown signed out');
    return session;
  }

  return { SessionProvider, useSession, useSignedIn };
}
