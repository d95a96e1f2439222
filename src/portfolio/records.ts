import { Type, type Static, type TObject, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ErrorAnswer } from '../http/contract.ts';

/**
 * The Portfolio API's records, once: TypeBox schemas that the routes validate and serialize with, that the
 * OpenAPI document is generated from and that imports are checked against, and next to each record the
 * columns it is stored in.
 */

/** `schema`, or null: a JSON Schema type list, which OpenAPI 3.1 shows plainly and serializers handle fast. */
function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type: string } & Record<string, unknown>;
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'] });
}

function nullableEnum<const Values extends readonly string[]>(
  values: Values,
  description: string,
): TUnsafe<Values[number] | null> {
  return Type.Unsafe<Values[number] | null>({
    type: ['string', 'null'],
    enum: [...values, null],
    description,
  });
}

/** A reference to a shared schema (added with `app.addSchema`), typed as the schema it names. */
export function ref<T extends TSchema>(schema: T): TUnsafe<Static<T>> {
  if (schema.$id === undefined) throw new Error('only schemas with an $id can be referenced');
  return Type.Unsafe<Static<T>>(Type.Ref(schema.$id));
}

/** The plain 8-4-4-4-12 form: the uuid format alone also admits `urn:uuid:…`. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
/** Years 0001 to 9999: the date-time format admits year 0000, which PostgreSQL does not. */
export const YEAR_PATTERN = '^(?!0000)[0-9]{4}-';
/** Text with something in it besides spaces, and no NUL (which PostgreSQL text cannot hold). */
export const TEXT_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';

const Uuid = (description: string) => Type.String({ format: 'uuid', pattern: UUID_PATTERN, description });
const Timestamp = (description: string) =>
  Type.String({
    format: 'date-time',
    pattern: YEAR_PATTERN,
    description: `${description} ISO 8601, UTC, to the millisecond.`,
  });
const Name = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, pattern: TEXT_PATTERN, description });
const Currency = (description: string) =>
  Type.String({ pattern: '^[A-Z]{3}$', description: `${description} ISO 4217 currency code.` });
/** Integer amounts in cents travel as strings: exact beyond 2^53, where JSON numbers are not. */
const CENTS_PATTERN = '^(0|[1-9][0-9]{0,17})$';
const Cents = (description: string) =>
  Type.String({
    pattern: CENTS_PATTERN,
    description: `${description} An integer number of cents, as a string.`,
  });
const Text = (description: string) => Name(10_000, description);

export const Fund = Type.Object(
  {
    id: Uuid('The fund.'),
    name: Name(500, "The fund's name."),
  },
  { $id: 'Fund', additionalProperties: false, description: 'A fund of the customer that holds the company.' },
);

export const Company = Type.Object(
  {
    id: Uuid('The company.'),
    legalName: Name(500, "The company's legal name."),
    createdAt: Timestamp('When the company was added.'),
    funds: Type.Array(ref(Fund), {
      description: 'The funds that hold the company, by name.',
      uniqueItems: true,
    }),
  },
  { $id: 'Company', additionalProperties: false, description: 'A portfolio company.' },
);

export const CompanyUpdate = Type.Object(
  {
    id: Uuid('The update.'),
    createdAt: Timestamp('When the update was added.'),
    updatedAt: Timestamp('When the update last changed.'),
    title: Name(500, 'The title of the update.'),
    updateDate: Timestamp('The date the update reports on.'),
    cashInBankAmountValue: Type.Number({ description: 'Cash in bank, in units of its currency.' }),
    cashInBankAmountCurrency: Currency('The currency of the cash in bank.'),
    productUpdatesSummary: nullable(Text('Product news.')),
    businessUpdatesSummary: nullable(Text('Business news.')),
    numberOfCustomers: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Customers at the update date.',
    }),
    hasNewRound: nullable(
      Type.Boolean({ description: 'Whether the company is raising or has raised a round.' }),
    ),
    newRoundDescription: nullable(Text('The round being raised.')),
    runwayInMonths: nullable(Type.Number({ minimum: 0, description: 'Months of runway left.' })),
    summary: nullable(Text('A summary of the update.')),
  },
  {
    $id: 'CompanyUpdate',
    additionalProperties: false,
    description: 'A periodic update a portfolio company reported.',
  },
);

export const INSTRUMENTS = [
  'common_equity',
  'preferred_equity',
  'safe',
  'convertible_note',
  'warrant',
  'debt',
  'other',
] as const;
export const INVESTMENT_STATUSES = ['active', 'exited', 'written_off'] as const;
export const VALUATION_TYPES = ['pre_money', 'post_money'] as const;

export const CompanyInvestment = Type.Object(
  {
    id: Uuid('The investment.'),
    date: Timestamp('When the investment was made.'),
    amountCents: Cents('The amount invested.'),
    amountCurrency: Currency('The currency of amountCents.'),
    unrealizedValueCents: Cents('The current unrealized value of the holding.'),
    unrealizedValueCurrency: Currency('The currency of unrealizedValueCents.'),
    fmvPerShareCurrency: Currency('The currency of fmvPerShareCents.'),
    costPerShareCurrency: Currency('The currency of costPerShareCents.'),
    roundSizeCurrency: Currency('The currency of roundSizeCents.'),
    valuationOrCapCurrency: Currency('The currency of valuationOrCapCents.'),
    round: nullable(Name(200, 'The round, e.g. "Series A".')),
    instrument: nullableEnum(INSTRUMENTS, 'The instrument invested through.'),
    shares: nullable(Type.Number({ minimum: 0, description: 'Shares acquired.' })),
    dilutedShares: nullable(Type.Number({ minimum: 0, description: 'Shares acquired, fully diluted.' })),
    fmvPerShareCents: nullable(Cents('Fair market value per share.')),
    costPerShareCents: nullable(Cents('Cost per share.')),
    discount: nullable(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description: 'Conversion discount, in percent (SAFEs, notes).',
      }),
    ),
    hasProRataRights: nullable(
      Type.Boolean({ description: 'Whether the investment carries pro-rata rights.' }),
    ),
    hasInformationRights: nullable(
      Type.Boolean({ description: 'Whether the investment carries information rights.' }),
    ),
    roundSizeCents: nullable(Cents('The size of the whole round.')),
    hasCap: nullable(Type.Boolean({ description: 'Whether a SAFE or note has a valuation cap.' })),
    valuationOrCapCents: nullable(Cents('The valuation of the round, or the cap of a SAFE or note.')),
    coInvestors: nullable(Text('Other investors in the round, as written by the customer.')),
    leadInvestor: nullable(Text('The lead investor of the round.')),
    isFollowOnInvestment: nullable(
      Type.Boolean({ description: 'Whether this follows an earlier investment.' }),
    ),
    investmentStatus: nullableEnum(
      INVESTMENT_STATUSES,
      'Whether the holding is active, exited or written off.',
    ),
    investmentReason: nullable(Text('Why the fund invested.')),
    valuationType: nullableEnum(VALUATION_TYPES, 'Whether valuationOrCapCents is pre- or post-money.'),
  },
  {
    $id: 'CompanyInvestment',
    additionalProperties: false,
    description: 'An investment of one of the customer funds in a portfolio company.',
  },
);

export type CompanyRecord = Static<typeof Company>;
export type CompanyUpdateRecord = Static<typeof CompanyUpdate>;
export type CompanyInvestmentRecord = Static<typeof CompanyInvestment>;

/** How a field is stored, which decides how it is read back out and written in. */
export type ColumnKind = 'uuid' | 'text' | 'timestamp' | 'cents' | 'number' | 'integer' | 'boolean';

export interface Column {
  column: string;
  kind: ColumnKind;
}

/** The kind of column a field's schema is stored in. */
function kindOf(schema: TSchema): ColumnKind {
  // A nullable field's type is a list: [its type, 'null'].
  const { type: given, format, pattern } = schema as { type?: unknown; format?: unknown; pattern?: unknown };
  const type = Array.isArray(given) ? (given as unknown[])[0] : given;
  if (type === 'number' || type === 'integer' || type === 'boolean') return type;
  if (format === 'uuid') return 'uuid';
  if (format === 'date-time') return 'timestamp';
  return pattern === CENTS_PATTERN ? 'cents' : 'text';
}

/**
 * The columns a record is stored in, read off its schema: each field in the snake_case column of its name, of
 * the kind its schema says (so a new field needs a column of that name, and nothing else).
 */
function columnsOf<T extends TObject>(schema: T): { [Field in keyof Static<T>]-?: Column } {
  return Object.fromEntries(
    Object.entries(schema.properties).map(([field, property]) => [
      field,
      { column: field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`), kind: kindOf(property) },
    ]),
  ) as { [Field in keyof Static<T>]-?: Column };
}

/** The columns of portfolio_updates, by field. */
export const UPDATE_COLUMNS = columnsOf(CompanyUpdate);

/** The columns of portfolio_investments, by field. */
export const INVESTMENT_COLUMNS = columnsOf(CompanyInvestment);

/** A stored timestamp as the API shows it: ISO 8601 in UTC, to the millisecond (as it is stored). */
export function isoTimestampSql(expression: string): string {
  return `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The SQL that reads a column out as the API shows the field. */
export function selectExpression(alias: string, field: string, { column, kind }: Column): string {
  const qualified = `${alias}.${column}`;
  const expression = {
    uuid: qualified,
    text: qualified,
    timestamp: isoTimestampSql(qualified),
    // As text: rows travel as JSON, where a bigint would become a number and lose digits beyond 2^53.
    cents: `${qualified}::text`,
    number: `${qualified}::float8`,
    integer: `${qualified}::float8`,
    boolean: qualified,
  }[kind];
  return `${expression} as "${field}"`;
}

/** The SQL type a field is written as. */
export const SQL_TYPES: Record<ColumnKind, string> = {
  uuid: 'uuid',
  text: 'text',
  timestamp: 'timestamptz',
  cents: 'bigint',
  number: 'float8',
  integer: 'bigint',
  boolean: 'boolean',
};

// The query parameters, path parameters, envelope and error body of the routes.

/** The most records a page holds. */
export const MAX_LIMIT = 200;
/** The records a page holds when the request does not say. */
export const DEFAULT_LIMIT = 50;

export const ListQuery = Type.Object(
  {
    // Any string: one that is not a cursor is refused as INVALID_CURSOR, like a changed one.
    cursor: Type.Optional(
      Type.String({ description: 'The nextCursor of the previous page. Leave it out for the first page.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LIMIT,
        default: DEFAULT_LIMIT,
        description: 'How many records a page holds at most: 1 to 200.',
      }),
    ),
    updatedSince: Type.Optional(
      Type.String({
        format: 'date-time',
        pattern: YEAR_PATTERN,
        description:
          'Only records added or changed at or after this time (ISO 8601 with a time zone): incremental sync.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListQueryValues = Static<typeof ListQuery>;

export const CompanyParams = Type.Object({ id: Uuid('The company.') }, { additionalProperties: false });

export function envelope<T extends TSchema>(item: T, id: string, description: string) {
  return Type.Object(
    {
      data: Type.Array(item, { description: 'The records of this page, in the order of the walk.' }),
      total: Type.Integer({
        minimum: 0,
        description: 'How many records the whole walk covers (the same on every page of one walk).',
      }),
      hasNextPage: Type.Boolean({ description: 'Whether another page follows.' }),
      nextCursor: nullable(
        Type.String({ description: 'Pass as cursor to get the next page; null on the last page.' }),
      ),
    },
    { $id: id, additionalProperties: false, description },
  );
}

export const ErrorBody = Type.Object(ErrorAnswer.properties, {
  $id: 'Error',
  additionalProperties: false,
  description: 'Every error answer has this shape.',
});
