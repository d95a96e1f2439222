import type { Environment } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { AppError, quote } from '../errors.ts';
import { isUuid } from '../validation/uuid.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';
import type { ApiKeyCache } from './api-key-cache.ts';

/** A Transactions API key as stored: everything about it but the key, of which only the hash is kept. */
export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  /** The one environment the key works in: `sk_test_` keys are staging's, `sk_live_` ones production's. */
  environment: Environment;
  /** A label given when the key was issued (e.g. `demo`); null without one. */
  name: string | null;
  /** What may be shown of the key (see `displayPrefix`); it can also name the key to revoke. */
  displayPrefix: string;
  createdAt: Date;
  /** When a request last used the key, to the nearest lookup (lookups are reused for up to a second). */
  lastUsedAt: Date | null;
  /** When the key was revoked; null while it works. Revoked keys stay in the table and in lists. */
  revokedAt: Date | null;
}

const COLUMNS = `id, organization_id as "organizationId", environment, name, display_prefix as "displayPrefix",
  created_at as "createdAt", last_used_at as "lastUsedAt", revoked_at as "revokedAt"`;

/**
 * Issues a Transactions API key for an organization. The key is returned once, here; only its hash is kept.
 */
export async function createApiKey(
  db: Queryable,
  options: { organizationId: string; environment: Environment; name?: string | undefined },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey(options.environment);
  const record = await oneRow<ApiKeyRecord>(
    db,
    `insert into api_keys (organization_id, environment, name, display_prefix, secret_hash)
     values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [options.organizationId, options.environment, options.name ?? null, displayPrefix(key), hashApiKey(key)],
  );
  return { key, record };
}

/**
 * Lookups, lists and revocation over a table of hashed keys (`api_keys`, `portfolio_api_keys`): the same
 * statements for every kind of key, scoped to the key's owner (an organization or a customer instance).
 */
export interface KeyTable<KeyRecord extends { revokedAt: Date | null }> {
  /**
   * The key record for a well-formed key, revoked or not; undefined if no such key was ever issued. With a
   * cache, a valid key looked up a moment ago is not looked up again (see `api-key-cache.ts`).
   */
  find(
    db: Queryable,
    key: string,
    cache?: ApiKeyCache<KeyRecord>,
    /** The key's hash when already known (see presented-key.ts). @default hashApiKey(key) */
    hash?: Buffer,
  ): Promise<KeyRecord | undefined>;
  /** Every key of an owner, revoked ones included, oldest first. */
  list(db: Queryable, ownerId: string): Promise<KeyRecord[]>;
  /**
   * Revokes a key of an owner, named by its id or its display prefix. CONFLICT when a prefix names more than
   * one of the owner's keys (it is not unique, if rarely shared): the id then says which.
   * @returns the revoked key, or undefined if the owner has no such key
   */
  revoke(db: Queryable, options: { ownerId: string; key: string }): Promise<KeyRecord | undefined>;
}

/**
 * The {@link KeyTable} of one table of hashed keys. The options go into the SQL as they are: they must be
 * constants of the code, never input.
 */
export function keyTable<KeyRecord extends { revokedAt: Date | null }>(options: {
  table: string;
  /** The column that holds each key's owner, e.g. `organization_id`. */
  ownerColumn: string;
  /** The select list that makes a KeyRecord of a row. */
  columns: string;
}): KeyTable<KeyRecord> {
  const { table, ownerColumn, columns } = options;
  return {
    async find(db, key, cache, hash = hashApiKey(key)) {
      const cacheKey = hash.toString('base64');
      const cached = cache?.get(cacheKey);
      if (cached) return cached;
      // One statement finds the key and notes its use; a revoked key keeps its last use before revocation.
      const load = async () => {
        const [record] = await db.query<KeyRecord>(
          `update ${table} set last_used_at = case when revoked_at is null then clock_timestamp() else last_used_at end
           where secret_hash = $1 returning ${columns}`,
          [hash],
        );
        return record;
      };
      return cache ? cache.lookup(cacheKey, load) : load();
    },
    list: (db, ownerId) =>
      db.query<KeyRecord>(
        `select ${columns} from ${table} where ${ownerColumn} = $1 order by created_at, id`,
        [ownerId],
      ),
    async revoke(db, { ownerId, key }) {
      let id = key;
      if (!isUuid(key)) {
        const named = await db.query<{ id: string }>(
          `select id from ${table} where ${ownerColumn} = $1 and display_prefix = $2`,
          [ownerId, key],
        );
        if (named.length > 1) {
          throw new AppError(
            'CONFLICT',
            `${quote(key)} is the prefix of ${String(named.length)} keys: revoke by id`,
          );
        }
        const [only] = named;
        if (!only) return undefined;
        id = only.id;
      }
      const [record] = await db.query<KeyRecord>(
        `update ${table} set revoked_at = coalesce(revoked_at, clock_timestamp())
         where ${ownerColumn} = $1 and id = $2 returning ${columns}`,
        [ownerId, id],
      );
      return record;
    },
  };
}

/** The Transactions service's keys. */
export const apiKeys = keyTable<ApiKeyRecord>({
  table: 'api_keys',
  ownerColumn: 'organization_id',
  columns: COLUMNS,
});
