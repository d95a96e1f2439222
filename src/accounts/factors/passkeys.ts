import { createHash } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { webauthn, type WebAuthn } from './webauthn.ts';
import type { Queryable } from '../../db/database.ts';
import { AppError, notFound, passkeyErrors } from '../../errors.ts';
import { TENANT_TABLES } from '../tenant-tables.ts';

/**
 * Passkeys (WebAuthn, with @simplewebauthn/server): a person adds any number, each named, and signs in with one
 * without typing their address (a discoverable credential: the passkey names the person, so the tenant too), or
 * gives one as the second step after their password. Each ceremony answers a challenge the server made for this
 * browser session, for one purpose, within 5 minutes, once; the answer must come from these pages' origin and
 * be signed for their relying party id (the host name of the surface's public address). Each refusal has its own
 * code (errors.ts `passkeyErrors`). A signature counter that does not move past the stored one (when either is not
 * 0: some authenticators never count) is a cloned authenticator or a replayed answer, refused in the statement
 * that moves it, so two uses of one answer never both pass.
 */

/** How long a passkey challenge may be answered. */
export const CHALLENGE_MS = 5 * 60_000;
/** Passkeys per person: enough for every device one has. */
const MAX_PASSKEYS = 20;

/** The site passkeys are made for: the surface's public address. */
export interface RelyingParty {
  /** The host name of the public address (`localhost`, `console.example.com`): what a passkey is bound to. */
  id: string;
  /** The origin pages answer from (`https://console.example.com`). */
  origin: string;
  /** What the browser shows the person, e.g. "Portico console". */
  name: string;
}

/** The relying party of pages served at `publicUrl` (their base address), named `name`. */
export function relyingPartyOf(publicUrl: string, name: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name };
}

/** What a challenge is for: adding a passkey, signing in with one, or the second step after a password. */
export type PasskeyPurpose = 'register' | 'sign-in' | 'second-step';

/** A challenge as the session keeps it until it is answered. */
export interface PasskeyChallenge {
  value: string;
  purpose: PasskeyPurpose;
  /** When it was made, in ms since the epoch. */
  issuedAt: number;
}

/** A passkey as its person's page lists it. */
export interface PasskeySummary {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** The WebAuthn user handle of a user: the 16 bytes of their id (a user row, so one tenant). */
const userHandleOf = (userId: string) => Buffer.from(userId.replaceAll('-', ''), 'hex');

/** A passkey's name as given, trimmed; BAD_USER_INPUT when it is empty. */
function nameOf(given: string): string {
  const name = given.trim();
  if (name === '') {
    throw new AppError('BAD_USER_INPUT', 'Name the passkey, e.g. "Work laptop" or "Phone".', {
      field: 'name',
    });
  }
  return name;
}

/**
 * Takes the challenge of the session for `purpose`: PASSKEY_CHALLENGE_INVALID when none was made, or more than
 * 5 minutes ago, or for another purpose. The caller has removed it from the session: it works once.
 */
export function liveChallenge(challenge: PasskeyChallenge | undefined, purpose: PasskeyPurpose): string {
  if (!challenge || Date.now() - challenge.issuedAt > CHALLENGE_MS) throw passkeyErrors.challengeExpired();
  if (challenge.purpose !== purpose) throw passkeyErrors.challengeMismatch();
  return challenge.value;
}

/**
 * What the browser says it signed: the challenge and origin of its client data, and the RP id hash of the
 * authenticator's data. Each is checked here first, so that each refusal has its own code; the library then
 * checks them all again, with the signature.
 */
function checkAnswer(
  helpers: WebAuthn['helpers'],
  rp: RelyingParty,
  expected: { challenge: string; type: 'webauthn.create' | 'webauthn.get' },
  answer: { clientDataJSON: string; authenticatorData: Uint8Array<ArrayBuffer> },
): void {
  let clientData: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    clientData = JSON.parse(Buffer.from(answer.clientDataJSON, 'base64url').toString('utf8')) as {
      type?: unknown;
    };
  } catch {
    throw passkeyErrors.invalid();
  }
  if (clientData.type !== expected.type) throw passkeyErrors.invalid();
  if (clientData.challenge !== expected.challenge) throw passkeyErrors.challengeMismatch();
  if (clientData.origin !== rp.origin) throw passkeyErrors.origin(String(clientData.origin), rp.origin);
  let signedFor: Uint8Array;
  try {
    signedFor = helpers.parseAuthenticatorData(answer.authenticatorData).rpIdHash;
  } catch {
    throw passkeyErrors.invalid();
  }
  if (!createHash('sha256').update(rp.id).digest().equals(signedFor)) {
    throw passkeyErrors.rpId(rp.id);
  }
}

/** The authenticator data of a registration's attestation object; PASSKEY_INVALID when it does not decode. */
function registrationAuthData(
  helpers: WebAuthn['helpers'],
  response: RegistrationResponseJSON,
): Uint8Array<ArrayBuffer> {
  try {
    return helpers
      .decodeAttestationObject(Buffer.from(response.response.attestationObject, 'base64url'))
      .get('authData');
  } catch {
    throw passkeyErrors.invalid();
  }
}

/** The person's passkeys, newest first. */
export async function passkeysOf(db: Queryable, userId: string): Promise<PasskeySummary[]> {
  return db.query<PasskeySummary>(
    `select id, name, created_at as "createdAt", last_used_at as "lastUsedAt" from passkeys
     where user_id = $1 order by created_at desc, id`,
    [userId],
  );
}

/**
 * The options of adding a passkey for the person (a discoverable credential, the person verified when the
 * device can), excluding those they have; the caller keeps `challenge` in the session.
 */
export async function registrationOptions(
  db: Queryable,
  rp: RelyingParty,
  person: { userId: string; email: string; name: string; tenantName: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await db.query<{ credentialId: string; transports: string[] }>(
    'select credential_id as "credentialId", transports from passkeys where user_id = $1',
    [person.userId],
  );
  const { server, helpers } = await webauthn();
  return server.generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: userHandleOf(person.userId),
    userName: person.email,
    // The browser's chooser shows it: one address may have accounts in several tenants.
    userDisplayName: `${person.name || person.email} (${person.tenantName})`,
    timeout: CHALLENGE_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((each) => ({ id: each.credentialId, transports: each.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    // Those every authenticator offers, named so that the library does not probe for post-quantum ones (experimental).
    supportedAlgorithmIDs: [helpers.COSEALG.EdDSA, helpers.COSEALG.ES256, helpers.COSEALG.RS256],
  });
}

/**
 * Checks the browser's answer to {@link registrationOptions} and keeps the passkey under `name`. The refusals
 * of {@link checkAnswer}; PASSKEY_INVALID when it does not verify; PASSKEY_EXISTS for a credential added
 * already (by anyone); CONFLICT past 20 passkeys.
 */
export async function addPasskey(
  db: Queryable,
  rp: RelyingParty,
  options: { userId: string; name: string; response: RegistrationResponseJSON; challenge: string },
): Promise<PasskeySummary> {
  const name = nameOf(options.name);
  const { response, challenge } = options;
  const { server, helpers } = await webauthn();
  const authenticatorData = registrationAuthData(helpers, response);
  const { clientDataJSON } = response.response;
  checkAnswer(helpers, rp, { challenge, type: 'webauthn.create' }, { clientDataJSON, authenticatorData });
  let verified;
  try {
    verified = await server.verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
      // The signature algorithms every authenticator offers. Named, so that the library does not probe the runtime
      // for post-quantum ones (which Node reports as an experimental feature on every call).
      supportedAlgorithmIDs: [helpers.COSEALG.EdDSA, helpers.COSEALG.ES256, helpers.COSEALG.RS256],
    });
  } catch {
    throw passkeyErrors.invalid();
  }
  if (!verified.verified) throw passkeyErrors.invalid();
  const { credential } = verified.registrationInfo;
  const [count] = await db.query<{ n: number }>(
    'select count(*)::int as n from passkeys where user_id = $1',
    [options.userId],
  );
  if ((count?.n ?? 0) >= MAX_PASSKEYS) {
    throw new AppError(
      'CONFLICT',
      `You have ${String(MAX_PASSKEYS)} passkeys already: remove one before adding another.`,
    );
  }
  const [added] = await db.query<PasskeySummary>(
    `insert into passkeys (user_id, credential_id, public_key, sign_count, transports, name)
     values ($1, $2, $3, $4, $5, $6) on conflict (credential_id) do nothing
     returning id, name, created_at as "createdAt", last_used_at as "lastUsedAt"`,
    [
      options.userId,
      credential.id,
      Buffer.from(credential.publicKey),
      credential.counter,
      (credential.transports ?? []).slice(0, 10),
      name,
    ],
  );
  if (!added) throw passkeyErrors.exists();
  return added;
}

/**
 * The options of signing in with a passkey: any passkey of these pages the device holds (`userId` undefined:
 * the person chooses one, and it names them; their device must verify them, as the passkey is both factors),
 * or, for the second step, one of the person's own.
 */
export async function authenticationOptions(
  db: Queryable,
  rp: RelyingParty,
  userId?: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allowed =
    userId === undefined
      ? undefined
      : await db.query<{ id: string; transports: string[] }>(
          'select credential_id as id, transports from passkeys where user_id = $1',
          [userId],
        );
  if (allowed?.length === 0) {
    throw new AppError('CONFLICT', 'You have no passkey: use a code from your authenticator app.');
  }
  const { server } = await webauthn();
  return server.generateAuthenticationOptions({
    rpID: rp.id,
    timeout: CHALLENGE_MS,
    userVerification: userId === undefined ? 'required' : 'preferred',
    ...(allowed ? { allowCredentials: allowed } : {}),
  });
}

/**
 * Whose passkey a sign-in's answer names: the user of the credential, when a person of `kind`'s tenants who can
 * sign in has it, else undefined. What tries are counted by, before {@link usePasskey} checks the answer.
 */
export async function ownerOfPasskey(
  db: Queryable,
  kind: keyof typeof TENANT_TABLES,
  credentialId: string,
): Promise<string | undefined> {
  const [row] = await db.query<{ userId: string }>(
    `select p.user_id as "userId" from passkeys p join users u on u.id = p.user_id
     where p.credential_id = $1 and u.${TENANT_TABLES[kind].column} is not null
       and u.deactivated_at is null and u.password_hash is not null`,
    [credentialId],
  );
  return row?.userId;
}

/**
 * Checks a sign-in's answer to {@link authenticationOptions} and uses the passkey (its counter moves on, and when
 * it was last used); answers whose it is. `kind` is the tenants of the pages: a passkey of a person of another
 * kind, removed or deactivated is PASSKEY_UNKNOWN; `userId`, on the second step, is the person who typed their
 * password (another's passkey is PASSKEY_OF_ANOTHER_PERSON). Besides the refusals of {@link checkAnswer}:
 * PASSKEY_INVALID when it does not verify (or, signing in with it alone, the device did not verify the person);
 * PASSKEY_COUNTER_BEHIND when its counter did not move past the stored one.
 */
export async function usePasskey(
  db: Queryable,
  rp: RelyingParty,
  options: {
    kind: keyof typeof TENANT_TABLES;
    response: AuthenticationResponseJSON;
    challenge: string;
    userId?: string | undefined;
  },
): Promise<{ userId: string }> {
  const { response, challenge } = options;
  const { server, helpers } = await webauthn();
  const authenticatorData = Buffer.from(response.response.authenticatorData, 'base64url');
  let parsed;
  try {
    parsed = helpers.parseAuthenticatorData(authenticatorData);
  } catch {
    throw passkeyErrors.invalid();
  }
  checkAnswer(
    helpers,
    rp,
    { challenge, type: 'webauthn.get' },
    { clientDataJSON: response.response.clientDataJSON, authenticatorData },
  );
  const [passkey] = await db.query<{
    id: string;
    userId: string;
    publicKey: Uint8Array;
    signCount: string;
    transports: string[];
  }>(
    `select p.id, p.user_id as "userId", p.public_key as "publicKey", p.sign_count::text as "signCount",
       p.transports
     from passkeys p join users u on u.id = p.user_id
     where p.credential_id = $1 and u.${TENANT_TABLES[options.kind].column} is not null
       and u.deactivated_at is null and u.password_hash is not null`,
    [response.id],
  );
  if (!passkey) throw passkeyErrors.unknown();
  if (options.userId !== undefined && passkey.userId !== options.userId) throw passkeyErrors.anotherPerson();
  const handle = response.response.userHandle;
  if (handle && !Buffer.from(handle, 'base64url').equals(userHandleOf(passkey.userId))) {
    throw passkeyErrors.invalid();
  }
  const stored = Number(passkey.signCount);
  if ((parsed.counter > 0 || stored > 0) && parsed.counter <= stored) throw passkeyErrors.counterBehind();
  const alone = options.userId === undefined;
  if (alone && !parsed.flags.uv) throw passkeyErrors.notVerified();
  let verified;
  try {
    verified = await server.verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: response.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: stored,
        transports: passkey.transports,
      },
      requireUserVerification: alone,
    });
  } catch {
    throw passkeyErrors.invalid();
  }
  if (!verified.verified) throw passkeyErrors.invalid();
  // Moved on only past the stored count (or both 0), in the statement that moves it: one answer passes once.
  const used = await db.query(
    `update passkeys set sign_count = $2, last_used_at = clock_timestamp()
     where id = $1 and (sign_count < $2 or (sign_count = 0 and $2 = 0)) returning id`,
    [passkey.id, verified.authenticationInfo.newCounter],
  );
  if (used.length === 0) throw passkeyErrors.counterBehind();
  return { userId: passkey.userId };
}

/** Renames one of the person's passkeys; NOT_FOUND when none of theirs has the id. */
export async function renamePasskey(
  db: Queryable,
  options: { userId: string; id: string; name: string },
): Promise<PasskeySummary> {
  const [renamed] = await db.query<PasskeySummary>(
    `update passkeys set name = $3 where user_id = $1 and id = $2
     returning id, name, created_at as "createdAt", last_used_at as "lastUsedAt"`,
    [options.userId, options.id, nameOf(options.name)],
  );
  if (!renamed) throw notFound('passkey');
  return renamed;
}

/** Whether the person has a passkey of this id (before asking them to prove it is them to remove it). */
export async function findPasskey(db: Queryable, userId: string, id: string): Promise<void> {
  const rows = await db.query('select 1 from passkeys where user_id = $1 and id = $2', [userId, id]);
  if (rows.length === 0) throw notFound('passkey');
}

/** Removes one of the person's passkeys; NOT_FOUND when none of theirs has the id. */
export async function removePasskey(db: Queryable, options: { userId: string; id: string }): Promise<void> {
  const removed = await db.query('delete from passkeys where user_id = $1 and id = $2 returning id', [
    options.userId,
    options.id,
  ]);
  if (removed.length === 0) throw notFound('passkey');
}
