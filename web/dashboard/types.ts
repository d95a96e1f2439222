// What the dashboard's JSON routes take and answer, derived from their contract
// (src/portfolio/dashboard/contract.ts) with type-only imports: no server code enters the bundle. Times are ISO
// 8601 strings; amounts in cents are strings of digits, exact beyond 2^53.

import type { Static } from '@sinclair/typebox';
import type { Answer } from '../../src/http/contract.ts';
import type {
  ApiKey as ApiKeySchema,
  DashboardRoutes,
  FundSummary as FundSummarySchema,
  InstanceSummary as InstanceSummarySchema,
  Person as PersonSchema,
  SignedInUser as SignedInUserSchema,
} from '../../src/portfolio/dashboard/contract.ts';
import type { CompanyInvestment, CompanyUpdate as CompanyUpdateSchema } from '../../src/portfolio/records.ts';

export type SignedInUser = Static<typeof SignedInUserSchema>;
export type Role = SignedInUser['role'];
export type InstanceSummary = Static<typeof InstanceSummarySchema>;
export type ApiKey = Static<typeof ApiKeySchema>;
export type Person = Static<typeof PersonSchema>;
/** A fund and how many companies it holds. */
export type FundSummary = Static<typeof FundSummarySchema>;
export type CompanyUpdate = Static<typeof CompanyUpdateSchema>;
export type Investment = Static<typeof CompanyInvestment>;

/** GET and POST /session: who is signed in (both null when no one is) and the CSRF token. */
export type SessionAnswer = Answer<DashboardRoutes['session']>;
export type KeysAnswer = Answer<DashboardRoutes['listKeys']>;
/** POST /instances/<slug>/keys (201): the key, and its secret, shown this once. */
export type NewKeyAnswer = Answer<DashboardRoutes['createKey'], 201>;
export type PeopleAnswer = Answer<DashboardRoutes['listPeople']>;
/** POST /instances/<slug>/people (201). */
export type InvitedAnswer = Answer<DashboardRoutes['invitePerson'], 201>;
export type FundsAnswer = Answer<DashboardRoutes['listFunds']>;
export type CompanyPage = Answer<DashboardRoutes['searchCompanies']>;
/** GET /instances/<slug>/companies/<id>: updates oldest first, investments newest first. */
export type CompanyDetail = Answer<DashboardRoutes['readCompany']>;
