import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Environment } from '../config.ts';

/**
 * Transactions API keys: `sk_test_` (staging) or `sk_live_` (production), then 32 base62 characters of
 * randomness (190 bits) and a 6-character base62 CRC-32 of everything before it, so that a mistyped key is
 * rejected without a database lookup (the scheme GitHub uses for its tokens).
 *
 * @example
 * const key = generateApiKey('staging'); // 'sk_test_4eC39HqLyjWDarjtT1zdp7dc0rKVoB1XyZ3Hk9'
 * parseApiKey(key); // { ok: true, environment: 'staging', … }
 */
const PREFIXES = { staging: 'sk_test_', production: 'sk_live_' } as const satisfies Record<
  Environment,
  string
>;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^sk_(test|live)_([0-9A-Za-z]{38})$/;
/** The Portfolio service's keys: one kind, no environments. */
export const PORTFOLIO_KEY_PREFIX = 'pfk_';
const PORTFOLIO_KEY_PATTERN = /^pfk_[0-9A-Za-z]{38}$/;

function toBase62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = (ALPHABET[rest % 62] ?? '0') + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62] ?? '';
    }
  }
  return out;
}

function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

/** The prefix of the environment's Transactions keys: `sk_test_` for staging, `sk_live_` for production. */
export function keyPrefixFor(environment: Environment): string {
  return PREFIXES[environment];
}

function generateKey(prefix: string): string {
  const body = prefix + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

function checksumMatches(key: string): boolean {
  return checksum(key.slice(0, -CHECKSUM_LENGTH)) === key.slice(-CHECKSUM_LENGTH);
}

/**
 * A new random Transactions API key for the environment. Only its `hashApiKey` and `displayPrefix` are
 * stored (see `createApiKey`).
 */
export function generateApiKey(environment: Environment): string {
  return generateKey(PREFIXES[environment]);
}

/** A Portfolio API key: `pfk_` and the same 38 characters as a Transactions key. */
export function generatePortfolioKey(): string {
  return generateKey(PORTFOLIO_KEY_PREFIX);
}

/**
 * What `parseApiKey` makes of a string: a Transactions key and its environment, or why it is not one
 * (`malformed`: not the form of a key; `checksum`: the form, but the last 6 characters do not match, as
 * with a mistyped key).
 */
export type ParsedApiKey =
  { ok: true; key: string; environment: Environment } | { ok: false; reason: 'malformed' | 'checksum' };

/** Checks a key's form and checksum, without any lookup. */
export function parseApiKey(key: string): ParsedApiKey {
  const match = KEY_PATTERN.exec(key);
  if (!match) return { ok: false, reason: 'malformed' };
  if (!checksumMatches(key)) return { ok: false, reason: 'checksum' };
  return { ok: true, key, environment: match[1] === 'live' ? 'production' : 'staging' };
}

/** Checks a Portfolio key's form and checksum, without any lookup. */
export function checkPortfolioKey(key: string): 'ok' | 'malformed' | 'checksum' {
  if (!PORTFOLIO_KEY_PATTERN.test(key)) return 'malformed';
  return checksumMatches(key) ? 'ok' : 'checksum';
}

/** What is stored of a key: the SHA-256 of the whole key. */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** What may be shown of a key in lists and logs: its prefix and the first 4 characters of its secret. */
export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}
