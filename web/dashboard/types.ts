// What the dashboard's JSON routes answer (src/portfolio/dashboard/instance-routes.ts and session-routes.ts). Times
// are ISO 8601 strings; amounts in cents are strings of digits, exact beyond 2^53.

export type Role = 'admin' | 'member';

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export interface InstanceSummary {
  slug: string;
  name: string;
}

/** GET and POST /session: who is signed in (both null when no one is) and the CSRF token. */
export interface SessionAnswer {
  csrfToken: string;
  user: SignedInUser | null;
  instance: InstanceSummary | null;
}

export interface ApiKey {
  id: string;
  name: string;
  /** `pfk_` and the key's first characters: enough to recognise it, not to use it. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The dashboard user who generated it; null for keys made with the CLI. */
  createdBy: { name: string; email: string } | null;
}

export interface Person {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Whether they have set a password (accepted their invitation). */
  active: boolean;
  createdAt: string;
}

export interface Fund {
  id: string;
  name: string;
}

/** GET /instances/<slug>/funds: a fund and how many companies it holds. */
export interface FundSummary extends Fund {
  companies: number;
}

export interface Company {
  id: string;
  legalName: string;
  createdAt: string;
  funds: Fund[];
}

export interface CompanyUpdate {
  id: string;
  title: string;
  updateDate: string;
  cashInBankAmountValue: number;
  cashInBankAmountCurrency: string;
  productUpdatesSummary: string | null;
  businessUpdatesSummary: string | null;
  numberOfCustomers: number;
  hasNewRound: boolean | null;
  newRoundDescription: string | null;
  runwayInMonths: number | null;
  summary: string | null;
}

export interface Investment {
  id: string;
  date: string;
  amountCents: string;
  amountCurrency: string;
  unrealizedValueCents: string;
  unrealizedValueCurrency: string;
  round: string | null;
  instrument: string | null;
  investmentStatus: string | null;
  leadInvestor: string | null;
  isFollowOnInvestment: boolean | null;
}

/** GET /instances/<slug>/companies/<id>: updates oldest first, investments newest first. */
export interface CompanyDetail {
  company: Company;
  updates: CompanyUpdate[];
  investments: Investment[];
}

export interface CompanyPage {
  companies: Company[];
  total: number;
  page: number;
  pageSize: number;
}
