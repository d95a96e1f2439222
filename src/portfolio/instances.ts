import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
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
  if (!instance) throw new AppError('NOT_FOUND', `no customer instance with slug "${slug}"`);
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

/** Issues a Portfolio API key for an instance. The key is returned once, here; only its hash is kept. */
export async function createPortfolioKey(
  db: Queryable,
  options: { instanceId: string; name: string },
): Promise<{ key: string; record: PortfolioKeyRecord }> {
  if (options.name.trim() === '') throw new AppError('BAD_USER_INPUT', 'name must not be blank');
  const key = generatePortfolioKey();
  const [record] = await db.query<PortfolioKeyRecord>(
    `insert into portfolio_api_keys (instance_id, name, display_prefix, secret_hash)
     values ($1, $2, $3, $4) returning ${KEY_COLUMNS}`,
    [options.instanceId, options.name.trim(), displayPrefix(key), hashApiKey(key)],
  );
  if (!record) throw new Error('insert returned no row');
  return { key, record };
}
