import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { answers, Body, Empty, OrNull, Timestamp } from '../contract.ts';

/**
 * The contract of single sign-on (OpenID Connect) on a signed-in surface: the two public routes of the sign-in
 * (part of every surface's account routes, account-contract.ts), and an admin's routes that connect the tenant's
 * identity provider ({@link ssoSettingsRoutes}, in each surface's own contract, with its permission and path).
 */
export const ssoSignInRoutes = {
  /**
   * Begins a sign-in through the identity provider covering the address's domain: answers where to send the
   * browser (`redirectTo`), and sets a short cookie binding the sign-in to this browser. SSO_NOT_CONFIGURED when
   * no connection covers the domain; SSO_ISSUER_UNREACHABLE when the provider does not answer.
   */
  ssoSignIn: {
    method: 'POST',
    url: '/session/sso',
    access: 'public',
    body: Body({ email: Type.String({ maxLength: 254 }) }),
    response: answers({ 200: Type.Object({ redirectTo: Type.String() }) }),
  },
  /**
   * Where the identity provider sends the browser back: completes the sign-in and redirects (302) to the
   * surface's page, or to the sign-in page with `?sso_error=<code>` when it was refused.
   */
  ssoCallback: {
    method: 'GET',
    url: '/session/sso/callback',
    access: 'public',
    querystring: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4000 })),
    response: answers({ 302: Type.Null() }),
  },
} as const;

/** A tenant's connection as its admin sees it: never its client secret, only whether one is set. */
export const SsoConnectionAnswer = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean(),
  domains: Type.Array(Type.String()),
  allowNewAccounts: Type.Boolean(),
  defaultRole: Type.String(),
  ssoOnly: Type.Boolean(),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});

/** The settings page's answer: the connection (null before one is made), and the callback URL to register. */
export const SsoSettingsAnswer = Type.Object({
  connection: OrNull(SsoConnectionAnswer),
  callbackUrl: Type.String(),
});
export type SsoSettingsAnswer = Static<typeof SsoSettingsAnswer>;

/** What an admin saves: `clientSecret` left out keeps the one set, null removes it. */
export const SsoSettingsBody = Body({
  issuer: Type.String({ maxLength: 1000 }),
  clientId: Type.String({ maxLength: 1000 }),
  clientSecret: Type.Optional(OrNull(Type.String({ maxLength: 1000 }))),
  domains: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 100 }),
  allowNewAccounts: Type.Boolean(),
  defaultRole: Type.String({ maxLength: 50 }),
  ssoOnly: Type.Boolean(),
});
export type SsoSettingsBody = Static<typeof SsoSettingsBody>;

/**
 * An admin's routes for the tenant's single sign-on, at `<base>/sso`, needing `permission`, with the surface's
 * path parameters (the dashboard's `:slug`).
 *
 * @example
 * const routes = { ...ssoSettingsRoutes('managePeople', '/instances/:slug', Slug) };
 */
export function ssoSettingsRoutes<Permission extends string, Params extends TSchema | undefined = undefined>(
  permission: Permission,
  base: string,
  params?: Params,
) {
  const url = `${base}/sso`;
  const where = params === undefined ? {} : { params };
  return {
    /** The tenant's connection, and the callback URL to register with the identity provider. */
    ssoConnection: {
      method: 'GET',
      url,
      access: permission,
      ...where,
      response: answers({ 200: SsoSettingsAnswer }),
    },
    /**
     * Connects the identity provider, or changes its connection, once its issuer answered its discovery document
     * (SSO_ISSUER_UNREACHABLE otherwise). `clientSecret` left out keeps the one set; null removes it.
     */
    saveSsoConnection: {
      method: 'PUT',
      url,
      access: permission,
      ...where,
      body: SsoSettingsBody,
      response: answers({ 200: SsoSettingsAnswer }),
    },
    /** Disconnects the identity provider: its people sign in with passwords again. */
    removeSsoConnection: {
      method: 'DELETE',
      url,
      access: permission,
      ...where,
      response: answers({ 200: Empty }),
    },
  } as const;
}
