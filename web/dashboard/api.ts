// The dashboard's calls to its JSON routes under /dashboard/api (src/portfolio/dashboard/), with the session's
// cookie and CSRF token (web/shared/accounts/api-client.ts), typed by the dashboard's contract.

import type { DashboardRoutes } from '../../src/portfolio/dashboard/contract.ts';
import { createApiClient } from '../shared/accounts/api-client.ts';

export const client = createApiClient('/dashboard/api');

/** Calls a route of the dashboard's contract, e.g. `await dashboardApi('GET /instances/:slug/keys', { params: { slug } })`. */
export const dashboardApi = client.routes<DashboardRoutes>();
