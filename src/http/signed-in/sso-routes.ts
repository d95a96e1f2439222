import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PENDING_LOGIN_MS } from '../../accounts/sso/pending-logins.ts';
import type { RecordJoin } from '../../accounts/sso/sso-people.ts';
import { beginSsoSignIn, completeSsoSignIn } from '../../accounts/sso/sso-sign-in.ts';
import type { Database } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { clientAddressKey, createAttemptLimits } from '../attempt-limits.ts';
import { handRoute } from '../contract-routes.ts';
import type { TenantKind } from './person.ts';
import type { ssoSignInRoutes } from './sso-contract.ts';

/** The cookie that binds a sign-in sent to the identity provider to the browser that began it. */
export const SSO_BINDING_COOKIE = 'portico_sso';
/** Sign-ins begun in 15 minutes per client address: each keeps a row until it is answered or expires. */
const BEGUN_PER_CLIENT = 60;

/** What a surface tells its account routes about its single sign-on. */
export interface SurfaceSso {
  /** The surface's public base address (no trailing slash): the provider sends people back under it. */
  publicUrl: () => string;
  /** Writes an account made at sign-in to the tenant's activity, in its transaction (the console's team). */
  recordJoin?: RecordJoin | undefined;
}

/** The callback URL to register with the identity provider, for a surface whose JSON routes are at `apiPath`. */
export function ssoCallbackUrl(publicUrl: string, apiPath: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${apiPath}/session/sso/callback`;
}

/**
 * The public routes of single sign-on on a signed-in surface, beside its other account routes: beginning a
 * sign-in (the provider's URL, and a short SameSite=Lax cookie binding it to this browser), and the provider's
 * redirect back, which completes it and signs the person in as a password sign-in does (`signIn`: a new session,
 * the session list's details, the known-browser mail), then sends the browser to the page. A refusal sends it to
 * the sign-in page with `?sso_error=<code>`, which it says in words.
 *
 * The pending sign-in lives in the database, not in the session: the session's cookie is SameSite=Strict, and the
 * provider's redirect back is a cross-site navigation, which does not carry it. The Lax binding cookie does.
 * A single sign-on is a whole sign-in: the provider authenticated the person (with its own second factors), and
 * Portico asks for none of its own.
 */
export function registerSsoRoutes(
  api: FastifyInstance,
  options: {
    db: Database;
    kind: TenantKind;
    /** Names the surface's budget, e.g. `console` (`console-sso:client`). */
    name: string;
    /** Where the surface's page is (`/console`) and its JSON routes (`/console/api`). */
    pagePath: string;
    apiPath: string;
    contract: typeof ssoSignInRoutes;
    sso: SurfaceSso;
    signIn: (request: FastifyRequest, reply: FastifyReply, userId: string) => Promise<object>;
  },
): void {
  const { db, kind, contract, sso } = options;
  const cookiePath = `${options.apiPath}/session/sso`;
  const begun = createAttemptLimits(db, 'single sign-ons begun', [
    {
      name: `${options.name}-sso:client`,
      max: BEGUN_PER_CLIENT,
      windowMs: 15 * 60_000,
      by: clientAddressKey,
    },
  ]);

  api.route<{ Body: { email: string } }>({
    ...handRoute(contract.ssoSignIn),
    handler: async (request, reply) => {
      await begun.reserve(request);
      const { redirectTo, browserBinding } = await beginSsoSignIn(db, {
        kind,
        email: request.body.email,
        redirectUri: ssoCallbackUrl(sso.publicUrl(), options.apiPath),
      });
      reply.setCookie(SSO_BINDING_COOKIE, browserBinding, {
        path: cookiePath,
        httpOnly: true,
        secure: true,
        // Lax: sent on the provider's top-level redirect back, never on another site's requests for a resource.
        sameSite: 'lax',
        maxAge: PENDING_LOGIN_MS / 1000,
      });
      return { redirectTo };
    },
  });

  api.route({
    ...handRoute(contract.ssoCallback),
    handler: async (request, reply) => {
      const browserBinding = request.cookies[SSO_BINDING_COOKIE];
      reply.clearCookie(SSO_BINDING_COOKIE, {
        path: cookiePath,
        httpOnly: true,
        secure: true,
        sameSite: 'lax',
      });
      try {
        const { user } = await completeSsoSignIn(db, {
          kind,
          callbackUrl: new URL(request.url, sso.publicUrl()),
          browserBinding,
          record: sso.recordJoin,
        });
        await options.signIn(request, reply, user.id);
        // The identity provider's own factors apply: a policy requiring Portico's is not asked of this session.
        request.session.signedInThrough = 'sso';
        return await reply.redirect(options.pagePath, 302);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        request.log.info({ code: error.code, err: error.cause }, 'a single sign-on was refused');
        return reply.redirect(`${options.pagePath}/sign-in?sso_error=${encodeURIComponent(error.code)}`, 302);
      }
    },
  });
}
