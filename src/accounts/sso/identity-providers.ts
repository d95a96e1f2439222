import { Agent, fetch as undiciFetch } from 'undici';
import * as oidc from 'openid-client';
import { ssoErrors } from '../../errors.ts';

/**
 * Talking to identity providers (OpenID Connect, with `openid-client`): their discovery documents, read with a
 * short timeout and kept a few minutes, and the client each connection is to them. Every issuer is HTTPS: an
 * `http:` one is refused when it is saved, and openid-client refuses one besides (no insecure switch is used).
 */

/** How long a provider has to answer a request (discovery, the token endpoint, its keys), in seconds. */
export const PROVIDER_TIMEOUT_S = 5;
/**
 * How long a discovery document is kept in this process. It must agree across nodes only in what the connection
 * saved (the cache is keyed by its `updatedAt`): a provider that changes its endpoints is read again within this.
 */
const DISCOVERY_TTL_MS = 5 * 60_000;
/** The most connections whose documents are kept at once; the oldest go first. */
const DISCOVERY_CACHE_MAX = 500;

/** A connection as its provider's client: who the provider is, and who Portico is to it. */
export interface ProviderClient {
  /** Keys the cache: a changed connection is discovered afresh. */
  cacheKey: string;
  issuer: string;
  clientId: string;
  clientSecret: string | null;
}

const cache = new Map<string, { config: oidc.Configuration; until: number }>();
let fetchOfProviders: oidc.CustomFetch | undefined;

/**
 * Trusts these certificate authorities (PEM) besides the system's, when talking to identity providers: for a
 * provider under a private CA. `portico serve` uses the system's (NODE_EXTRA_CA_CERTS adds to them); the tests
 * trust the CA of the provider they run on loopback.
 */
export function trustProviderCertificates(ca: string | undefined): void {
  if (ca === undefined) {
    fetchOfProviders = undefined;
    cache.clear();
    return;
  }
  const dispatcher = new Agent({ connect: { ca } });
  fetchOfProviders = (url, options) =>
    undiciFetch(url, { ...options, dispatcher }) as unknown as Promise<Response>;
  cache.clear();
}

/**
 * The provider's configuration for this client, from its discovery document (`<issuer>/.well-known/
 * openid-configuration`, within {@link PROVIDER_TIMEOUT_S}), kept for a few minutes. SSO_ISSUER_UNREACHABLE when
 * the provider does not answer, or answers with something that is not its discovery document (a wrong issuer
 * URL reads the same to the person: the provider cannot be used).
 */
export async function providerOf(client: ProviderClient): Promise<oidc.Configuration> {
  const now = Date.now();
  const kept = cache.get(client.cacheKey);
  if (kept && kept.until > now) return kept.config;
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(client.issuer),
      client.clientId,
      undefined,
      client.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(client.clientSecret),
      {
        timeout: PROVIDER_TIMEOUT_S,
        ...(fetchOfProviders && { [oidc.customFetch]: fetchOfProviders }),
      },
    );
  } catch (error) {
    throw ssoErrors.issuerUnreachable(client.issuer, error);
  }
  cache.delete(client.cacheKey);
  cache.set(client.cacheKey, { config, until: now + DISCOVERY_TTL_MS });
  while (cache.size > DISCOVERY_CACHE_MAX) {
    const [oldest] = cache.keys();
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
  return config;
}

/** Forgets what was kept of a connection's provider (it was changed or removed). */
export function forgetProvider(cacheKey: string): void {
  cache.delete(cacheKey);
}
