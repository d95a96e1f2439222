// What the dashboard's JSON routes take and answer, from their contract (src/portfolio/dashboard/contract.ts)
// through type-only imports: no server code enters the bundle. Times are ISO 8601 strings; amounts in cents are
// strings of digits, exact beyond 2^53.

import type { SuccessOf } from '../../src/http/contract.ts';
import type { DashboardRoutes, SignedInUser } from '../../src/portfolio/dashboard/contract.ts';

export type {
  ApiKey,
  FundSummary,
  InstanceSummary,
  Person,
  SignedInUser,
} from '../../src/portfolio/dashboard/contract.ts';
export type {
  CompanyInvestmentRecord as Investment,
  CompanyUpdateRecord as CompanyUpdate,
} from '../../src/portfolio/records.ts';
export type Role = SignedInUser['role'];

/** GET and POST /session: who is signed in (both null when no one is) and the CSRF token. */
export type SessionAnswer = SuccessOf<DashboardRoutes['session']>;
/** POST /instances/<slug>/people (201). */
export type InvitedAnswer = SuccessOf<DashboardRoutes['invitePerson']>;
export type CompanyPage = SuccessOf<DashboardRoutes['searchCompanies']>;
