import type * as WebAuthnServer from '@simplewebauthn/server';
import type * as WebAuthnHelpers from '@simplewebauthn/server/helpers';

/** @simplewebauthn/server and its helpers (CBOR, authenticator data, algorithm ids). */
export interface WebAuthn {
  server: typeof WebAuthnServer;
  helpers: typeof WebAuthnHelpers;
}

let library: Promise<WebAuthn> | undefined;

/**
 * @simplewebauthn/server, loaded by the first passkey ceremony: with the @peculiar ASN.1 modules it needs, about
 * 250 modules that each start would load for the few processes where someone adds or uses a passkey.
 */
export function webauthn(): Promise<WebAuthn> {
  library ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(
    ([server, helpers]) => ({ server, helpers }),
  );
  return library;
}
