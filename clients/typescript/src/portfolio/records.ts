import type { components, operations } from '../generated/portfolio.ts';

/** A portfolio company, with the funds that hold it. */
export type Company = components['schemas']['Company'];
/** A fund of the customer that holds a company. */
export type Fund = components['schemas']['Fund'];
/** A periodic update a portfolio company reported. */
export type CompanyUpdate = components['schemas']['CompanyUpdate'];
/** An investment in a portfolio company. */
export type CompanyInvestment = components['schemas']['CompanyInvestment'];

/**
 * What a list of the API can be asked: every query parameter the OpenAPI document gives the operation (`limit`,
 * `cursor`, `updatedSince`, and any added later), with `updatedSince` also taken as a `Date`, and a `signal` to
 * give up with.
 */
export type ListOptions<Operation extends keyof operations> = Omit<
  NonNullable<operations[Operation]['parameters']['query']>,
  'updatedSince' | 'cursor'
> & {
  /** Only records added or changed at or after this time. A string must carry a time zone. */
  updatedSince?: string | Date | undefined;
  /** Where to start: a page's `nextCursor`, as it is. The first page when absent or null. */
  cursor?: string | null | undefined;
  /** Aborts the request in flight (and the waits between retries). */
  signal?: AbortSignal | undefined;
};

/** What `companies.list` and `companies.listPage` take. */
export type CompanyListOptions = ListOptions<'listCompanies'>;
/** What `companies.updates` and `companies.updatesPage` take. */
export type CompanyUpdateListOptions = ListOptions<'listCompanyUpdates'>;
/** What `companies.investments` and `companies.investmentsPage` take. */
export type CompanyInvestmentListOptions = ListOptions<'listCompanyInvestments'>;
