import type { Queryable } from '../db/database.ts';
import { notFound, tooLong } from '../errors.ts';
import { boundedInteger, COMPANY_SELECT } from './lists.ts';
import type { CompanyRecord } from './records.ts';
import { SEARCH_MAX, SEARCH_PAGE_MAX, SEARCH_PAGE_SIZE_MAX } from './dashboard/contract.ts';

/**
 * What a person browses in the dashboard, where the API walks: companies by legal name, searched, filtered by
 * fund and numbered in pages; one company; the funds. Every read is scoped to one instance.
 */

/**
 * A page of an instance's companies by legal name (then id), those whose name contains `search` (any case)
 * when it is given and that `fundId` holds when it is given, and how many there are. Pages are numbered from 1
 * (an offset: deep pages of a very large portfolio cost more, which browsing never reaches). BAD_USER_INPUT
 * naming the parameter for a search over 200 characters, a page size outside 1–100 or a page outside
 * 1–1,000,000; a fund the instance does not have finds no company.
 */
export async function searchCompanies(
  db: Queryable,
  options: {
    instanceId: string;
    search?: string | undefined;
    fundId?: string | undefined;
    page: number;
    pageSize: number;
  },
): Promise<{ companies: CompanyRecord[]; total: number }> {
  const search = options.search?.trim() ?? '';
  if (search.length > SEARCH_MAX) {
    throw tooLong('A search', SEARCH_MAX, { parameter: 'search' });
  }
  const page = boundedInteger(options.page, 'page', { min: 1, max: SEARCH_PAGE_MAX });
  const pageSize = boundedInteger(options.pageSize, 'pageSize', { min: 1, max: SEARCH_PAGE_SIZE_MAX });
  // LIKE's own characters match themselves.
  const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  const matching = `r.instance_id = $1 and r.legal_name ilike $2 and ($5::uuid is null or exists (
      select 1 from portfolio_company_funds cf
      where cf.instance_id = r.instance_id and cf.company_id = r.id and cf.fund_id = $5))`;
  const [row] = await db.query<{ companies: CompanyRecord[]; total: number }>(
    `select coalesce((
        select json_agg(page order by page."legalName", page.id) from (
          select ${COMPANY_SELECT} from portfolio_companies r
          where ${matching}
          order by r.legal_name, r.id limit $3 offset $4
        ) page
      ), '[]'::json) as companies,
      (select count(*)::float8 from portfolio_companies r where ${matching}) as total`,
    [options.instanceId, pattern, pageSize, (page - 1) * pageSize, options.fundId ?? null],
  );
  return { companies: row?.companies ?? [], total: row?.total ?? 0 };
}

/** A company of the instance with its funds; NOT_FOUND for another instance's as for one that does not exist. */
export async function getCompany(
  db: Queryable,
  instanceId: string,
  companyId: string,
): Promise<CompanyRecord> {
  const [company] = await db.query<CompanyRecord>(
    `select ${COMPANY_SELECT} from portfolio_companies r where r.instance_id = $1 and r.id = $2`,
    [instanceId, companyId],
  );
  if (!company) throw notFound('company', companyId);
  return company;
}

/** A fund of an instance, with how many companies it holds. */
export interface FundSummary {
  id: string;
  name: string;
  companies: number;
}

/** The funds of an instance by name, each with the number of companies it holds. */
export function listFunds(db: Queryable, instanceId: string): Promise<FundSummary[]> {
  return db.query<FundSummary>(
    `select f.id, f.name, count(cf.company_id)::float8 as companies
     from portfolio_funds f
     left join portfolio_company_funds cf on cf.instance_id = f.instance_id and cf.fund_id = f.id
     where f.instance_id = $1
     group by f.instance_id, f.id, f.name
     order by f.name, f.id`,
    [instanceId],
  );
}
