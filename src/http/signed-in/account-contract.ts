import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import { answers, Body, Empty, Timestamp } from '../contract.ts';
import { ssoSignInRoutes } from './sso-contract.ts';

/**
 * The contract of the routes a person uses before and around a session, the same on every page people sign in
 * to (the customer dashboard, the organization console): who is signed in, sign-in and sign-out, the mailed
 * invitation and password reset links, open to anyone (`access: 'public'`), and one's own password, changed by
 * the signed-in (`access: 'signedIn'`). `SessionAnswer` is the surface's own
 * (who is signed in, to which tenant); `choice` the sign-in's way to name a tenant when one address and password
 * open several.
 *
 * @example
 * const routes = { ...accountRoutes(SessionAnswer, { instance: Type.Optional(Type.String()) }), … };
 */
export function accountRoutes<Answer extends TSchema, Choice extends TProperties>(
  SessionAnswer: Answer,
  choice: Choice,
) {
  return {
    /** Single sign-on through the tenant's identity provider (sso-contract.ts). */
    ...ssoSignInRoutes,
    /** Who is signed in, and a CSRF token. */
    session: { method: 'GET', url: '/session', access: 'public', response: answers({ 200: SessionAnswer }) },
    /**
     * Signs in (a CHOICE_REQUIRED code of the surface when several tenants open). A person with an authenticator
     * app is not signed in yet: the answer says `secondFactor: 'authenticator'`, and `signInSecondStep` finishes.
     */
    signIn: {
      method: 'POST',
      url: '/session',
      access: 'public',
      body: Body({ email: Email, password: Password, ...choice }),
      response: answers({
        200: Type.Intersect([
          SessionAnswer,
          Type.Object({ secondFactor: Type.Optional(Type.Literal('authenticator')) }),
        ]),
      }),
    },
    /**
     * The second step of a sign-in that asked for one, within 5 minutes, in the same browser session: a code of
     * the person's authenticator app, or one of their recovery codes (wrong ones counted per person and client).
     */
    signInSecondStep: {
      method: 'POST',
      url: '/session/second-factor',
      access: 'public',
      body: Body({ code: Code }),
      response: answers({ 200: SessionAnswer }),
    },
    /** Signs out. */
    signOut: { method: 'DELETE', url: '/session', access: 'public', response: answers({ 200: CsrfAnswer }) },
    /** Sets the invited person's password and signs them in. */
    acceptInvitation: {
      method: 'POST',
      url: '/invitation',
      access: 'public',
      body: Body({
        token: LinkToken,
        password: Password,
        name: Type.Optional(Type.String({ maxLength: 1000 })),
      }),
      response: answers({ 200: SessionAnswer }),
    },
    /** Mails a reset link to the address when it has an account (202 either way). */
    requestPasswordReset: {
      method: 'POST',
      url: '/password-reset',
      access: 'public',
      body: Body({ email: Email }),
      response: answers({ 202: Empty }),
    },
    /** Sets the new password; every session of the person ends. */
    confirmPasswordReset: {
      method: 'POST',
      url: '/password-reset/confirm',
      access: 'public',
      body: Body({ token: LinkToken, password: Password }),
      response: answers({ 200: CsrfAnswer }),
    },
    /**
     * Whether a mailed link works, without using it: the page of the link asks before it shows its form
     * (`LINK_*` otherwise; limited per client address).
     */
    checkLink: {
      method: 'POST',
      url: '/links/check',
      access: 'public',
      body: Body({
        purpose: Type.Union([Type.Literal('invitation'), Type.Literal('password_reset')]),
        token: LinkToken,
      }),
      response: answers({
        200: Type.Object({
          email: Type.String(),
          name: Type.String(),
          tenantName: Type.String(),
          expiresAt: Timestamp(),
        }),
      }),
    },
    /**
     * Changes the signed-in person's password, given their current one; their other sessions end, this one stays
     * (failures limited per person).
     */
    changePassword: {
      method: 'PUT',
      url: '/password',
      access: 'signedIn',
      body: Body({ currentPassword: Password, password: Password }),
      response: answers({ 200: Type.Object({ otherSessionsEnded: Type.Integer() }) }),
    },
    /** The signed-in person's second factor: since when they have an app, and how many recovery codes are left. */
    factors: {
      method: 'GET',
      url: '/factors',
      access: 'signedIn',
      response: answers({
        200: Type.Object({
          authenticatorAddedAt: Type.Union([Timestamp(), Type.Null()]),
          recoveryCodesLeft: Type.Integer(),
        }),
      }),
    },
    /**
     * Begins adding an authenticator app: its new secret, as typed and as a QR code (an SVG); it counts once
     * confirmed with a code from the app (CONFLICT when the person has one already).
     */
    beginAuthenticator: {
      method: 'POST',
      url: '/factors/authenticator',
      access: 'signedIn',
      response: answers({
        200: Type.Object({ secret: Type.String(), uri: Type.String(), qrSvg: Type.String() }),
      }),
    },
    /** Confirms the app being added with a code of it; answers the ten recovery codes, shown this once. */
    confirmAuthenticator: {
      method: 'POST',
      url: '/factors/authenticator/confirm',
      access: 'signedIn',
      body: Body({ code: Code }),
      response: answers({ 200: RecoveryCodes }),
    },
    /** Removes the app and its recovery codes, given a code of it or the person's password. */
    removeAuthenticator: {
      method: 'DELETE',
      url: '/factors/authenticator',
      access: 'signedIn',
      body: Proof,
      response: answers({ 200: Empty }),
    },
    /** Makes ten new recovery codes (the old ones stop working), given a code of the app or the password. */
    remakeRecoveryCodes: {
      method: 'POST',
      url: '/factors/recovery-codes',
      access: 'signedIn',
      body: Proof,
      response: answers({ 200: RecoveryCodes }),
    },
    /** The signed-in person's live sessions: browser, address, started, last active, and which is this one. */
    sessions: {
      method: 'GET',
      url: '/sessions',
      access: 'signedIn',
      response: answers({ 200: Type.Object({ sessions: Type.Array(SessionSummary) }) }),
    },
    /** Ends one of the person's sessions by its public id (NOT_FOUND when none of theirs has it). */
    endSession: {
      method: 'DELETE',
      url: '/sessions/:sessionId',
      access: 'signedIn',
      params: Type.Object({ sessionId: Type.String({ maxLength: 100 }) }),
      response: answers({ 200: Empty }),
    },
    /** Ends every session of the person but this one; answers how many ended. */
    endOtherSessions: {
      method: 'POST',
      url: '/sessions/end-others',
      access: 'signedIn',
      response: answers({ 200: Type.Object({ otherSessionsEnded: Type.Integer() }) }),
    },
  } as const;
}

/** One session as the person's list shows it (`accounts/session-list.ts`). */
const SessionSummary = Type.Object({
  id: Type.String(),
  browser: Type.String(),
  ipAddress: Type.Union([Type.String(), Type.Null()]),
  startedAt: Timestamp(),
  lastActiveAt: Timestamp(),
  current: Type.Boolean(),
});
const Email = Type.String({ maxLength: 254 });
// Far above the longest password Portico sets (200): what argon2 is asked to hash stays bounded.
const Password = Type.String({ maxLength: 1000 });
const LinkToken = Type.String({ maxLength: 200 });
/** An authenticator app's six digits, or a recovery code (12 characters, with or without its dashes). */
const Code = Type.String({ maxLength: 40 });
/** What proves it is the person, to remove their app or remake their codes: a code of the app, or the password. */
const Proof = Body({ code: Type.Optional(Code), password: Type.Optional(Password) });
/** Ten recovery codes, shown once. */
const RecoveryCodes = Type.Object({ recoveryCodes: Type.Array(Type.String()) });
/** A fresh CSRF token: the session has ended or changed. */
const CsrfAnswer = Type.Object({ csrfToken: Type.String() });
