import type { Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { blank, notFound, tooLong } from '../errors.ts';
import { displayPrefix, generatePortfolioKey, hashApiKey } from '../keys/api-key.ts';
import { keyTable } from '../keys/api-key-store.ts';
import { insertTenant } from '../db/tenants.ts';

/** A customer instance: the Portfolio service's tenant, chosen by the API key of each request. */
export interface PortfolioInstance {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
}

export interface PortfolioKeyRecord {
  id: string;
  instanceId: string;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  /** When a request last used the key, to the nearest lookup (lookups are reused for up to a second). */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const INSTANCE_COLUMNS = 'id, slug, name, created_at as "createdAt"';

/** Creates a customer instance (a tenant of the Portfolio service); its slug must be free. */
export const createInstance = (
  db: Queryable,
  { slug, name }: { slug: string; name: string },
): Promise<PortfolioInstance> => insertTenant(db, 'instance', { short: slug, name });

export async function listInstances(db: Queryable): Promise<PortfolioInstance[]> {
  return db.query<PortfolioInstance>(`select ${INSTANCE_COLUMNS} from portfolio_instances order by slug`);
}

/** The instance with this slug, or a NOT_FOUND error that says so. */
export async function getInstanceBySlug(db: Queryable, slug: string): Promise<PortfolioInstance> {
  const [instance] = await db.query<PortfolioInstance>(
    `select ${INSTANCE_COLUMNS} from portfolio_instances where slug = $1`,
    [slug],
  );
  if (!instance) throw notFound('customer instance with slug', slug);
  return instance;
}

/** Lookups, lists and revocation of Portfolio keys, scoped to their instance. */
const KEY_COLUMNS = `id, instance_id as "instanceId", name, display_prefix as "displayPrefix",
  created_at as "createdAt", last_used_at as "lastUsedAt", revoked_at as "revokedAt"`;

export const portfolioKeys = keyTable<PortfolioKeyRecord>({
  table: 'portfolio_api_keys',
  ownerColumn: 'instance_id',
  columns: KEY_COLUMNS,
});

/** The longest name a Portfolio key may have. */
export const KEY_NAME_MAX = 100;

/**
 * Issues a Portfolio API key for an instance, noting who made it (a dashboard user; none from the CLI). The
 * key is returned once, here; only its hash is kept. BAD_USER_INPUT for a blank name or one over 100
 * characters.
 */
export async function createPortfolioKey(
  db: Queryable,
  options: { instanceId: string; name: string; createdBy?: string | undefined },
): Promise<{ key: string; record: PortfolioKeyRecord }> {
  const name = options.name.trim();
  if (name === '') throw blank('A key name', { field: 'name' });
  if (name.length > KEY_NAME_MAX) {
    throw tooLong('A key name', KEY_NAME_MAX, { field: 'name' });
  }
  const key = generatePortfolioKey();
  const record = await oneRow<PortfolioKeyRecord>(
    db,
    `insert into portfolio_api_keys (instance_id, name, display_prefix, secret_hash, created_by)
     values ($1, $2, $3, $4, $5) returning ${KEY_COLUMNS}`,
    [options.instanceId, name, displayPrefix(key), hashApiKey(key), options.createdBy ?? null],
  );
  return { key, record };
}

/** A Portfolio key as the dashboard lists it: with the dashboard user who made it, if one did. */
export interface PortfolioKeyWithCreator extends PortfolioKeyRecord {
  createdBy: { name: string; email: string } | null;
}

/** An instance's keys, newest first, revoked ones included, each with its creator; or the one key `keyId`. */
export function listKeysWithCreators(
  db: Queryable,
  instanceId: string,
  keyId?: string,
): Promise<PortfolioKeyWithCreator[]> {
  return db.query<PortfolioKeyWithCreator>(
    `select k.id, k.instance_id as "instanceId", k.name, k.display_prefix as "displayPrefix",
       k.created_at as "createdAt", k.last_used_at as "lastUsedAt", k.revoked_at as "revokedAt",
       case when u.id is null then null else json_build_object('name', u.name, 'email', u.email) end as "createdBy"
     from portfolio_api_keys k left join users u on u.id = k.created_by
     where k.instance_id = $1 and ($2::uuid is null or k.id = $2)
     order by k.created_at desc, k.id desc`,
    [instanceId, keyId ?? null],
  );
}
