// Written by `npm run schemas` from docs/portfolio.openapi.json (openapi-typescript); a test fails while it
// is stale.

export interface paths {
  '/v1/external/companies': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List companies with their funds
     * @description Companies in the order they were added (createdAt, then id), oldest first.
     */
    get: operations['listCompanies'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/external/company/{id}/updates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the updates of a company
     * @description Updates by updateDate, newest first, then by id (descending).
     */
    get: operations['listCompanyUpdates'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/external/company/{id}/investments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the investments in a company
     * @description Investments by date, newest first, then by id (descending).
     */
    get: operations['listCompanyInvestments'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description A fund of the customer that holds the company. */
    Fund: {
      /**
       * Format: uuid
       * @description The fund.
       */
      id: string;
      /** @description The fund's name. */
      name: string;
    };
    /** @description A portfolio company. */
    Company: {
      /**
       * Format: uuid
       * @description The company.
       */
      id: string;
      /** @description The company's legal name. */
      legalName: string;
      /**
       * Format: date-time
       * @description When the company was added. ISO 8601, UTC, to the millisecond.
       */
      createdAt: string;
      /** @description The funds that hold the company, by name. */
      funds: components['schemas']['Fund'][];
    };
    /** @description A periodic update a portfolio company reported. */
    CompanyUpdate: {
      /**
       * Format: uuid
       * @description The update.
       */
      id: string;
      /**
       * Format: date-time
       * @description When the update was added. ISO 8601, UTC, to the millisecond.
       */
      createdAt: string;
      /**
       * Format: date-time
       * @description When the update last changed. ISO 8601, UTC, to the millisecond.
       */
      updatedAt: string;
      /** @description The title of the update. */
      title: string;
      /**
       * Format: date-time
       * @description The date the update reports on. ISO 8601, UTC, to the millisecond.
       */
      updateDate: string;
      /** @description Cash in bank, in units of its currency. */
      cashInBankAmountValue: number;
      /** @description The currency of the cash in bank. ISO 4217 currency code. */
      cashInBankAmountCurrency: string;
      /** @description Product news. */
      productUpdatesSummary: string | null;
      /** @description Business news. */
      businessUpdatesSummary: string | null;
      /** @description Customers at the update date. */
      numberOfCustomers: number;
      /** @description Whether the company is raising or has raised a round. */
      hasNewRound: boolean | null;
      /** @description The round being raised. */
      newRoundDescription: string | null;
      /** @description Months of runway left. */
      runwayInMonths: number | null;
      /** @description A summary of the update. */
      summary: string | null;
    };
    /** @description An investment of one of the customer funds in a portfolio company. */
    CompanyInvestment: {
      /**
       * Format: uuid
       * @description The investment.
       */
      id: string;
      /**
       * Format: date-time
       * @description When the investment was made. ISO 8601, UTC, to the millisecond.
       */
      date: string;
      /** @description The amount invested. An integer number of cents, as a string. */
      amountCents: string;
      /** @description The currency of amountCents. ISO 4217 currency code. */
      amountCurrency: string;
      /** @description The current unrealized value of the holding. An integer number of cents, as a string. */
      unrealizedValueCents: string;
      /** @description The currency of unrealizedValueCents. ISO 4217 currency code. */
      unrealizedValueCurrency: string;
      /** @description The currency of fmvPerShareCents. ISO 4217 currency code. */
      fmvPerShareCurrency: string;
      /** @description The currency of costPerShareCents. ISO 4217 currency code. */
      costPerShareCurrency: string;
      /** @description The currency of roundSizeCents. ISO 4217 currency code. */
      roundSizeCurrency: string;
      /** @description The currency of valuationOrCapCents. ISO 4217 currency code. */
      valuationOrCapCurrency: string;
      /** @description The round, e.g. "Series A". */
      round: string | null;
      /**
       * @description The instrument invested through.
       * @enum {string|null}
       */
      instrument:
        | 'common_equity'
        | 'preferred_equity'
        | 'safe'
        | 'convertible_note'
        | 'warrant'
        | 'debt'
        | 'other'
        | null;
      /** @description Shares acquired. */
      shares: number | null;
      /** @description Shares acquired, fully diluted. */
      dilutedShares: number | null;
      /** @description Fair market value per share. An integer number of cents, as a string. */
      fmvPerShareCents: string | null;
      /** @description Cost per share. An integer number of cents, as a string. */
      costPerShareCents: string | null;
      /** @description Conversion discount, in percent (SAFEs, notes). */
      discount: number | null;
      /** @description Whether the investment carries pro-rata rights. */
      hasProRataRights: boolean | null;
      /** @description Whether the investment carries information rights. */
      hasInformationRights: boolean | null;
      /** @description The size of the whole round. An integer number of cents, as a string. */
      roundSizeCents: string | null;
      /** @description Whether a SAFE or note has a valuation cap. */
      hasCap: boolean | null;
      /** @description The valuation of the round, or the cap of a SAFE or note. An integer number of cents, as a string. */
      valuationOrCapCents: string | null;
      /** @description Other investors in the round, as written by the customer. */
      coInvestors: string | null;
      /** @description The lead investor of the round. */
      leadInvestor: string | null;
      /** @description Whether this follows an earlier investment. */
      isFollowOnInvestment: boolean | null;
      /**
       * @description Whether the holding is active, exited or written off.
       * @enum {string|null}
       */
      investmentStatus: 'active' | 'exited' | 'written_off' | null;
      /** @description Why the fund invested. */
      investmentReason: string | null;
      /**
       * @description Whether valuationOrCapCents is pre- or post-money.
       * @enum {string|null}
       */
      valuationType: 'pre_money' | 'post_money' | null;
    };
    /** @description Every error answer has this shape. */
    Error: {
      error: {
        /** @description A stable, machine-readable code, e.g. NOT_FOUND. */
        code: string;
        /** @description What went wrong, for people. */
        message: string;
        /** @description Quote it when you contact support. */
        requestId: string;
        details?: {
          [key: string]: unknown;
        };
      };
    };
    /** @description A page of companies. */
    CompanyList: {
      /** @description The records of this page, in the order of the walk. */
      data: components['schemas']['Company'][];
      /** @description How many records the whole walk covers (the same on every page of one walk). */
      total: number;
      /** @description Whether another page follows. */
      hasNextPage: boolean;
      /** @description Pass as cursor to get the next page; null on the last page. */
      nextCursor: string | null;
    };
    /** @description A page of company updates. */
    CompanyUpdateList: {
      /** @description The records of this page, in the order of the walk. */
      data: components['schemas']['CompanyUpdate'][];
      /** @description How many records the whole walk covers (the same on every page of one walk). */
      total: number;
      /** @description Whether another page follows. */
      hasNextPage: boolean;
      /** @description Pass as cursor to get the next page; null on the last page. */
      nextCursor: string | null;
    };
    /** @description A page of company investments. */
    CompanyInvestmentList: {
      /** @description The records of this page, in the order of the walk. */
      data: components['schemas']['CompanyInvestment'][];
      /** @description How many records the whole walk covers (the same on every page of one walk). */
      total: number;
      /** @description Whether another page follows. */
      hasNextPage: boolean;
      /** @description Pass as cursor to get the next page; null on the last page. */
      nextCursor: string | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  listCompanies: {
    parameters: {
      query?: {
        /** @description The nextCursor of the previous page. Leave it out for the first page. */
        cursor?: string;
        /** @description How many records a page holds at most: 1 to 200. */
        limit?: number;
        /** @description Only records added or changed at or after this time (ISO 8601 with a time zone): incremental sync. */
        updatedSince?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of companies. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CompanyList'];
        };
      };
      /** @description A query or path parameter is invalid (BAD_USER_INPUT), or the cursor is not one this walk handed out (INVALID_CURSOR). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The API key is missing, malformed, unknown or revoked (UNAUTHENTICATED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The instance has no such company (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Something failed on our side (INTERNAL_SERVER_ERROR); quote the requestId to support. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCompanyUpdates: {
    parameters: {
      query?: {
        /** @description The nextCursor of the previous page. Leave it out for the first page. */
        cursor?: string;
        /** @description How many records a page holds at most: 1 to 200. */
        limit?: number;
        /** @description Only records added or changed at or after this time (ISO 8601 with a time zone): incremental sync. */
        updatedSince?: string;
      };
      header?: never;
      path: {
        /** @description The company. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of company updates. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CompanyUpdateList'];
        };
      };
      /** @description A query or path parameter is invalid (BAD_USER_INPUT), or the cursor is not one this walk handed out (INVALID_CURSOR). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The API key is missing, malformed, unknown or revoked (UNAUTHENTICATED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The instance has no such company (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Something failed on our side (INTERNAL_SERVER_ERROR); quote the requestId to support. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCompanyInvestments: {
    parameters: {
      query?: {
        /** @description The nextCursor of the previous page. Leave it out for the first page. */
        cursor?: string;
        /** @description How many records a page holds at most: 1 to 200. */
        limit?: number;
        /** @description Only records added or changed at or after this time (ISO 8601 with a time zone): incremental sync. */
        updatedSince?: string;
      };
      header?: never;
      path: {
        /** @description The company. */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of company investments. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CompanyInvestmentList'];
        };
      };
      /** @description A query or path parameter is invalid (BAD_USER_INPUT), or the cursor is not one this walk handed out (INVALID_CURSOR). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The API key is missing, malformed, unknown or revoked (UNAUTHENTICATED). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The instance has no such company (NOT_FOUND). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Something failed on our side (INTERNAL_SERVER_ERROR); quote the requestId to support. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
