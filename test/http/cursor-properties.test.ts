// Every route of both services that takes a cursor or a date-time from a client, fed generated values: strings of
// anything, cursors of the right encoding with a field changed (an impossible time, a sequence past `bigint`, another
// list), and date-times at and past the edges of what PostgreSQL and JavaScript hold. No answer may be a 5xx: a
// value the route cannot use is the client's mistake, a 400 that names the parameter. Runs are seeded: a failure
// names its seed, and `PROPERTY_SEED=<seed>` replays it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { CONSOLE_SESSION_COOKIE } from '../../src/transactions/console/console.ts';
import { CONSOLE_API_PATH } from '../../src/transactions/console/links.ts';
import { readDateTime } from '../../src/validation/date-time.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { Browser, createPerson } from '../support/data/dashboard.ts';
import { DIALECT } from '../support/db/database.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { companiesUrl, createTestPortfolio, investmentsUrl, updatesUrl } from '../support/data/portfolio.ts';
import { organizationStory } from '../support/data/stories.ts';
import { graphql, testDatabaseAndFiles } from '../support/data/transactions.ts';

const SEED =
  process.env.PROPERTY_SEED === undefined
    ? Math.floor(Math.random() * 2 ** 31)
    : Number(process.env.PROPERTY_SEED);
/** Generated values per route: a few seconds each on PGlite. */
const RUNS = 120;

const world = madeBeforeAll('the services and their data', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  // Two transactions: a page of one has a cursor; the sent one has a link whose expiry can be set.
  const story = await organizationStory(db, files, { transactions: ['created', 'sent'] });
  const mailDataDir = await mkdtemp(join(tmpdir(), 'portico-cursor-properties-'));
  closeAfterAll(() => rm(mailDataDir, { recursive: true, force: true }));
  const mailer = createMailer(
    { dataDir: mailDataDir, smtpUrl: undefined, mailFrom: 'Portico <no-reply@localhost>' },
    pino({ level: 'silent' }),
  );
  const transactions = await buildTransactionsApp({
    db,
    files,
    environment: 'staging',
    trustProxy: true,
    console: { mailer, transactionsUrl: () => 'https://transactions.test' },
  });
  closeAfterAll(() => transactions.close());
  const portfolio = await buildPortfolioApp({ db });
  closeAfterAll(() => portfolio.close());

  const admin = await createPerson(db, {
    tenant: { kind: 'organization', id: story.organizationId },
    role: 'admin',
  });
  const page = await new Browser(transactions, undefined, {
    apiPath: CONSOLE_API_PATH,
    cookie: CONSOLE_SESSION_COOKIE,
  }).signInOrThrow({ email: admin.email, password: admin.password });
  const { endpoint } = await createEndpoint(db, {
    organizationId: story.organizationId,
    url: 'http://127.0.0.1:9/hooks',
    eventTypes: ['transaction.state_changed'],
    allowInsecure: true,
  });
  const holdings = await createTestPortfolio(db, { companies: 3 });

  // A real cursor of each list, whose fields the generators change one at a time.
  const queue = await page.get(`${CONSOLE_API_PATH}/queue?first=1`);
  const queueCursor = (queue.body as { nextCursor: string | null }).nextCursor;
  const listed = await graphql(transactions, story.apiKey, TRANSACTIONS_PAGE, { after: null });
  const graphqlCursor = (
    listed.body.data as { viewer: { transactions: { pageInfo: { endCursor: string | null } } } }
  ).viewer.transactions.pageInfo.endCursor;
  const companies = await portfolio.inject({
    url: companiesUrl({ limit: 1 }),
    headers: { authorization: holdings.apiKey },
  });
  const portfolioCursor = companies.json<{ nextCursor: string | null }>().nextCursor;
  if (queueCursor === null || graphqlCursor === null || portfolioCursor === null) {
    throw new Error('a first page of one had no cursor: the lists need two rows or more');
  }
  return {
    transactions,
    portfolio,
    page,
    story,
    endpointId: endpoint.id,
    holdings,
    sentId: story.transactions[1]?.id ?? '',
    queueCursor,
    graphqlCursor,
    portfolioCursor,
  };
});

const TRANSACTIONS_PAGE = `query ($after: String) {
  viewer { transactions(first: 1, after: $after) { pageInfo { endCursor } } }
}`;
const RESEND_SINCE = `mutation ($endpointId: uuid!, $since: datetime!) {
  resendFailedWebhookDeliveries(input: { endpointId: $endpointId, since: $since }) { count }
}`;

// Generators ---------------------------------------------------------------------------------------------

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** Date-times written from their parts, each part one step past its range at times (month 13, hour 24, second 60). */
const dateTimeFromParts = (options: { fraction: fc.Arbitrary<string>; zone: fc.Arbitrary<string> }) =>
  fc
    .record({
      year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 1970, 2024, 2026, 9999)),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 24 }),
      minute: fc.integer({ min: 0, max: 60 }),
      second: fc.integer({ min: 0, max: 60 }),
      fraction: options.fraction,
      zone: options.zone,
    })
    .map(
      (parts) =>
        `${pad(parts.year, 4)}-${pad(parts.month, 2)}-${pad(parts.day, 2)}T${pad(parts.hour, 2)}:${pad(parts.minute, 2)}:${pad(parts.second, 2)}${parts.fraction}${parts.zone}`,
    );

const offset = fc
  .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }))
  .map(([sign, hours, minutes]) => `${sign}${pad(hours, 2)}:${pad(minutes, 2)}`);

/** Date-times at the edges: leap seconds, year 0000, one millisecond past 9999 by an offset, forms the format admits. */
const EDGE_DATE_TIMES = [
  '2016-12-31T23:59:60Z',
  '2026-06-30T23:59:60Z',
  '2026-06-30T23:59:60.999999Z',
  '2026-07-01T01:59:60+02:00',
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00Z',
  '0001-01-01T00:00:00+00:01',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999-00:01',
  '9999-12-31T23:00:00-23:59',
  '2026-02-29T00:00:00Z',
  '2024-02-29T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-01-31T24:00:00Z',
  '2026-01-31T23:60:00Z',
  '2026-01-31 09:30:00Z',
  '2026-01-31t09:30:00z',
  '2026-01-31T09:30:00+0100',
  '2026-01-31T09:30:00+01',
  '2026-01-31T09:30:00.1234567890123Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-01-31',
  '1700000000',
  '',
];

/** Anything a client might send where a date-time goes. */
const dateTimeText = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_DATE_TIMES), weight: 3 },
  {
    arbitrary: dateTimeFromParts({
      fraction: fc.oneof(fc.constant(''), fc.stringMatching(/^\.\d{1,9}$/)),
      zone: fc.oneof(fc.constant('Z'), offset),
    }),
    weight: 4,
  },
  { arbitrary: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()), weight: 1 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }), weight: 1 },
);

/** A cursor's sequence: near the edges of `bigint`, and things that are not whole numbers. */
const sequenceText = fc.oneof(
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 65n }).map(String),
  fc.constantFrom(
    '9223372036854775807',
    '9223372036854775808',
    '18446744073709551616',
    '99999999999999999999',
    '0',
    '-1',
    '00000000000000000001',
    '1e3',
    '1.5',
    ' 1',
    '',
  ),
  fc.string({ maxLength: 25 }),
);

/** Any JSON value, for a cursor field of the wrong type. */
const anyJson = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 10 }));

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/** A cursor's text changed: one character replaced, cut short, made longer, or far too long. */
const mutatedCursor = (cursor: string) =>
  fc.oneof(
    fc
      .tuple(
        fc.nat({ max: cursor.length - 1 }),
        fc.constantFrom('A', 'a', '0', '_', '-', '.', '=', '+', '/', ' ', '%'),
      )
      .map(([at, char]) => `${cursor.slice(0, at)}${char}${cursor.slice(at + 1)}`),
    fc.nat({ max: cursor.length - 1 }).map((length) => cursor.slice(0, length)),
    fc.string({ maxLength: 8 }).map((tail) => `${cursor}${tail}`),
    fc
      .integer({ min: 290, max: 1200 })
      .map((length) => cursor.repeat(Math.ceil(length / cursor.length)).slice(0, length)),
  );

/** Strings that are no cursor at all. */
const notACursor = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
  fc.json({ maxDepth: 2 }).map(base64url),
);

/** Queue cursors: the real one's encoding, with its version, list, time and sequence changed one by one. */
function queueCursors(real: string): fc.Arbitrary<string> {
  const [version, list, time, sequence] = JSON.parse(Buffer.from(real, 'base64url').toString()) as unknown[];
  const microsecondTime = dateTimeFromParts({
    fraction: fc.stringMatching(/^\.\d{6}$/),
    zone: fc.constant('Z'),
  });
  const fields = fc.tuple(
    fc.oneof({ arbitrary: fc.constant(version), weight: 8 }, { arbitrary: anyJson, weight: 1 }),
    fc.oneof({ arbitrary: fc.constant(list), weight: 8 }, { arbitrary: anyJson, weight: 1 }),
    fc.oneof(
      { arbitrary: fc.constant(time), weight: 2 },
      { arbitrary: microsecondTime, weight: 5 },
      { arbitrary: dateTimeText, weight: 2 },
      { arbitrary: anyJson, weight: 1 },
    ),
    fc.oneof(
      { arbitrary: fc.constant(sequence), weight: 2 },
      { arbitrary: sequenceText, weight: 5 },
      { arbitrary: anyJson, weight: 1 },
    ),
  );
  const encoded = fc.oneof(
    { arbitrary: fields.map((values) => base64url(JSON.stringify(values))), weight: 6 },
    // A field too few or too many.
    { arbitrary: fields.map((values) => base64url(JSON.stringify(values.slice(0, 3)))), weight: 1 },
    { arbitrary: fields.map((values) => base64url(JSON.stringify([...values, 0]))), weight: 1 },
  );
  return fc.oneof(
    { arbitrary: encoded, weight: 6 },
    { arbitrary: mutatedCursor(real), weight: 2 },
    { arbitrary: notACursor, weight: 2 },
  );
}

/** GraphQL cursors: base64url of the last row's id, so ids of every shape, and anything else. */
function graphqlCursors(real: string): fc.Arbitrary<string> {
  const id = Buffer.from(real, 'base64url').toString();
  const ids = fc.oneof(
    fc.uuid(),
    fc.constantFrom(id.toUpperCase(), `${id} `, id.slice(1), '00000000-0000-0000-0000-000000000000'),
    fc.stringMatching(/^[0-9a-fA-F-]{30,40}$/),
  );
  return fc.oneof(ids.map(base64url), mutatedCursor(real), notACursor);
}

/** `value` with each lone surrogate replaced: one cannot be sent in a URL. */
const wellFormed = (value: string) => value.replace(/\p{Cs}/gu, '\uFFFD');
/** The query text of `value`. */
const inQuery = (value: string) => encodeURIComponent(wellFormed(value));

// What an answer may be ----------------------------------------------------------------------------------

/** The codes a refused cursor or date-time may get. */
const REFUSALS = ['BAD_USER_INPUT', 'INVALID_CURSOR'];

/**
 * What is wrong with a JSON route's answer to `value` in `parameter`: a 5xx, or a 4xx whose code is not a
 * refusal of the input or that does not name the parameter.
 */
function problemOf(
  answer: { status: number; body: unknown },
  parameter: string,
  value: unknown,
): string | undefined {
  const shown = `${JSON.stringify(value).slice(0, 200)} → ${String(answer.status)} ${JSON.stringify(answer.body).slice(0, 300)}`;
  if (answer.status >= 500) return `a server error for ${shown}`;
  if (answer.status < 400) return undefined;
  const error = (
    answer.body as
      { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined
  )?.error;
  if (answer.status !== 400 || !REFUSALS.includes(error?.code ?? '')) return `not a 400 refusal: ${shown}`;
  // Named in the message, or in `details` where the domain words it as a person would ("the link").
  const named =
    (error?.message?.includes(parameter) ?? false) ||
    error?.details?.field === parameter ||
    error?.details?.parameter === parameter;
  return named ? undefined : `a refusal that does not name "${parameter}": ${shown}`;
}

/** Checks `property` over `values` with the file's seed, `RUNS` times. */
async function holdsFor<T>(values: fc.Arbitrary<T>, check: (value: T) => Promise<string | undefined>) {
  await fc.assert(
    fc.asyncProperty(values, async (value) => {
      expect(await check(value), `PROPERTY_SEED=${String(SEED)} replays this run`).toBeUndefined();
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
}

describe(`cursors and date-times a client sends, generated (${DIALECT})`, () => {
  it('answers every value of the console queue’s "after" with a page or a 400 naming it, never a 5xx', async () => {
    await holdsFor(queueCursors(world.queueCursor), async (after) => {
      const answer = await world.page.get(`${CONSOLE_API_PATH}/queue?first=1&after=${inQuery(after)}`);
      return problemOf(answer, 'after', after);
    });
  });

  it('answers every value of the team activity’s "before" with a page or a 400 naming it, never a 5xx', async () => {
    await holdsFor(dateTimeText, async (before) => {
      const answer = await world.page.get(`${CONSOLE_API_PATH}/team/activity?before=${inQuery(before)}`);
      return problemOf(answer, 'before', before);
    });
  });

  it('answers every value of a link’s "expiresAt" with the new expiry or a 400 naming it, never a 5xx', async () => {
    const values = fc.oneof(dateTimeText, anyJson, fc.constant([EDGE_DATE_TIMES[0]]));
    await holdsFor(values, async (expiresAt) => {
      const answer = await world.page.request(
        'PUT',
        `${CONSOLE_API_PATH}/transactions/${world.sentId}/link-expiry`,
        { expiresAt },
      );
      return problemOf(answer, 'expiresAt', expiresAt);
    });
  });

  it('answers every GraphQL "after" cursor and "since" time with data or BAD_USER_INPUT, never a server error', async () => {
    const graphqlProblem = (answer: Awaited<ReturnType<typeof graphql>>, value: string) => {
      const codes = (answer.body.errors ?? []).map((error) => error.extensions.code);
      const shown = `${JSON.stringify(value)} → ${String(answer.status)} ${JSON.stringify(answer.body).slice(0, 300)}`;
      if (answer.status >= 500) return `a server error for ${shown}`;
      return codes.every((code) => code === 'BAD_USER_INPUT' || code === 'NOT_FOUND')
        ? undefined
        : `not BAD_USER_INPUT: ${shown}`;
    };
    await holdsFor(graphqlCursors(world.graphqlCursor), async (after) =>
      graphqlProblem(
        await graphql(world.transactions, world.story.apiKey, TRANSACTIONS_PAGE, { after }),
        after,
      ),
    );
    await holdsFor(dateTimeText, async (since) =>
      graphqlProblem(
        await graphql(world.transactions, world.story.apiKey, RESEND_SINCE, {
          endpointId: world.endpointId,
          since,
        }),
        since,
      ),
    );
  });

  it('answers every Portfolio list’s "cursor" and "updatedSince" with a page or a 400 naming it, never a 5xx', async () => {
    const { holdings } = world;
    const lists = [
      companiesUrl,
      (query: Record<string, string>) => updatesUrl(holdings.companyId, query),
      (query: Record<string, string>) => investmentsUrl(holdings.companyId, query),
    ];
    const get = async (url: string) => {
      const response = await world.portfolio.inject({ url, headers: { authorization: holdings.apiKey } });
      return { status: response.statusCode, body: response.json<unknown>() };
    };
    await holdsFor(
      fc.tuple(fc.constantFrom(...lists), fc.oneof(mutatedCursor(world.portfolioCursor), notACursor)),
      async ([list, cursor]) => problemOf(await get(list({ cursor: wellFormed(cursor) })), 'cursor', cursor),
    );
    await holdsFor(fc.tuple(fc.constantFrom(...lists), dateTimeText), async ([list, updatedSince]) =>
      problemOf(await get(list({ updatedSince: wellFormed(updatedSince) })), 'updatedSince', updatedSince),
    );
  });
});

describe(`a forged cursor or an impossible date-time, as the campaign sent them (${DIALECT})`, () => {
  /** The real queue cursor with its time or sequence replaced. */
  const forgedQueueCursor = (change: { time?: string; sequence?: string }) => {
    const [version, list, time, sequence] = JSON.parse(
      Buffer.from(world.queueCursor, 'base64url').toString(),
    ) as unknown[];
    return base64url(JSON.stringify([version, list, change.time ?? time, change.sequence ?? sequence]));
  };

  it.each([
    ['an impossible date', { time: '2026-02-30T00:00:00.000000Z' }],
    ['a leap second', { time: '2026-06-30T23:59:60.000000Z' }],
    ['year 0000', { time: '0000-01-01T00:00:00.000000Z' }],
    ['a sequence one above bigint', { sequence: '9223372036854775808' }],
    ['a sequence of 19 nines', { sequence: '9999999999999999999' }],
  ])('refuses a queue cursor with %s as INVALID_CURSOR naming "after"', async (_, change) => {
    const answer = await world.page.get(
      `${CONSOLE_API_PATH}/queue?first=1&after=${forgedQueueCursor(change)}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        code: 'INVALID_CURSOR',
        message: 'The queue cursor in "after" is damaged: pass the nextCursor of the previous page as it is.',
        details: { field: 'after' },
      },
    });
  });

  it('goes on from a queue cursor whose sequence is the largest bigint', async () => {
    const answer = await world.page.get(
      `${CONSOLE_API_PATH}/queue?first=1&after=${forgedQueueCursor({ sequence: '9223372036854775807' })}`,
    );
    expect(answer.status).toBe(200);
  });

  it.each([
    ['2026-06-30T23:59:60Z', 'must be a date and time that exists'],
    ['2026-02-29T12:00:00Z', 'must be an ISO 8601 date and time'],
    ['0000-01-01T00:00:00Z', 'must fall in the years 0001 to 9999 (UTC)'],
    ['9999-12-31T23:59:59-01:00', 'must fall in the years 0001 to 9999 (UTC)'],
  ])('refuses team activity before=%s as BAD_USER_INPUT: "before" %s', async (before, said) => {
    const answer = await world.page.get(`${CONSOLE_API_PATH}/team/activity?before=${inQuery(before)}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: { code: 'BAD_USER_INPUT', details: { field: 'before' } },
    });
    expect((answer.body as { error: { message: string } }).error.message).toMatch(
      new RegExp(`^The query parameter "before" ${said.replace(/[()]/g, '\\$&')}`),
    );
  });

  it('reads team activity before a time with an offset as the instant it names', async () => {
    const answer = await world.page.get(
      `${CONSOLE_API_PATH}/team/activity?before=${inQuery('2999-01-01T00:00:00+05:00')}`,
    );
    expect(answer.status).toBe(200);
  });

  it('refuses a link expiry at a leap second as BAD_USER_INPUT naming "expiresAt"', async () => {
    const answer = await world.page.request(
      'PUT',
      `${CONSOLE_API_PATH}/transactions/${world.sentId}/link-expiry`,
      { expiresAt: '2026-12-31T23:59:60Z' },
    );
    expect(answer.body).toMatchObject({
      error: {
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(/^The field "expiresAt" must be a date and time that exists/),
        details: { field: 'expiresAt' },
      },
    });
  });

  it('refuses a Portfolio updatedSince at a leap second, saying it must exist', async () => {
    const response = await world.portfolio.inject({
      url: companiesUrl({ updatedSince: '2016-12-31T23:59:60Z' }),
      headers: { authorization: world.holdings.apiKey },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: {
        code: 'BAD_USER_INPUT',
        message: expect.stringMatching(
          /^The query parameter "updatedSince" must be a date and time that exists/,
        ),
        details: { parameter: 'updatedSince' },
      },
    });
  });
});

describe('readDateTime', () => {
  it.each([
    ['2026-01-31T09:30:00+01:00', '2026-01-31T08:30:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0000-12-31T23:00:00-01:00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999Z'],
    ['2026-01-31 09:30:00.5+0130', '2026-01-31T08:00:00.500Z'],
  ])('reads %s as the instant %s', (text, instant) => {
    const read = readDateTime(text);
    expect(read instanceof Date ? read.toISOString() : read).toBe(instant);
  });

  it.each([
    ['2026-02-30T00:00:00Z', 'exists'],
    ['2026-01-31T24:00:00Z', 'exists'],
    ['2026-06-30T23:59:60Z', 'exists'],
    ['2026-01-31T09:30:00+24:00', 'exists'],
    ['0000-01-01T00:00:00Z', 'range'],
    ['9999-12-31T23:59:59.999-00:01', 'range'],
    ['2026-01-31', 'form'],
    ['2026-01-31T09:30:00', 'form'],
    ['+275760-09-13T00:00:00Z', 'form'],
  ])('refuses %s: %s', (text, problem) => {
    expect(readDateTime(text)).toBe(problem);
  });
});
