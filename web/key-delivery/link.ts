// What the page reads from its own address: the delivery's link id (the path) and the secret the key was
// encrypted under (the fragment, which the browser never sends to a server).

/** The link as the page found it, or why it cannot be used. */
export type DeliveryLink =
  { ok: true; linkId: string; secret: Uint8Array<ArrayBuffer> } | { ok: false; problem: string };

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const padded = text.replaceAll('-', '+').replaceAll('_', '/');
  const binary = atob(padded + '='.repeat((4 - (padded.length % 4)) % 4));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

function toBase64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

/** `/key-delivery/<link id>#<secret>`: a 22-character id and a 43-character secret, both base64url. */
export function readLink(location: Pick<Location, 'pathname' | 'hash'>): DeliveryLink {
  const linkId = location.pathname.replace(/^\/key-delivery\/?/, '').replace(/\/$/, '');
  const secret = location.hash.replace(/^#/, '');
  if (!BASE64URL.test(linkId) || linkId.length < 16) {
    return {
      ok: false,
      problem: 'This address is not a key-delivery link: open the whole link from the e-mail.',
    };
  }
  if (secret.length !== 43 || !BASE64URL.test(secret)) {
    return {
      ok: false,
      problem:
        'The end of this link (after the #) is missing or changed: open the whole link from the e-mail, as it is.',
    };
  }
  return { ok: true, linkId, secret: fromBase64url(secret) };
}

/** What the server is shown of the secret: its SHA-256, which proves the link is whole and reveals nothing. */
export async function proofOf(secret: Uint8Array<ArrayBuffer>): Promise<string> {
  return toBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', secret)));
}

/**
 * Decrypts the key the server handed over: AES-256-GCM under the link's secret, the link's id as additional
 * data. Throws when the ciphertext does not belong to this link and secret.
 */
export async function decryptKey(
  link: { linkId: string; secret: Uint8Array<ArrayBuffer> },
  sealed: { ciphertext: string; iv: string },
): Promise<string> {
  const key = await crypto.subtle.importKey('raw', link.secret, 'AES-GCM', false, ['decrypt']);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64url(sealed.iv), additionalData: new TextEncoder().encode(link.linkId) },
    key,
    fromBase64url(sealed.ciphertext),
  );
  return new TextDecoder().decode(plain);
}
