// The console's calls to its JSON routes under /console/api (src/transactions/console/), with the session's
// cookie and CSRF token (web/shared/accounts/api-client.ts), typed by the console's contract.

import type { ConsoleRoutes } from '../../src/transactions/console/contract.ts';
import { createApiClient } from '../shared/accounts/api-client.ts';

export const client = createApiClient('/console/api');

/** Calls a route of the console's contract, e.g. `await consoleApi('POST /transactions/:id/remind', { params: { id } })`. */
export const consoleApi = client.routes<ConsoleRoutes>();

/** Sends a file to a route of the console's contract that takes one, e.g. a paper form. */
export const consoleUpload = client.uploads<ConsoleRoutes>();
