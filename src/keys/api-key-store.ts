import type { Environment } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.ts';
import type { ApiKeyCache } from './api-key-cache.ts';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  environment: Environment;
  name: string | null;
  displayPrefix: string;
  createdAt: Date;
  /** When a request last used the key, to the nearest lookup (lookups are reused for up to a second). */
  lastUsedAt: Date | null;
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
  const [record] = await db.query<ApiKeyRecord>(
    `insert into api_keys (organization_id, environment, name, display_prefix, secret_hash)
     values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [options.organizationId, options.environment, options.name ?? null, displayPrefix(key), hashApiKey(key)],
  );
  if (!record) throw new Error('insert returned no row');
  return { key, record };
}

/**
 * The key record for a well-formed key, revoked or not; undefined if no such key was ever issued. With a
 * cache, a valid key looked up a moment ago is not looked up again (see `api-key-cache.ts`).
 */
export async function findApiKey(
  db: Queryable,
  key: string,
  cache?: ApiKeyCache,
): Promise<ApiKeyRecord | undefined> {
  const hash = hashApiKey(key);
  const cacheKey = hash.toString('base64');
  const cached = cache?.get(cacheKey);
  if (cached) return cached;
  // One statement finds the key and notes its use; a revoked key keeps its last use before revocation.
  const [record] = await db.query<ApiKeyRecord>(
    `update api_keys set last_used_at = case when revoked_at is null then clock_timestamp() else last_used_at end
     where secret_hash = $1 returning ${COLUMNS}`,
    [hash],
  );
  if (record) cache?.set(cacheKey, record);
  return record;
}

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyRecord[]> {
  return db.query<ApiKeyRecord>(
    `select ${COLUMNS} from api_keys where organization_id = $1 order by created_at, id`,
    [organizationId],
  );
}

/**
 * Revokes a key of an organization, named by its id or its display prefix.
 * @returns the revoked key, or undefined if the organization has no such key
 */
export async function revokeApiKey(
  db: Queryable,
  options: { organizationId: string; key: string },
): Promise<ApiKeyRecord | undefined> {
  const byId = /^[0-9a-f-]{36}$/i.test(options.key);
  const [record] = await db.query<ApiKeyRecord>(
    `update api_keys set revoked_at = coalesce(revoked_at, clock_timestamp())
     where organization_id = $1 and ${byId ? 'id = $2::uuid' : 'display_prefix = $2'}
     returning ${COLUMNS}`,
    [options.organizationId, options.key],
  );
  return record;
}
