import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { createOrganization, getOrganizationByHandle } from '../../src/transactions/organizations.ts';
import { checkEndpointUrl, eventTypeOf } from '../../src/webhooks/endpoints.ts';
import { graphql } from '../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite();
/** Every request here is refused before it writes anything, so the tests share one organization. */
let demo: EmptyTenant;

beforeAll(async () => {
  demo = await suite.emptyTenant();
});

/** The one error of a response that failed as a whole. */
function onlyError(body: {
  data?: unknown;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}) {
  expect(body.data ?? null).toBeNull();
  expect(body.errors).toHaveLength(1);
  const [error] = body.errors ?? [];
  if (!error) throw new Error('no error');
  return error;
}

/** What a thrown AppError says. */
function thrownBy(work: () => unknown): AppError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('nothing was thrown');
}

const RESEND = (since: string) =>
  `mutation { resendFailedWebhookDeliveries(input: {
     endpointId: "00000000-0000-4000-8000-000000000000", since: "${since}" }) { count } }`;

/** The message of resending failed deliveries since `since`, which must be refused as BAD_USER_INPUT. */
async function refusedSince(since: string): Promise<string> {
  const error = onlyError((await graphql(suite.app, demo.apiKey, RESEND(since))).body);
  expect(error.extensions.code).toBe('BAD_USER_INPUT');
  return error.message;
}

const PAGE = 'query ($first: Int) { viewer { transactions(first: $first) { totalCount } } }';

const LINK = `mutation ($id: uuid!, $seconds: Int) {
  genTransactionFileLink(input: { transactionFileId: $id, expiresInSeconds: $seconds }) { url }
}`;

describe('values that messages show', () => {
  it('shows only the beginning of a long text sent as a UUID', async () => {
    const { status, body } = await graphql(
      suite.app,
      demo.apiKey,
      `{ transaction(id: "${'x'.repeat(10_000)}") { id } }`,
    );
    expect(status).toBe(400);
    const error = onlyError(body);
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe(
      `"${'x'.repeat(40)}…" (10000 characters) is not a UUID (expected e.g. 3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e)`,
    );
  });

  it('shows a date-time that is not one short, with its control characters escaped', async () => {
    const { body } = await graphql(suite.app, demo.apiKey, RESEND(`soon\\u001b${'y'.repeat(5_000)}`));
    const error = onlyError(body);
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
    expect(error.message).toMatch(/^"soon\\u001by+…" \(5005 characters\) is not an RFC 3339 date-time/);
    expect(error.message).not.toContain('y'.repeat(41));
  });

  it('shows only the beginning of a webhook URL that is not one, or of an unknown event type', () => {
    const url = thrownBy(() => checkEndpointUrl(`not a url ${'u'.repeat(1_500)}`, { allowInsecure: false }));
    expect(url).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(url.message).toMatch(/^"not a url u+…" \(1510 characters\) is not a URL\.$/);
    const type = thrownBy(() => eventTypeOf(`TRANSACTION_${'Z'.repeat(5_000)}`));
    expect(type.message).toMatch(
      /^"TRANSACTION_Z+…" \(5012 characters\) is not an event type: one of TRANSACTION_COMPLETED, /,
    );
  });

  it('shows only the beginning of an organization handle that is refused or unknown', async () => {
    const handle = `Not-A-Handle-${'h'.repeat(1_000)}`;
    await expect(createOrganization(suite.db, { handle, name: 'N' })).rejects.toThrow(
      /^handle "Not-A-Handle-h+…" \(1013 characters\) must be 2–63 lower-case letters/,
    );
    await expect(getOrganizationByHandle(suite.db, handle)).rejects.toThrow(
      /^There is no organization with handle "Not-A-Handle-h+…" \(1013 characters\)\.$/,
    );
  });
});

describe('texts longer than they may be', () => {
  it('refuses a webhook URL over 2,048 characters and a description over 500, naming the field', async () => {
    const long = thrownBy(() =>
      checkEndpointUrl(`https://hooks.example.com/${'p'.repeat(2_048)}`, { allowInsecure: false }),
    );
    expect(long).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'url' } });
    expect(long.message).toBe('A webhook URL has at most 2048 characters.');
    const described = await graphql(
      suite.app,
      demo.apiKey,
      `
        mutation ($input: CreateWebhookEndpointInput!) {
          createWebhookEndpoint(input: $input) {
            secret
          }
        }
      `,
      {
        input: {
          url: 'https://hooks.example.com/',
          description: 'd'.repeat(501),
          eventTypes: ['TRANSACTION_COMPLETED'],
        },
      },
    );
    const error = onlyError(described.body);
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'description' });
    expect(error.message).toBe("A webhook endpoint's description has at most 500 characters.");
  });

  it('refuses an organization name over 200 characters', async () => {
    await expect(
      createOrganization(suite.db, { handle: `long-${Date.now()}`, name: 'N'.repeat(201) }),
    ).rejects.toThrow('A name has at most 200 characters.');
  });
});

describe('date-times the database can hold', () => {
  it.each([
    ['0001-01-01T00:00:00Z', 'the first instant of year 1'],
    ['9999-12-31T23:59:59.999Z', 'the last millisecond of year 9999'],
    ['2024-02-29T12:00:00+05:30', 'a leap day, with an offset'],
    ['2026-11-22t09:30:00.123456789z', 'lower-case separators and nanoseconds'],
  ])('accepts %s (%s) and hands it to the database', async (since) => {
    const { body } = await graphql(suite.app, demo.apiKey, RESEND(since));
    expect(body.errors).toBeUndefined();
    expect(body.data?.resendFailedWebhookDeliveries).toEqual({ count: 0 });
  });

  /** Why a date-time is refused, and what the refusal says of it. */
  const OUTSIDE = 'outside the years 0001 to 9999';
  const NOT_RFC_3339 = 'not an RFC 3339 date-time';
  const NONEXISTENT = 'a date and time that does not exist';
  const REFUSALS: Record<string, (since: string) => string | RegExp> = {
    [OUTSIDE]: (since) => `"${since}" is outside the years 0001 to 9999 (UTC) that date-times may fall in`,
    [NOT_RFC_3339]: () => /is not an RFC 3339 date-time/,
    [NONEXISTENT]: (since) =>
      `"${since}" is not a date and time that exists (expected e.g. 2026-11-22T09:30:00Z)`,
  };

  it.each([
    ['0000-01-01T00:00:00Z', 'year 0', OUTSIDE],
    ['0000-12-31T23:59:59.999Z', 'the last instant before year 1', OUTSIDE],
    ['0001-01-01T00:00:00+00:01', 'year 1 by its offset but year 0 in UTC', OUTSIDE],
    ['9999-12-31T23:59:59-00:01', 'year 9999 by its offset but year 10000 in UTC', OUTSIDE],
    ['+010000-01-01T00:00:00Z', 'a six-digit year', NOT_RFC_3339],
    ['10000-01-01T00:00:00Z', 'a five-digit year', NOT_RFC_3339],
    ['2026-11-22T09:30:00.1234567890Z', 'a fraction finer than nanoseconds', NOT_RFC_3339],
    ['2026-11-22T09:30:00', 'no offset', NOT_RFC_3339],
    ['2026-11-22 09:30:00Z', 'a space for the T', NOT_RFC_3339],
    ['2026-02-29T00:00:00Z', 'February 29 of a common year', NONEXISTENT],
    ['2026-02-30T00:00:00Z', 'February 30, which Date would turn into March 2', NONEXISTENT],
    ['2026-04-31T00:00:00Z', 'April 31', NONEXISTENT],
    ['2026-13-01T00:00:00Z', 'month 13', NONEXISTENT],
    ['2026-00-10T00:00:00Z', 'month 0', NONEXISTENT],
    ['2026-01-00T00:00:00Z', 'day 0', NONEXISTENT],
    ['2026-01-01T24:00:00Z', 'hour 24, which Date would turn into the next day', NONEXISTENT],
    ['2026-01-01T23:60:00Z', 'minute 60', NONEXISTENT],
    ['2026-01-01T23:59:60Z', 'second 60', NONEXISTENT],
    ['2026-01-01T00:00:00+24:00', 'an offset of 24 hours', NONEXISTENT],
    ['2026-01-01T00:00:00+05:60', 'an offset of 60 minutes', NONEXISTENT],
  ])('refuses %s (%s) as %s', async (since, _why, refusal) => {
    const expected = REFUSALS[refusal]?.(since);
    const message = await refusedSince(since);
    if (expected instanceof RegExp) expect(message).toMatch(expected);
    else expect(message).toBe(expected);
  });
});

describe('numbers the database cannot hold', () => {
  it.each([
    ['above 32 bits', 1e20],
    ['a fraction', 1.5],
    ['negative', -1],
    ['zero', 0],
    ['above the page size', 101],
  ])('refuses a page size %s as BAD_USER_INPUT', async (_, first) => {
    const error = onlyError((await graphql(suite.app, demo.apiKey, PAGE, { first })).body);
    expect(error.extensions.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a number too large for a double, which JSON reads as Infinity, as BAD_USER_INPUT', async () => {
    const response = await suite.app.inject({
      method: 'POST',
      url: '/beta',
      headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
      payload: `{"query": ${JSON.stringify(PAGE)}, "variables": {"first": 1e400}}`,
    });
    expect(response.statusCode).toBe(400);
    expect(onlyError(response.json()).extensions.code).toBe('BAD_USER_INPUT');
  });

  it.each([
    ['the largest 32-bit integer', 2 ** 31 - 1, 'expiresInSeconds'],
    ['negative', -60, 'expiresInSeconds'],
  ])('refuses a link lifetime that is %s, naming the field', async (_, seconds, field) => {
    const { body } = await graphql(suite.app, demo.apiKey, LINK, {
      id: '00000000-0000-4000-8000-000000000000',
      seconds,
    });
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  });

  it('refuses a link lifetime above 32 bits before looking for the file', async () => {
    const { body } = await graphql(suite.app, demo.apiKey, LINK, {
      id: '00000000-0000-4000-8000-000000000000',
      seconds: 2 ** 40,
    });
    expect(onlyError(body).extensions.code).toBe('BAD_USER_INPUT');
  });
});
