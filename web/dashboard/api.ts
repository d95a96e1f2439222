// The dashboard's calls to its JSON routes under /dashboard/api (src/portfolio/dashboard/): the session cookie rides
// along by itself (HttpOnly, never visible here); the CSRF token of the latest answer that carried one goes in
// `x-csrf-token` on every request that changes something.

import { ApiError, apiError, fetchJson } from '../shared/api-error.ts';

export { ApiError };

/** Where the JSON routes are, on the origin that served the page. */
export const API_PATH = '/dashboard/api';

let csrfToken: string | undefined;
/** Called when an instance route answers 401: the session has ended (signed out elsewhere, expired). */
let onSessionEnded: (() => void) | undefined;

/** Who to tell when the server says the session has ended. */
export function whenSessionEnds(callback: () => void): void {
  onSessionEnded = callback;
}

/**
 * Calls a JSON route and answers its body, or throws an {@link ApiError}: the route's own, or NETWORK_ERROR
 * when the server cannot be reached.
 *
 * @example
 * const { keys } = await api<KeysAnswer>('GET', `/instances/${slug}/keys`);
 */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = {};
  if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  const answer = await fetchJson(`${API_PATH}${path}`, { method, headers, body, credentials: 'same-origin' });
  const parsed = answer.body;
  if (parsed && typeof parsed === 'object' && 'csrfToken' in parsed && typeof parsed.csrfToken === 'string') {
    csrfToken = parsed.csrfToken;
  }
  if (!answer.ok) {
    const error = apiError(answer.status, parsed);
    if (error.code === 'UNAUTHENTICATED' && path.startsWith('/instances/')) onSessionEnded?.();
    throw error;
  }
  return parsed as T;
}
