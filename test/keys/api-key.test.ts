import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  keyPrefixFor,
  parseApiKey,
} from '../../src/keys/api-key.ts';

describe('API key format', () => {
  it('starts staging keys with sk_test_ and production keys with sk_live_, then 38 letters and digits', () => {
    expect(generateApiKey('staging')).toMatch(/^sk_test_[0-9A-Za-z]{38}$/);
    expect(generateApiKey('production')).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    expect(keyPrefixFor('production')).toBe('sk_live_');
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('staging')));
    expect(keys.size).toBe(2000);
  });

  it('reads back the environment of a generated key', () => {
    expect(parseApiKey(generateApiKey('staging'))).toMatchObject({ ok: true, environment: 'staging' });
    expect(parseApiKey(generateApiKey('production'))).toMatchObject({ ok: true, environment: 'production' });
  });

  it('detects any single changed character through the checksum', () => {
    const key = generateApiKey('staging');
    for (let position = 8; position < key.length; position += 1) {
      const changed = key[position] === 'x' ? 'y' : 'x';
      const typo = key.slice(0, position) + changed + key.slice(position + 1);
      expect(parseApiKey(typo)).toEqual({ ok: false, reason: 'checksum' });
    }
  });

  it('rejects keys of the wrong shape as malformed', () => {
    for (const bad of [
      '',
      'sk_test_',
      'sk_prod_' + 'a'.repeat(38),
      `sk_test_${'a'.repeat(37)}`,
      `sk_test_${'a'.repeat(37)}-`,
    ]) {
      expect(parseApiKey(bad)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('stores a SHA-256 of the key and shows only its first 12 characters', () => {
    const key = generateApiKey('staging');
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).equals(hashApiKey(key))).toBe(true);
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
    expect(displayPrefix(key)).not.toContain(key.slice(12, 20));
  });
});
