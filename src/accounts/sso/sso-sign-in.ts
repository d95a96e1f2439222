import type * as Oidc from 'openid-client';
import type { Database } from '../../db/database.ts';
import { AppError, ssoErrors } from '../../errors.ts';
import type { User } from '../users.ts';
import { connectionById, connectionForEmail, domainOf } from './connections.ts';
import { openid, providerOf } from './identity-providers.ts';
import { keepPendingLogin, newBrowserBinding, takePendingLogin } from './pending-logins.ts';
import { personSignedInBySso, type ProviderClaims, type RecordJoin } from './sso-people.ts';

/**
 * A sign-in through a tenant's identity provider (OpenID Connect, the authorization-code flow with PKCE S256,
 * `state` and `nonce`), in two halves: {@link beginSsoSignIn} sends the person to the provider, and
 * {@link completeSsoSignIn} takes its answer back, has openid-client check it (the state, the issuer, the ID
 * token's signature, expiry, audience and nonce), and finds or makes the person (sso-people.ts).
 */

/** What the sign-in asks the provider for: an ID token with the person's address and name. */
const SCOPE = 'openid email profile';

/**
 * Begins a sign-in for the address typed: the provider's authorization URL for the connection covering its
 * domain, and the binding value the browser keeps in its cookie until the provider sends it back.
 * SSO_NOT_CONFIGURED when no connection of this kind of tenant covers the domain; SSO_ISSUER_UNREACHABLE when
 * its provider does not answer.
 */
export async function beginSsoSignIn(
  db: Database,
  options: { kind: 'organization' | 'instance'; email: string; redirectUri: string },
): Promise<{ redirectTo: string; browserBinding: string }> {
  const email = options.email.trim().toLowerCase();
  if (email === '') throw new AppError('BAD_USER_INPUT', 'Enter your e-mail address.', { field: 'email' });
  const connection = await connectionForEmail(db, options.kind, email);
  if (!connection) throw ssoErrors.notConfigured(domainOf(email) || email);
  const provider = await providerOf(connection.client);
  const oidc = await openid();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const browserBinding = newBrowserBinding();
  await keepPendingLogin(db, { connectionId: connection.id, state, nonce, codeVerifier, browserBinding });
  const url = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: options.redirectUri,
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    login_hint: email,
  });
  return { redirectTo: url.href, browserBinding };
}

/** The messages of an error and its causes, in one string, to tell openid-client's refusals apart. */
function messagesOf(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    messages.push(
      current.message,
      (current as { code?: unknown }).code === undefined ? '' : String((current as { code?: unknown }).code),
    );
    current = current.cause;
  }
  return messages.join(' | ');
}

/** openid-client's refusal of an answer, as the code the person's page explains. */
export function refusalOf(oidc: typeof Oidc, error: unknown, issuer: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof oidc.AuthorizationResponseError) return ssoErrors.denied();
  const said = messagesOf(error);
  if (/"iss"|issuer/.test(said)) return ssoErrors.issuerMismatch();
  if (/"nonce"/.test(said)) return ssoErrors.nonceInvalid();
  if (/"state"/.test(said)) return ssoErrors.stateInvalid();
  if (/"exp"|"iat"|"nbf"|TIMESTAMP/.test(said)) return ssoErrors.tokenInvalid('its ID token has expired');
  if (/signature|"alg"|JWS|KEY_SELECTION/i.test(said)) {
    return ssoErrors.tokenInvalid('its ID token is not signed by the provider');
  }
  if (error instanceof oidc.ResponseBodyError) return ssoErrors.tokenInvalid('the provider refused the code');
  if (/fetch failed|timeout|aborted|ECONNREFUSED|ENOTFOUND/i.test(said)) {
    return ssoErrors.issuerUnreachable(issuer, error);
  }
  return ssoErrors.tokenInvalid('its answer is not one Portico understands');
}

/**
 * Completes the sign-in the provider answered (`callbackUrl`: the whole URL it sent the browser back to): the
 * pending sign-in of its state, begun in this browser (SSO_STATE_INVALID otherwise), the code exchanged for tokens
 * and the ID token checked (SSO_ISSUER_MISMATCH, SSO_NONCE_INVALID, SSO_TOKEN_INVALID, SSO_DENIED when the
 * provider answered with an error, SSO_ISSUER_UNREACHABLE), then the person (see `personSignedInBySso`).
 */
export async function completeSsoSignIn(
  db: Database,
  options: {
    kind: 'organization' | 'instance';
    callbackUrl: URL;
    browserBinding: string | undefined;
    record?: RecordJoin | undefined;
  },
): Promise<{ user: User; joined: boolean }> {
  const state = options.callbackUrl.searchParams.get('state') ?? '';
  const pending = await takePendingLogin(db, { state, browserBinding: options.browserBinding });
  const connection = await connectionById(db, pending.connectionId);
  if (!connection || connection.tenant.kind !== options.kind) throw ssoErrors.stateInvalid();
  const provider = await providerOf(connection.client);
  const oidc = await openid();
  let claims: ProviderClaims | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(provider, options.callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    // A provider that keeps the ID token to its required claims gives the address at its userinfo endpoint.
    const said =
      idToken && idToken.email === undefined
        ? await oidc.fetchUserInfo(provider, tokens.access_token, idToken.sub)
        : idToken;
    claims = said && { email: said.email, email_verified: said.email_verified, name: said.name };
  } catch (error) {
    throw refusalOf(oidc, error, connection.issuer);
  }
  if (!claims) throw ssoErrors.tokenInvalid('it holds no ID token');
  return personSignedInBySso(db, { connection, claims, record: options.record });
}
