import type * as Oidc from 'openid-client';
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

const cache = new Map<string, { config: Oidc.Configuration; until: number }>();
/** The certificate authorities trusted besides the system's, and the fetch made to trust them once needed. */
let providerCa: string | undefined;
let fetchOfProviders: Promise<Oidc.CustomFetch> | undefined;

let openidClient: Promise<typeof Oidc> | undefined;
/**
 * openid-client, loaded on the first sign-in through a provider: with undici and jose it is a hundred and more
 * modules that a start, and every process that no one signs in to by SSO, would load for nothing.
 */
export function openid(): Promise<typeof Oidc> {
  openidClient ??= import('openid-client');
  return openidClient;
}

/**
 * Trusts these certificate authorities (PEM) besides the system's, when talking to identity providers: for a
 * provider under a private CA. `portico serve` uses the system's (NODE_EXTRA_CA_CERTS adds to them); the tests
 * trust the CA of the provider they run on loopback.
 */
export function trustProviderCertificates(ca: string | undefined): void {
  providerCa = ca;
  fetchOfProviders = undefined;
  cache.clear();
}

/** The fetch that trusts {@link trustProviderCertificates}'s authorities; none (openid-client's own) otherwise. */
function providerFetch(): Promise<Oidc.CustomFetch> | undefined {
  const ca = providerCa;
  if (ca === undefined) return undefined;
  fetchOfProviders ??= import('undici').then(({ Agent, fetch }) => {
    const dispatcher = new Agent({ connect: { ca } });
    return (url, options) => fetch(url, { ...options, dispatcher }) as unknown as Promise<Response>;
  });
  return fetchOfProviders;
}

/**
 * The provider's configuration for this client, from its discovery document (`<issuer>/.well-known/
 * openid-configuration`, within {@link PROVIDER_TIMEOUT_S}), kept for a few minutes. SSO_ISSUER_UNREACHABLE when
 * the provider does not answer, or answers with something that is not its discovery document (a wrong issuer
 * URL reads the same to the person: the provider cannot be used).
 */
export async function providerOf(client: ProviderClient): Promise<Oidc.Configuration> {
  const now = Date.now();
  const kept = cache.get(client.cacheKey);
  if (kept && kept.until > now) return kept.config;
  const oidc = await openid();
  const customFetch = await providerFetch();
  let config: Oidc.Configuration;
  try {
    config = await oidc.discovery(
      new URL(client.issuer),
      client.clientId,
      undefined,
      client.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(client.clientSecret),
      {
        timeout: PROVIDER_TIMEOUT_S,
        ...(customFetch && { [oidc.customFetch]: customFetch }),
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
