import { Type, type TProperties, type TSchema } from '@sinclair/typebox';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { AnyObject, answers, Body, Empty, Timestamp } from '../contract.ts';
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
     * app or a passkey is not signed in yet: the answer says `secondFactor` (and `secondFactors`, all they have),
     * and `signInSecondStep` or `signInSecondStepPasskey` finishes.
     */
    signIn: {
      method: 'POST',
      url: '/session',
      access: 'public',
      body: Body({ email: Email, password: Password, ...choice }),
      response: answers({
        200: Type.Intersect([
          SessionAnswer,
          Type.Object({
            /** `authenticator` when they have an app, else `passkey`; absent when signed in. */
            secondFactor: Type.Optional(SecondFactor),
            /** Every second factor the person has, which the second step may take. */
            secondFactors: Type.Optional(Type.Array(SecondFactor)),
          }),
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
          passkeys: Type.Array(PasskeySummary),
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
    /**
     * Begins adding a passkey: the options for the browser's `navigator.credentials.create` (a discoverable
     * credential of these pages), its challenge kept in the session for 5 minutes.
     */
    passkeyOptions: {
      method: 'POST',
      url: '/factors/passkeys/options',
      access: 'signedIn',
      response: answers({ 200: CreationOptions }),
    },
    /** Adds the passkey the browser made for the options, under the name the person gave it. */
    addPasskey: {
      method: 'POST',
      url: '/factors/passkeys',
      access: 'signedIn',
      body: Body({ name: PasskeyName, passkey: RegistrationAnswer }),
      response: answers({ 200: PasskeySummary }),
    },
    /** Renames one of the person's passkeys (NOT_FOUND when none of theirs has the id). */
    renamePasskey: {
      method: 'PATCH',
      url: '/factors/passkeys/:id',
      access: 'signedIn',
      params: PasskeyId,
      body: Body({ name: PasskeyName }),
      response: answers({ 200: PasskeySummary }),
    },
    /** Removes one of the person's passkeys, given a code of their app or their password. */
    removePasskey: {
      method: 'DELETE',
      url: '/factors/passkeys/:id',
      access: 'signedIn',
      params: PasskeyId,
      body: Proof,
      response: answers({ 200: Empty }),
    },
    /**
     * Begins signing in with a passkey, without an address: the options for `navigator.credentials.get` (any
     * passkey of these pages the device holds; the device verifies the person).
     */
    passkeySignInOptions: {
      method: 'POST',
      url: '/session/passkey/options',
      access: 'public',
      response: answers({ 200: RequestOptions }),
    },
    /**
     * Signs in with the passkey the browser chose for the options: it names the person and their tenant, and
     * is both factors (wrong answers counted as wrong codes are).
     */
    signInWithPasskey: {
      method: 'POST',
      url: '/session/passkey',
      access: 'public',
      body: Body({ passkey: AuthenticationAnswer }),
      response: answers({ 200: SessionAnswer }),
    },
    /** The second step of a sign-in with a passkey: the options for one of the person's own passkeys. */
    secondStepPasskeyOptions: {
      method: 'POST',
      url: '/session/second-factor/passkey/options',
      access: 'public',
      response: answers({ 200: RequestOptions }),
    },
    /** Finishes a sign-in begun with the password, with one of the person's passkeys, within 5 minutes. */
    signInSecondStepPasskey: {
      method: 'POST',
      url: '/session/second-factor/passkey',
      access: 'public',
      body: Body({ passkey: AuthenticationAnswer }),
      response: answers({ 200: SessionAnswer }),
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
/** What a sign-in may ask as its second step. */
const SecondFactor = Type.Union([Type.Literal('authenticator'), Type.Literal('passkey')]);
/** A passkey as its person's page lists it. */
const PasskeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Timestamp(),
  lastUsedAt: Type.Union([Timestamp(), Type.Null()]),
});
const PasskeyId = Type.Object({ id: Type.String({ format: 'uuid' }) });
const PasskeyName = Type.String({ maxLength: 100 });
/** A base64url value of a WebAuthn answer: far above what an authenticator sends. */
const Base64Url = (maxLength: number) => Type.String({ maxLength, pattern: '^[A-Za-z0-9_-]*={0,2}$' });
/** The options for the browser, as @simplewebauthn/server makes them: passed through as they are. */
const CreationOptions = Type.Unsafe<PublicKeyCredentialCreationOptionsJSON>(AnyObject);
const RequestOptions = Type.Unsafe<PublicKeyCredentialRequestOptionsJSON>(AnyObject);
/** The browser's answer to the options of adding a passkey (@simplewebauthn/browser's `startRegistration`). */
const RegistrationAnswer = Type.Unsafe<RegistrationResponseJSON>(
  Type.Object({
    id: Base64Url(1400),
    rawId: Base64Url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: Base64Url(10_000),
      attestationObject: Base64Url(100_000),
      authenticatorData: Type.Optional(Base64Url(100_000)),
      transports: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(Base64Url(10_000)),
    }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 40 })),
    clientExtensionResults: AnyObject,
  }),
);
/** The browser's answer to the options of signing in (@simplewebauthn/browser's `startAuthentication`). */
const AuthenticationAnswer = Type.Unsafe<AuthenticationResponseJSON>(
  Type.Object({
    id: Base64Url(1400),
    rawId: Base64Url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: Base64Url(10_000),
      authenticatorData: Base64Url(100_000),
      signature: Base64Url(10_000),
      userHandle: Type.Optional(Base64Url(200)),
    }),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 40 })),
    clientExtensionResults: AnyObject,
  }),
);

/**
 * The signed-in routes a person may call while their tenant requires a second factor of them and they have none
 * (surface.ts refuses them every other, but the public ones): their factors, adding an app or a passkey.
 */
export const SECOND_FACTOR_SETUP = [
  'factors',
  'beginAuthenticator',
  'confirmAuthenticator',
  'remakeRecoveryCodes',
  'passkeyOptions',
  'addPasskey',
] as const satisfies readonly (keyof ReturnType<typeof accountRoutes>)[];
