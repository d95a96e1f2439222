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
});
