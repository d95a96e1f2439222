import type { Database, Queryable } from '../../db/database.ts';
import { loadInstanceSecret } from '../../db/instance-secrets.ts';
import { AppError, isNot, tooLong } from '../../errors.ts';
import { open, seal } from '../../keys/sealed-box.ts';
import { CONSOLE_ROLES, DASHBOARD_ROLES, type Role } from '../roles.ts';
import { TENANT_TABLES } from '../tenant-tables.ts';
import type { AccountTenant } from '../users.ts';
import { forgetProvider, providerOf, type ProviderClient } from './identity-providers.ts';

/**
 * A tenant's single sign-on connection (`sso_connections`, `sso_domains`): its identity provider (an HTTPS
 * issuer), the client Portico is to it, the e-mail domains it covers (each claimed by one tenant per kind), and
 * what happens to the people of those domains. The client secret is sealed under the `sso_secrets` instance secret
 * and never answered: the answers say whether one is set.
 */

/** The instance secret that seals every connection's client secret, and each pending sign-in's PKCE verifier. */
export const SSO_SEALING_KEY = 'sso_secrets';
/** The most domains one connection covers. */
export const MAX_DOMAINS = 20;
const MAX_ISSUER = 500;
const MAX_CLIENT_ID = 200;
const MAX_CLIENT_SECRET = 500;

/** A connection as an admin's page shows it: everything but the secret. */
export interface SsoConnection {
  issuer: string;
  clientId: string;
  /** Whether a client secret is kept (a public client has none: PKCE alone protects its codes). */
  clientSecretSet: boolean;
  domains: string[];
  /** Whether a person of its domains without an account gets one, as `defaultRole`, at their first sign-in. */
  allowNewAccounts: boolean;
  defaultRole: Role;
  /** Whether the people of its domains sign in only through it (its admins keep their password: the break-glass way). */
  ssoOnly: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A connection as a sign-in uses it: its id and tenant, and its provider's client with the secret unsealed. */
export interface ConnectionInUse extends SsoConnection {
  id: string;
  tenant: AccountTenant;
  client: ProviderClient;
}

/** What an admin saves: `clientSecret` left out keeps the one set, `null` removes it. */
export interface ConnectionSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string | null | undefined;
  domains: string[];
  allowNewAccounts: boolean;
  defaultRole: string;
  ssoOnly: boolean;
}

const TENANT_COLUMN = {
  instance: TENANT_TABLES.instance.column,
  organization: TENANT_TABLES.organization.column,
} as const;

const COLUMNS = `c.id, c.issuer, c.client_id as "clientId", c.client_secret_sealed as "secretSealed",
  c.allow_new_accounts as "allowNewAccounts", c.default_role as "defaultRole", c.sso_only as "ssoOnly",
  c.created_at as "createdAt", c.updated_at as "updatedAt", c.organization_id as "organizationId",
  c.instance_id as "instanceId",
  array(select d.domain from sso_domains d where d.connection_id = c.id order by d.domain) as domains`;

type Row = Omit<SsoConnection, 'clientSecretSet'> & {
  id: string;
  secretSealed: Uint8Array | null;
  organizationId: string | null;
  instanceId: string | null;
};

function shown(row: Row): SsoConnection {
  const { issuer, clientId, domains, allowNewAccounts, defaultRole, ssoOnly, createdAt, updatedAt } = row;
  const clientSecretSet = row.secretSealed !== null;
  return {
    issuer,
    clientId,
    clientSecretSet,
    domains,
    allowNewAccounts,
    defaultRole,
    ssoOnly,
    createdAt,
    updatedAt,
  };
}

async function inUse(db: Queryable, row: Row): Promise<ConnectionInUse> {
  const clientSecret =
    row.secretSealed === null
      ? null
      : (
          open(Buffer.from(row.secretSealed), await loadInstanceSecret(db, SSO_SEALING_KEY)) as {
            secret: string;
          }
        ).secret;
  const tenant: AccountTenant =
    row.organizationId !== null
      ? { kind: 'organization', id: row.organizationId }
      : { kind: 'instance', id: row.instanceId ?? '' };
  return {
    ...shown(row),
    id: row.id,
    tenant,
    client: {
      cacheKey: `${row.id}:${String(row.updatedAt.getTime())}`,
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecret,
    },
  };
}

/** The domain of an e-mail address (after its last @), lower case; '' when it has none. */
export function domainOf(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0
    ? ''
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

/** The tenant's connection as its admin sees it, or null when it has none. */
export async function readConnection(db: Queryable, tenant: AccountTenant): Promise<SsoConnection | null> {
  const [row] = await db.query<Row>(
    `select ${COLUMNS} from sso_connections c where c.${TENANT_COLUMN[tenant.kind]} = $1`,
    [tenant.id],
  );
  return row ? shown(row) : null;
}

/** The connection of this kind of tenant that covers the address's domain, ready to use, or undefined. */
export async function connectionForEmail(
  db: Queryable,
  kind: AccountTenant['kind'],
  email: string,
): Promise<ConnectionInUse | undefined> {
  const [row] = await db.query<Row>(
    `select ${COLUMNS} from sso_domains dom join sso_connections c on c.id = dom.connection_id
     where dom.tenant_kind = $1 and dom.domain = $2`,
    [kind, domainOf(email)],
  );
  return row ? inUse(db, row) : undefined;
}

/** A connection by id, ready to use (a pending sign-in names it), or undefined when it was removed. */
export async function connectionById(db: Queryable, id: string): Promise<ConnectionInUse | undefined> {
  const [row] = await db.query<Row>(`select ${COLUMNS} from sso_connections c where c.id = $1`, [id]);
  return row ? inUse(db, row) : undefined;
}

function checkIssuer(value: string): string {
  const issuer = value.trim().replace(/\/+$/, '');
  if (issuer.length > MAX_ISSUER) throw tooLong('An issuer URL', MAX_ISSUER, { field: 'issuer' });
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw isNot(value, 'a URL', { field: 'issuer' });
  }
  if (url.protocol !== 'https:') {
    throw new AppError('BAD_USER_INPUT', 'The issuer URL must start with https://.', { field: 'issuer' });
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new AppError(
      'BAD_USER_INPUT',
      'The issuer URL is the address of the identity provider alone: no query, fragment or credentials.',
      { field: 'issuer' },
    );
  }
  return issuer;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function checkDomains(values: string[]): string[] {
  const domains = [...new Set(values.map((value) => value.trim().toLowerCase().replace(/^@/, '')))];
  if (domains.length === 0) {
    throw new AppError('BAD_USER_INPUT', 'Enter at least one e-mail domain, e.g. example.com.', {
      field: 'domains',
    });
  }
  if (domains.length > MAX_DOMAINS) {
    throw new AppError('BAD_USER_INPUT', `A connection covers at most ${String(MAX_DOMAINS)} domains.`, {
      field: 'domains',
    });
  }
  for (const domain of domains) {
    if (!DOMAIN.test(domain))
      throw isNot(domain, 'an e-mail domain (e.g. example.com)', { field: 'domains' });
  }
  return domains.toSorted();
}

function checkRole(kind: AccountTenant['kind'], role: string): Role {
  const roles: readonly Role[] = kind === 'instance' ? DASHBOARD_ROLES : CONSOLE_ROLES;
  const found = roles.find((each) => each === role);
  if (!found) throw isNot(role, `a role (${roles.join(', ')})`, { field: 'defaultRole' });
  if (found === 'admin') {
    throw new AppError(
      'BAD_USER_INPUT',
      'New accounts cannot start as admins: choose another role, and make admins from the people page.',
      { field: 'defaultRole' },
    );
  }
  return found;
}

function checkLength(value: string, max: number, what: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new AppError('BAD_USER_INPUT', `Enter the ${what}.`, { field });
  if (trimmed.length > max) throw tooLong(`The ${what}`, max, { field });
  return trimmed;
}

/**
 * Saves the tenant's connection (made, or changed), after checking that its issuer answers its discovery
 * document (SSO_ISSUER_UNREACHABLE otherwise: nothing is saved). CONFLICT when another tenant of the kind covers
 * one of its domains. `record` writes what the caller keeps of the change, in its transaction.
 */
export async function saveConnection(
  db: Database,
  options: {
    tenant: AccountTenant;
    settings: ConnectionSettings;
    record?: ((tx: Queryable) => Promise<void>) | undefined;
  },
): Promise<SsoConnection> {
  const { tenant, settings } = options;
  const issuer = checkIssuer(settings.issuer);
  const clientId = checkLength(settings.clientId, MAX_CLIENT_ID, 'client id', 'clientId');
  const newSecret =
    settings.clientSecret === undefined || settings.clientSecret === null
      ? settings.clientSecret
      : checkLength(settings.clientSecret, MAX_CLIENT_SECRET, 'client secret', 'clientSecret');
  const domains = checkDomains(settings.domains);
  const defaultRole = checkRole(tenant.kind, settings.defaultRole);
  const column = TENANT_COLUMN[tenant.kind];
  const key = await loadInstanceSecret(db, SSO_SEALING_KEY);
  const sealed = typeof newSecret === 'string' ? seal({ secret: newSecret }, key) : null;
  const [kept] = await db.query<{ secretSealed: Uint8Array | null }>(
    `select client_secret_sealed as "secretSealed" from sso_connections where ${column} = $1`,
    [tenant.id],
  );
  const secretSealed = newSecret === undefined ? (kept?.secretSealed ?? null) : sealed;
  const clientSecret =
    secretSealed === null ? null : (open(Buffer.from(secretSealed), key) as { secret: string }).secret;
  // The provider answers before anything is saved: a connection that cannot work is never stored.
  await providerOf({ cacheKey: `check:${issuer}:${clientId}`, issuer, clientId, clientSecret });
  forgetProvider(`check:${issuer}:${clientId}`);
  return db.transaction(async (tx) => {
    const [saved] = await tx.query<{ id: string }>(
      `insert into sso_connections (${column}, issuer, client_id, client_secret_sealed, allow_new_accounts,
         default_role, sso_only)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (${column}) do update set issuer = excluded.issuer, client_id = excluded.client_id,
         client_secret_sealed = excluded.client_secret_sealed, allow_new_accounts = excluded.allow_new_accounts,
         default_role = excluded.default_role, sso_only = excluded.sso_only, updated_at = clock_timestamp()
       returning id`,
      [tenant.id, issuer, clientId, secretSealed, settings.allowNewAccounts, defaultRole, settings.ssoOnly],
    );
    if (!saved) throw new Error('a connection saved without its row');
    await tx.query('delete from sso_domains where connection_id = $1 and domain <> all($2::text[])', [
      saved.id,
      domains,
    ]);
    await tx.query(
      `insert into sso_domains (tenant_kind, domain, connection_id)
       select $1, unnest($2::text[]), $3 on conflict (tenant_kind, domain) do nothing`,
      [tenant.kind, domains, saved.id],
    );
    const claimed = await tx.query<{ domain: string }>(
      `select domain from sso_domains where tenant_kind = $1 and domain = any($2::text[]) and connection_id <> $3
       order by domain`,
      [tenant.kind, domains, saved.id],
    );
    if (claimed.length > 0) {
      throw new AppError(
        'CONFLICT',
        `Another ${tenant.kind === 'instance' ? 'customer instance' : 'organization'} signs in ${claimed
          .map((row) => row.domain)
          .join(', ')} through its own single sign-on: a domain can be covered by one only.`,
        { field: 'domains' },
      );
    }
    await options.record?.(tx);
    const [row] = await tx.query<Row>(`select ${COLUMNS} from sso_connections c where c.id = $1`, [saved.id]);
    if (!row) throw new Error('a connection saved without its row');
    return shown(row);
  });
}

/**
 * Removes the tenant's connection (its people sign in with passwords again; those who never set one ask for a
 * reset). Answers whether there was one; `record` as {@link saveConnection}'s, only when one was removed.
 */
export async function removeConnection(
  db: Database,
  options: { tenant: AccountTenant; record?: ((tx: Queryable) => Promise<void>) | undefined },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const removed = await tx.query<{ id: string }>(
      `delete from sso_connections where ${TENANT_COLUMN[options.tenant.kind]} = $1 returning id`,
      [options.tenant.id],
    );
    if (removed.length > 0) await options.record?.(tx);
    return removed.length > 0;
  });
}
