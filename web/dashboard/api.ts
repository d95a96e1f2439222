// The dashboard's calls to its JSON routes under /dashboard/api (src/portfolio/dashboard/), with the session's
// cookie and CSRF token (web/shared/accounts/api-client.ts).

import { createApiClient } from '../shared/accounts/api-client.ts';

export { ApiError } from '../shared/api-error.ts';

export const client = createApiClient('/dashboard/api');

/** Calls a route under /dashboard/api, e.g. `await api<KeysAnswer>('GET', `/instances/${slug}/keys`)`. */
export const api = client.api;
