import createClient, { type Client } from 'openapi-fetch';
import { PorticoError } from '../errors.ts';
import type { operations, paths } from '../generated/portfolio.ts';
import { checkPortfolioKey } from '../keys.ts';
import { httpsUrlOf, send, type TransportOptions } from '../transport.ts';
import { apiErrorOf } from '../api-error.ts';
import { PageWalk, type Page } from './page-walk.ts';
import type {
  Company,
  CompanyInvestment,
  CompanyInvestmentListOptions,
  CompanyListOptions,
  CompanyUpdate,
  CompanyUpdateListOptions,
  ListOptions,
} from './records.ts';

/** The version prefix every path of the OpenAPI document starts with, and the end of a client's `baseUrl`. */
const API_PREFIX = '/v1/external';

/** How to reach the Portfolio API, with which key, and how to send. */
export interface PortfolioClientOptions extends TransportOptions {
  /** The API's address, ending in `/v1/external`, over https: e.g. `https://portfolio.example.com/v1/external`. */
  baseUrl: string;
  /** The customer instance's key, `pfk_…`: sent in `Authorization` as it is, never logged or shown. */
  apiKey: string;
}

/** The address the document's paths (which start with `/v1/external`) are relative to. */
function rootOf(baseUrl: string): string {
  const url = httpsUrlOf(baseUrl, 'The Portfolio baseUrl');
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(API_PREFIX) || url.search !== '' || url.hash !== '') {
    throw new PorticoError(
      `The Portfolio baseUrl ends in ${API_PREFIX}, e.g. https://${url.host}${API_PREFIX}.`,
    );
  }
  return `${url.origin}${path.slice(0, -API_PREFIX.length)}`;
}

/** An operation's query parameters as the API takes them: `updatedSince` as ISO 8601, no null cursor. */
function queryOf<Operation extends keyof operations>(options: ListOptions<Operation>) {
  const { updatedSince, cursor, ...rest } = options;
  const query = {
    ...rest,
    ...(updatedSince === undefined
      ? {}
      : { updatedSince: updatedSince instanceof Date ? updatedSince.toISOString() : updatedSince }),
    ...(cursor === null || cursor === undefined ? {} : { cursor }),
  };
  // The signal goes to the request, not into its query.
  delete query.signal;
  return query;
}

/** What openapi-fetch answers for one request. */
interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/** The page of a 2xx answer; a `PorticoApiError` for any other. */
async function pageOf<Item>(answer: Promise<Answer<Page<Item>>>): Promise<Page<Item>> {
  const { data, error, response } = await answer;
  if (!response.ok || data === undefined) throw apiErrorOf(response, error);
  return data;
}

/** The companies of the key's customer instance, and each company's updates and investments. */
export class CompaniesResource {
  readonly #api: Client<paths>;

  /** @internal Made by `PortfolioClient`. */
  constructor(api: Client<paths>) {
    this.#api = api;
  }

  /**
   * Every company (with its funds), oldest first, walking every page by cursor.
   *
   * @example
   * for await (const company of client.companies.list({ updatedSince: lastSync })) upsert(company);
   */
  list(options: CompanyListOptions = {}): PageWalk<Company> {
    return new PageWalk((cursor) => this.listPage({ ...options, cursor }), options.cursor ?? null);
  }

  /** One page of companies: the first, or the one at `cursor` (the `nextCursor` of the page before). */
  listPage(options: CompanyListOptions = {}): Promise<Page<Company>> {
    return pageOf(
      this.#api.GET('/v1/external/companies', {
        params: { query: queryOf(options) },
        signal: options.signal,
      }),
    );
  }

  /** Every update of a company, newest first (by `updateDate`), walking every page by cursor. */
  updates(companyId: string, options: CompanyUpdateListOptions = {}): PageWalk<CompanyUpdate> {
    return new PageWalk(
      (cursor) => this.updatesPage(companyId, { ...options, cursor }),
      options.cursor ?? null,
    );
  }

  /** One page of a company's updates. */
  updatesPage(companyId: string, options: CompanyUpdateListOptions = {}): Promise<Page<CompanyUpdate>> {
    return pageOf(
      this.#api.GET('/v1/external/company/{id}/updates', {
        params: { path: { id: companyId }, query: queryOf(options) },
        signal: options.signal,
      }),
    );
  }

  /** Every investment in a company, newest first (by `date`), walking every page by cursor. */
  investments(companyId: string, options: CompanyInvestmentListOptions = {}): PageWalk<CompanyInvestment> {
    return new PageWalk(
      (cursor) => this.investmentsPage(companyId, { ...options, cursor }),
      options.cursor ?? null,
    );
  }

  /** One page of the investments in a company. */
  investmentsPage(
    companyId: string,
    options: CompanyInvestmentListOptions = {},
  ): Promise<Page<CompanyInvestment>> {
    return pageOf(
      this.#api.GET('/v1/external/company/{id}/investments', {
        params: { path: { id: companyId }, query: queryOf(options) },
        signal: options.signal,
      }),
    );
  }
}

/**
 * A client of the Portfolio API: typed from its OpenAPI document, every request through the retrying transport
 * (reads are repeated after a network error or a 503; a 429 is waited out per `Retry-After`). A Transactions key
 * (`sk_…`) or a malformed one is refused here, before anything is sent; the key is kept in a private field and
 * never appears in an error, a log line or `console.log(client)`.
 *
 * @example
 * const client = new PortfolioClient({ baseUrl: 'https://portfolio.example.com/v1/external', apiKey });
 * for await (const company of client.companies.list({ updatedSince: '2026-01-01T00:00:00Z' })) {
 *   console.log(company.legalName, company.funds.map((fund) => fund.name));
 * }
 */
export class PortfolioClient {
  /** The API's address, as given. */
  readonly baseUrl: string;
  /** Companies, and each company's updates and investments. */
  readonly companies: CompaniesResource;
  readonly #apiKey: string;
  readonly #transport: TransportOptions;

  constructor(options: PortfolioClientOptions) {
    const { baseUrl, apiKey, ...transport } = options;
    checkPortfolioKey(apiKey);
    const root = rootOf(baseUrl);
    this.baseUrl = baseUrl;
    this.#apiKey = apiKey;
    this.#transport = transport;
    const api = createClient<paths>({ baseUrl: root, fetch: (request) => this.#send(request) });
    this.companies = new CompaniesResource(api);
  }

  /** Sends what openapi-fetch built, with the key, through the transport. */
  async #send(request: Request): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.set('authorization', this.#apiKey);
    const repeatable = request.method === 'GET' || request.method === 'HEAD';
    // A body is read once, so that every retry sends the same bytes (the API takes none today).
    const body = repeatable ? undefined : await request.arrayBuffer();
    return send(
      request.url,
      { method: request.method, headers, ...(body === undefined ? {} : { body }) },
      { repeatable, signal: request.signal },
      this.#transport,
    );
  }
}
