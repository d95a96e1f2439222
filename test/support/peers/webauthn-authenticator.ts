import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/**
 * A passkey on a software authenticator, as a phone or a laptop holds one: an EC P-256 key made with node:crypto,
 * its credential id, the user handle it was made for, and a signature counter. It answers the options the server
 * made as a browser would hand its authenticator's answer to @simplewebauthn/browser: the attestation object in
 * CBOR (format `none`) with the COSE public key, the authenticator data, an ES256 signature over the data and
 * the client data's hash. What a test changes (`origin`, `rpId`, `challenge`, `counter`, `userVerified`) makes the
 * answers that the server must refuse; nothing of the server is mocked.
 */

/** Just enough CBOR (RFC 8949) for an attestation object and a COSE key: integers, bytes, text, maps. */
function cbor(value: number | Uint8Array | string | Map<number | string, unknown>): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) {
      const buffer = Buffer.alloc(3);
      buffer[0] = (major << 5) | 25;
      buffer.writeUInt16BE(length, 1);
      return buffer;
    }
    const buffer = Buffer.alloc(5);
    buffer[0] = (major << 5) | 26;
    buffer.writeUInt32BE(length, 1);
    return buffer;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [key, item] of value) {
    parts.push(cbor(key), cbor(item as number | Uint8Array | string | Map<number | string, unknown>));
  }
  return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const base64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

/** Flags of the authenticator data (WebAuthn §6.1). */
const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_CREDENTIAL = 0x40;

/** What a test changes in an answer, to make one the server must refuse. */
export interface AnswerChanges {
  /** The page's origin the browser names (default: the expected one given). */
  origin?: string;
  /** The relying party id the authenticator signs for (default: the options'). */
  rpId?: string;
  /** The challenge the browser names (default: the options'). */
  challenge?: string;
  /** The counter sent (default: one more than the last). */
  counter?: number;
  /** Whether the device verified the person (default: yes). */
  userVerified?: boolean;
}

export class SoftwarePasskey {
  /** The user handle the passkey was made for (the server's options name it), once registered. */
  userHandle: string | undefined;
  /** The last counter the passkey sent. */
  counter = 0;
  private rpId: string | undefined;

  constructor(
    private readonly keys: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
    }),
    readonly credentialId: Uint8Array = randomBytes(32),
  ) {}

  /** The credential id, as the server's routes name it. */
  get id(): string {
    return base64url(this.credentialId);
  }

  /** A copy of the passkey: the same key and id, its counter where it is now (a cloned authenticator). */
  clone(): SoftwarePasskey {
    const copy = new SoftwarePasskey(this.keys, this.credentialId);
    copy.userHandle = this.userHandle;
    copy.counter = this.counter;
    copy.rpId = this.rpId;
    return copy;
  }

  /** The COSE key (EC2, ES256, P-256) of the public key. */
  private coseKey(): Buffer {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    return cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]),
    );
  }

  private authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** Makes the credential for the server's options, answered as from `origin`. */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    changes: AnswerChanges = {},
  ): RegistrationResponseJSON {
    const rpId = changes.rpId ?? options.rp.id ?? new URL(origin).hostname;
    this.rpId = rpId;
    this.userHandle = options.user.id;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const verified = changes.userVerified ?? true;
    const flags = USER_PRESENT | ATTESTED_CREDENTIAL | (verified ? USER_VERIFIED : 0);
    const authData = this.authenticatorData(rpId, flags, this.counter, attested);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const clientData = this.clientData(
      'webauthn.create',
      changes.challenge ?? options.challenge,
      changes.origin ?? origin,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientData),
        attestationObject: base64url(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** Signs the server's challenge, answered as from `origin`; the counter moves on by one unless told. */
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
    changes: AnswerChanges = {},
  ): AuthenticationResponseJSON {
    const rpId = changes.rpId ?? options.rpId ?? this.rpId ?? new URL(origin).hostname;
    this.counter = changes.counter ?? this.counter + 1;
    const verified = changes.userVerified ?? true;
    const authData = this.authenticatorData(
      rpId,
      USER_PRESENT | (verified ? USER_VERIFIED : 0),
      this.counter,
    );
    const clientData = this.clientData(
      'webauthn.get',
      changes.challenge ?? options.challenge,
      changes.origin ?? origin,
    );
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: base64url(clientData),
        authenticatorData: base64url(authData),
        signature: base64url(signature),
        ...(this.userHandle === undefined ? {} : { userHandle: this.userHandle }),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}
