// The dashboard's calls to its JSON routes under /dashboard/api (src/portfolio/web/): the session cookie rides
// along by itself (HttpOnly, never visible here); the CSRF token of the latest answer that carried one goes in
// `x-csrf-token` on every request that changes something.

import { ApiError, apiError, networkError } from '../shared/api-error.ts';

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
 * const { keys } = await api<{ keys: ApiKey[] }>('GET', `/instances/${slug}/keys`);
 */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: object): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`${API_PATH}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw networkError();
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && 'csrfToken' in parsed && typeof parsed.csrfToken === 'string') {
    csrfToken = parsed.csrfToken;
  }
  if (!response.ok) {
    const error = apiError(response.status, parsed);
    if (error.code === 'UNAUTHENTICATED' && path.startsWith('/instances/')) onSessionEnded?.();
    throw error;
  }
  return parsed as T;
}
