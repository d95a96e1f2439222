import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { AppError, describeError, ERROR_STATUS, quote, type ErrorCode } from '../../src/errors.ts';

/** The rows of the table in docs/errors.md: code → the status column as written. */
async function documentedCodes(): Promise<Map<string, string>> {
  const text = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, string>();
  for (const match of text.matchAll(/^\| `([A-Z_]+)` +\| ([^|]+)\|/gm)) {
    rows.set(match[1] ?? '', (match[2] ?? '').trim());
  }
  return rows;
}

describe('the error catalogue', () => {
  it('documents every code in docs/errors.md with the status it answers', async () => {
    const documented = await documentedCodes();
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(documented.has(code), `${code} is missing from docs/errors.md`).toBe(true);
      expect(documented.get(code), `the status of ${code} in docs/errors.md`).toMatch(
        new RegExp(`^${status}\\b`),
      );
    }
    // And documents no code that does not exist.
    for (const code of documented.keys()) expect(Object.keys(ERROR_STATUS)).toContain(code);
  });

  it('shows an AppError as it is, with its Retry-After, and masks anything else', () => {
    const limited = describeError(
      new AppError('RATE_LIMITED', 'slow down', { limit: 5 }, { retryAfterSeconds: 7 }),
    );
    expect(limited).toEqual({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'slow down',
      details: { limit: 5 },
      retryAfterSeconds: 7,
      expected: true,
    });
    const masked = describeError(new Error('connection string postgres://secret@db'));
    expect(masked.code).toBe<ErrorCode>('INTERNAL_SERVER_ERROR');
    expect(masked.message).not.toContain('secret');
    expect(masked.expected).toBe(false);
  });

  it("keeps the status of Fastify's own client errors under a code of the catalogue, never a 5xx one", () => {
    const tooLarge = describeError(
      Object.assign(new Error('Request body is too large'), {
        statusCode: 413,
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      }),
    );
    expect(tooLarge).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, expected: true });
    expect(tooLarge.message).toBe('The body is larger than this API accepts.');
    const unknown500 = describeError(Object.assign(new Error('boom'), { statusCode: 500 }));
    expect(unknown500).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', expected: false });
  });
});

describe('quote', () => {
  it('shows a short value whole and a long one by its start and its length', () => {
    expect(quote('abc')).toBe('"abc"');
    expect(quote('x'.repeat(1000))).toBe(`"${'x'.repeat(40)}…" (1000 characters)`);
    expect(quote({ key: 'v'.repeat(100) }, 10)).toBe('{"key":"vv… (110 characters)');
    expect(quote(42)).toBe('42');
    expect(quote(undefined)).toBe('undefined');
  });

  it('escapes control characters and unpaired surrogates instead of echoing them', () => {
    expect(quote('a\u0000b')).toBe('"a\\u0000b"');
    expect(quote('a\ud800b')).toBe('"a\\ud800b"');
  });
});
