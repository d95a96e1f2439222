// Why a single sign-on came back refused, in the person's words: the callback sends the browser to the sign-in page
// with `?sso_error=<code>` (src/http/signed-in/sso-routes.ts), a code of src/errors.ts's `ssoErrors`, never its
// message (a link's text is not the server's to trust).

import type { ErrorCode } from '../../../../src/errors.ts';

const WORDS: Partial<Record<ErrorCode, string>> = {
  SSO_STATE_INVALID:
    'Your single sign-on took more than 10 minutes, or was begun in another browser. Sign in with SSO again.',
  SSO_NONCE_INVALID: 'Your identity provider answered for another sign-in. Sign in with SSO again.',
  SSO_ISSUER_MISMATCH:
    'The answer came from another identity provider than the one connected here. Sign in again, and tell your admin if it happens again.',
  SSO_TOKEN_INVALID:
    "Your identity provider's answer could not be trusted (expired or not signed). Sign in again, and tell your admin if it happens again.",
  SSO_DENIED:
    'Your identity provider did not sign you in. Ask your admin whether you may use this application.',
  SSO_EMAIL_NOT_VERIFIED:
    'Your identity provider did not confirm your e-mail address. Verify it there, then sign in again.',
  SSO_DOMAIN_NOT_COVERED:
    'Your identity provider signed you in with an address single sign-on does not cover here. Ask your admin to add its domain.',
  SSO_NO_ACCOUNT:
    'You have no account here yet, and accounts are not made at sign-in. Ask an admin to invite you.',
  SSO_ACCOUNT_DEACTIVATED: 'Your account here was deactivated. Ask an admin to reactivate it.',
  SSO_ISSUER_UNREACHABLE:
    'Your identity provider could not be reached. Try again in a few minutes; where passwords are allowed, you can sign in with yours.',
  SSO_NOT_CONFIGURED: 'Single sign-on is not set up for your address here. Sign in with your password.',
};

/** What a refused single sign-on's code means, in words; a code this page does not know reads as a failure. */
export function ssoErrorInWords(code: string): string {
  return (
    WORDS[code as ErrorCode] ??
    'Single sign-on did not sign you in. Try again, or sign in with your password where it is allowed.'
  );
}
