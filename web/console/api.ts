// The console's calls to its JSON routes under /console/api (src/transactions/console/), with the session's
// cookie and CSRF token (web/shared/accounts/api-client.ts).

import { createApiClient } from '../shared/accounts/api-client.ts';

export const client = createApiClient('/console/api');

/** Calls a route under /console/api, e.g. `await api<TeamAnswer>('GET', '/team')`. */
export const api = client.api;
