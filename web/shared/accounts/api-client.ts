// A page's calls to its JSON routes (the dashboard's under /dashboard/api, the console's under /console/api): the
// session cookie rides along by itself (HttpOnly, never visible here); the CSRF token of the latest answer that
// carried one goes in `x-csrf-token` on every request that changes something.

import { ApiError, apiError, fetchJson } from '../api-error.ts';

/**
 * Calls a JSON route and answers its body, or throws an {@link ApiError}: the route's own, or NETWORK_ERROR
 * when the server cannot be reached.
 */
export type Api = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object) => Promise<T>;

/** The JSON routes of a surface, and who to tell when one says the session has ended. */
export interface ApiClient {
  api: Api;
  /** Who to tell when a route of a signed-in person answers 401: the session has ended (expired, signed out elsewhere). */
  whenSessionEnds: (callback: () => void) => void;
}

/**
 * The routes about the session itself (`accountRoutes`, src/http/account-contract.ts): their 401 is an answer
 * about a sign-in, not a session that ended under a signed-in page.
 */
const ACCOUNT_PATHS = ['/session', '/invitation', '/password-reset', '/password-reset/confirm'];

/** The words the pages show when the server says the session has ended. */
export const SESSION_ENDED = 'Your session has ended. Sign in again to go on.';

/** What a refused request says once the session has ended: it changed nothing, and may be sent again. */
const NOT_SENT =
  'This was not sent: your session had ended. Once you are signed in again, send it once more.';

/** Whether a session answer (`GET /session`, whatever the surface) says that no one is signed in. */
function noOneSignedIn(answer: unknown): boolean {
  return typeof answer === 'object' && answer !== null && 'user' in answer && answer.user === null;
}

/**
 * The client of the JSON routes under `apiPath`, on the origin that served the page.
 *
 * @example
 * export const { api, whenSessionEnds } = createApiClient('/console/api');
 * const { people } = await api<TeamAnswer>('GET', '/team');
 */
export function createApiClient(apiPath: string): ApiClient {
  let csrfToken: string | undefined;
  let onSessionEnded: (() => void) | undefined;

  async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = {};
    if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
    const answer = await fetchJson(`${apiPath}${path}`, {
      method,
      headers,
      body,
      credentials: 'same-origin',
    });
    const parsed = answer.body;
    if (
      parsed &&
      typeof parsed === 'object' &&
      'csrfToken' in parsed &&
      typeof parsed.csrfToken === 'string'
    ) {
      csrfToken = parsed.csrfToken;
    }
    if (!answer.ok) {
      const error = apiError(answer.status, parsed);
      if (ACCOUNT_PATHS.includes(path) || !(await sessionHasEnded(error))) throw error;
      onSessionEnded?.();
      // Read beside the form it was sent from, before and after signing in again.
      throw new ApiError(401, 'UNAUTHENTICATED', NOT_SENT, error.requestId);
    }
    return parsed as T;
  }

  /**
   * Whether a route's refusal means that the session has ended: UNAUTHENTICATED says so; CSRF_INVALID may, as a
   * request that changes something is checked for its token before the route looks for the person, and an ended
   * session holds no token. Then `GET /session` tells (and hands a fresh token either way).
   */
  async function sessionHasEnded(error: ApiError): Promise<boolean> {
    if (error.code === 'UNAUTHENTICATED') return true;
    if (error.code !== 'CSRF_INVALID') return false;
    try {
      return noOneSignedIn(await api<unknown>('GET', '/session'));
    } catch {
      return false;
    }
  }

  return {
    api,
    whenSessionEnds: (callback) => {
      onSessionEnded = callback;
    },
  };
}

export { ApiError };
