import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { ApiError } from '../../api-error.ts';

/**
 * The browser's half of a passkey (@simplewebauthn/browser): it asks the device for a new passkey or for an
 * answer with one, and says in the person's words what stopped it (the prompt closed, no passkey on the device,
 * a passkey there already), as an {@link ApiError} of the page's own (`PASSKEY_CANCELLED`), so that the forms show
 * it as they show the server's refusals.
 */

/** What stopped the browser, said as the page says the server's refusals. */
function stopped(error: unknown, adding: boolean): ApiError {
  const name = error instanceof Error ? (error.cause instanceof Error ? error.cause.name : error.name) : '';
  const said = (message: string) =>
    new ApiError(0, 'PASSKEY_CANCELLED', message, undefined, { field: 'passkey' });
  if (name === 'NotAllowedError') {
    return said(
      adding
        ? 'No passkey was made: the prompt was closed or timed out. Try again when you are ready.'
        : 'No passkey was used: the prompt was closed or timed out, or this device holds no passkey for these pages. Try again, or sign in with your password.',
    );
  }
  if (name === 'InvalidStateError') {
    return said('This device holds one of your passkeys for these pages already: you need not add it again.');
  }
  if (name === 'SecurityError') {
    return said('This browser refuses passkeys on this address: open the pages at their https:// address.');
  }
  return said(
    `The browser could not use a passkey: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** Whether the browser can use passkeys at all (an old one cannot: the pages then do not offer them). */
export const passkeysWork = (): boolean => browserSupportsWebAuthn();

/** Asks the device to make a passkey for the server's options. */
export async function makePasskey(
  options: PublicKeyCredentialCreationOptionsJSON,
): Promise<RegistrationResponseJSON> {
  try {
    return await startRegistration({ optionsJSON: options });
  } catch (error) {
    throw stopped(error, true);
  }
}

/** Asks the device to answer the server's options with one of its passkeys. */
export async function answerWithPasskey(
  options: PublicKeyCredentialRequestOptionsJSON,
): Promise<AuthenticationResponseJSON> {
  try {
    return await startAuthentication({ optionsJSON: options });
  } catch (error) {
    throw stopped(error, false);
  }
}
