// A page's calls to its JSON routes (the dashboard's under /dashboard/api, the console's under /console/api): the
// session cookie rides along by itself (HttpOnly, never visible here); the CSRF token of the latest answer that
// carried one goes in `x-csrf-token` on every request that changes something.

import type { TOptional, TString, TUnsafe } from '@sinclair/typebox';
import type { accountRoutes } from '../../../src/http/signed-in/account-contract.ts';
import { ApiError, apiError } from '../api-error.ts';
import { contractClient, fetchJson, type ApiRequest, type ContractClient } from '../contract-client.ts';

/**
 * The account routes of a surface whose session answer is `Answer` (src/http/signed-in/account-contract.ts), its
 * sign-in naming the chosen tenant in a field of the surface's own.
 */
export type AccountRoutes<Answer> = ReturnType<
  typeof accountRoutes<TUnsafe<Answer>, Record<string, TOptional<TString>>>
>;

/** The JSON routes of a surface, and who to tell when one says the session has ended. */
export interface ApiClient {
  /**
   * The calls of the surface's routes, typed by a contract: the surface's own, or the account routes' for the
   * shared account pages (see {@link ContractClient}).
   */
  routes: <Contract>() => ContractClient<Contract>;
  /** Who to tell when a route of a signed-in person answers 401: the session has ended (expired, signed out elsewhere). */
  whenSessionEnds: (callback: () => void) => void;
}

/**
 * The routes about the session itself (`accountRoutes`, src/http/signed-in/account-contract.ts): their 401 is an answer
 * about a sign-in, not a session that ended under a signed-in page.
 */
const ACCOUNT_PATHS: ReadonlySet<string> = new Set<
  AccountRoutes<unknown>[keyof AccountRoutes<unknown>]['url']
>(['/session', '/invitation', '/password-reset', '/password-reset/confirm']);

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
 * export const client = createApiClient('/console/api');
 * export const consoleApi = client.routes<ConsoleRoutes>();
 * const { people } = await consoleApi('GET /team');
 */
export function createApiClient(apiPath: string): ApiClient {
  let csrfToken: string | undefined;
  let onSessionEnded: (() => void) | undefined;

  async function send({ method, path, url, body }: ApiRequest): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
    const answer = await fetchJson(url, { method, headers, body, credentials: 'same-origin' });
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
      if (ACCOUNT_PATHS.has(path) || !(await sessionHasEnded(error))) throw error;
      onSessionEnded?.();
      // Read beside the form it was sent from, before and after signing in again.
      throw new ApiError(401, 'UNAUTHENTICATED', NOT_SENT, error.requestId);
    }
    return parsed;
  }
  const accounts = contractClient<AccountRoutes<unknown>>(apiPath, send);

  /**
   * Whether a route's refusal means that the session has ended: UNAUTHENTICATED says so; CSRF_INVALID may, as a
   * request that changes something is checked for its token before the route looks for the person, and an ended
   * session holds no token. Then `GET /session` tells (and hands a fresh token either way).
   */
  async function sessionHasEnded(error: ApiError): Promise<boolean> {
    if (error.code === 'UNAUTHENTICATED') return true;
    if (error.code !== 'CSRF_INVALID') return false;
    try {
      return noOneSignedIn(await accounts('GET /session'));
    } catch {
      return false;
    }
  }

  return {
    routes: () => contractClient(apiPath, send),
    whenSessionEnds: (callback) => {
      onSessionEnded = callback;
    },
  };
}

export { ApiError };
