import { describe, expect, it } from 'vitest';
import { createApiKeyCache } from '../../src/keys/api-key-cache.ts';
import type { ApiKeyRecord } from '../../src/keys/api-key-store.ts';

const record = (id: string, revokedAt: Date | null = null): ApiKeyRecord => ({
  id,
  organizationId: 'org',
  environment: 'staging',
  name: null,
  displayPrefix: 'sk_test_abcd',
  createdAt: new Date(0),
  lastUsedAt: null,
  revokedAt,
});

describe('the API key cache', () => {
  it('returns a stored lookup until its time is up, then forgets it', () => {
    const cache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 1000 });
    cache.set('h1', record('k1'), 0);
    expect(cache.get('h1', 999)?.id).toBe('k1');
    expect(cache.get('h1', 1000)).toBeUndefined();
    expect(cache.get('h1', 500)).toBeUndefined();
  });

  it('never keeps a revoked key, and keeps nothing when its time is 0', () => {
    const cache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 1000 });
    cache.set('h1', record('k1', new Date()), 0);
    expect(cache.get('h1', 1)).toBeUndefined();
    const off = createApiKeyCache<ApiKeyRecord>({ ttlMs: 0 });
    off.set('h2', record('k2'), 0);
    expect(off.get('h2', 0)).toBeUndefined();
  });

  it('holds at most its maximum of entries, dropping the oldest first', () => {
    const cache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 1000, maxEntries: 2 });
    cache.set('h1', record('k1'), 0);
    cache.set('h2', record('k2'), 0);
    cache.set('h3', record('k3'), 0);
    expect(cache.get('h1', 1)).toBeUndefined();
    expect(cache.get('h2', 1)?.id).toBe('k2');
    expect(cache.get('h3', 1)?.id).toBe('k3');
  });

  it('shares one lookup among the requests that miss at once, and keeps what it found', async () => {
    const cache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 60_000 });
    let loads = 0;
    let finish: (value: ApiKeyRecord) => void = () => undefined;
    const load = () => {
      loads += 1;
      return new Promise<ApiKeyRecord>((resolve) => {
        finish = resolve;
      });
    };
    const waiting = Array.from({ length: 10 }, () => cache.lookup('h1', load));
    finish(record('k1'));
    const found = await Promise.all(waiting);
    expect(loads).toBe(1);
    expect(found.map((r) => r?.id)).toEqual(Array(10).fill('k1'));
    expect((await cache.lookup('h1', load))?.id).toBe('k1');
    expect(loads).toBe(1);
  });

  it('lets the next request look up again after a failed lookup, and keeps no unknown key', async () => {
    const cache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 60_000 });
    await expect(cache.lookup('h1', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.lookup('h1', () => Promise.resolve(undefined))).toBeUndefined();
    expect((await cache.lookup('h1', () => Promise.resolve(record('k1'))))?.id).toBe('k1');
  });
});
