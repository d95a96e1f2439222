/**
 * Remembers valid key lookups for a moment, so that a busy client costs one lookup per key a second instead
 * of one a request. Only keys found and not revoked are kept, by their SHA-256 (never the key), at most
 * `maxEntries` of them. The price: a key revoked on any node keeps working on this one for at most `ttlMs`.
 */
export interface ApiKeyCache<KeyRecord extends { revokedAt: Date | null }> {
  /**
   * The record kept for `hash` (the key's SHA-256, base64), or undefined: none was kept, or `ttlMs` has
   * passed since. `now` is in milliseconds since the epoch, for tests.
   */
  get(hash: string, now?: number): KeyRecord | undefined;
  /** Keeps `record` for `ttlMs` from `now`; a revoked record, or any record when `ttlMs` ≤ 0, is not kept. */
  set(hash: string, record: KeyRecord, now?: number): void;
  /**
   * The record kept for `hash`, else what `load` finds (then kept as `set` keeps it). Requests that miss at once
   * share one `load`: when an entry expires under load, one lookup refreshes it, not one per request in flight.
   */
  lookup(hash: string, load: () => Promise<KeyRecord | undefined>): Promise<KeyRecord | undefined>;
}

/**
 * An {@link ApiKeyCache} in this process's memory. `ttlMs` ≤ 0 turns it off. When `maxEntries` (default
 * 10,000) are kept, a new entry drops the one set longest ago, however recently it was read.
 *
 * @example
 * const keyCache = createApiKeyCache<ApiKeyRecord>({ ttlMs: 1000 });
 */
export function createApiKeyCache<KeyRecord extends { revokedAt: Date | null }>(options: {
  ttlMs: number;
  maxEntries?: number;
}): ApiKeyCache<KeyRecord> {
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { record: KeyRecord; expiresAt: number }>();
  const loading = new Map<string, Promise<KeyRecord | undefined>>();
  const cache: ApiKeyCache<KeyRecord> = {
    get(hash, now = Date.now()) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        entries.delete(hash);
        return undefined;
      }
      return entry.record;
    },
    set(hash, record, now = Date.now()) {
      if (options.ttlMs <= 0 || record.revokedAt !== null) return;
      entries.delete(hash);
      // Maps iterate in insertion order: the first key is the oldest entry.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value ?? '');
      entries.set(hash, { record, expiresAt: now + options.ttlMs });
    },
    lookup(hash, load) {
      const kept = cache.get(hash);
      if (kept) return Promise.resolve(kept);
      let pending = loading.get(hash);
      if (pending === undefined) {
        pending = load().then(
          (record) => {
            loading.delete(hash);
            if (record) cache.set(hash, record);
            return record;
          },
          (error: unknown) => {
            loading.delete(hash);
            throw error;
          },
        );
        loading.set(hash, pending);
      }
      return pending;
    },
  };
  return cache;
}
