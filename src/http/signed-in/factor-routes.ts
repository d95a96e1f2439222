import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  beginAuthenticator,
  factorsOf,
  hasAuthenticator,
  removeAuthenticator,
  useAuthenticatorCode,
} from '../../accounts/factors/authenticator.ts';
import { factorKindsOf, keepsAFactorWithout } from '../../accounts/factors/factor-policy.ts';
import {
  looksLikeRecoveryCode,
  makeRecoveryCodes,
  useRecoveryCode,
} from '../../accounts/factors/recovery-codes.ts';
import { passkeysOf, type RelyingParty } from '../../accounts/factors/passkeys.ts';
import { passwordMatches } from '../../accounts/passwords.ts';
import type { Database } from '../../db/database.ts';
import { factorErrors, wrongCurrentPassword } from '../../errors.ts';
import { clientAddressKey, createAttemptLimits, type Reservation } from '../attempt-limits.ts';
import { handRoute } from '../contract-routes.ts';
import type { accountRoutes } from './account-contract.ts';
import { registerPasskeyRoutes } from './passkey-routes.ts';
import { signedInPerson, tenantOf, type TenantKind } from './person.ts';

/** How long the half-signed-in state of a sign-in waits for its second step. */
export const SECOND_STEP_MS = 5 * 60_000;
/** Wrong codes (or passwords given as proof) allowed in 15 minutes, per person and per client address. */
const CODE_WINDOW_MS = 15 * 60_000;
const WRONG_CODES_PER_PERSON = 10;
const WRONG_CODES_PER_CLIENT = 50;

/** What {@link registerFactorRoutes} is given by the surface's account routes. */
export interface FactorRoutesOptions {
  db: Database;
  kind: TenantKind;
  /** Names the surface's budgets, e.g. `console` (`console-code:account`). */
  name: string;
  contract: ReturnType<typeof accountRoutes>;
  /** Signs the user in on this request's session (a new session id), answering the session. */
  signIn: (request: FastifyRequest, reply: FastifyReply, userId: string) => Promise<object>;
  /** The site the surface's passkeys are for: its public address, as it is now. */
  relyingParty: () => RelyingParty;
}

/**
 * Whether a sign-in whose password was right must wait for a second step: when the person has an authenticator
 * app or a passkey, the session becomes half-signed-in (a new session id, kept server-side, naming the person
 * only as `pendingUserId`, which no guard reads) and the answer says so (`secondFactor`: the app when they have
 * one, for the pages that know only it; `secondFactors`: each they have); else undefined and the caller signs
 * them in.
 */
export async function beginSecondStep(
  db: Database,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  sessionAnswer: (request: FastifyRequest) => Promise<{ answer: object }>,
): Promise<object | undefined> {
  const factors = await factorKindsOf(db, userId);
  const [first] = factors;
  if (first === undefined) return undefined;
  await request.session.regenerate();
  request.session.pendingUserId = userId;
  request.session.pendingSince = Date.now();
  const { answer } = await sessionAnswer(request);
  return { csrfToken: reply.generateCsrf(), ...answer, secondFactor: first, secondFactors: factors };
}

/** The person of the session's half-done sign-in; UNAUTHENTICATED when none was begun in the last 5 minutes. */
export function pendingSignIn(request: FastifyRequest): string {
  const { pendingUserId, pendingSince } = request.session;
  if (
    pendingUserId === undefined ||
    pendingSince === undefined ||
    Date.now() - pendingSince > SECOND_STEP_MS
  ) {
    throw factorErrors.signInNotBegun();
  }
  return pendingUserId;
}

/**
 * The second factor's routes, the same on every signed-in surface: the second step of a sign-in, and the person's
 * own authenticator app and recovery codes (and passkeys: passkey-routes.ts). Every code checked is counted first in the database, per person and
 * per client (attempt-limits.ts), and given back unless it was wrong: tries sent at once never check more codes
 * than the limit.
 */
export function registerFactorRoutes(api: FastifyInstance, options: FactorRoutesOptions): void {
  const { db, kind, contract } = options;
  /** Whose passkey a request tries, when it said (a passkey names its person: see `countedTry`). */
  const claimed = new WeakMap<FastifyRequest, string>();
  /** Whose codes a request tries: the signed-in person's, the half-signed-in one's, or its passkey's. */
  const owner = (request: FastifyRequest) =>
    claimed.get(request) ??
    (request.signedInPerson ? signedInPerson(request, kind).user.id : (request.session.pendingUserId ?? ''));
  const wrongCodes = createAttemptLimits(db, 'wrong codes', [
    {
      name: `${options.name}-code:account`,
      max: WRONG_CODES_PER_PERSON,
      windowMs: CODE_WINDOW_MS,
      by: owner,
    },
    {
      name: `${options.name}-code:client`,
      max: WRONG_CODES_PER_CLIENT,
      windowMs: CODE_WINDOW_MS,
      by: clientAddressKey,
    },
  ]);

  /** Runs a check counted as a try: given back when it passed, or was refused for what is not a guess. */
  async function counted(request: FastifyRequest, check: () => Promise<boolean>): Promise<void> {
    const attempt: Reservation = await wrongCodes.reserve(request);
    let right: boolean;
    try {
      right = await check();
    } catch (error) {
      // A replayed or used code was a right one, and a missing app is no guess: neither stays counted.
      await attempt.release();
      throw error;
    }
    if (!right) throw factorErrors.wrong();
    await attempt.release();
  }

  /**
   * Runs a check of a passkey counted as a try of `ownerId`'s: given back when it passed; a refusal stays
   * counted, whatever it was (the answer came from the person's device, or from a guesser).
   */
  async function countedTry<T>(
    request: FastifyRequest,
    ownerId: string,
    check: () => Promise<T>,
  ): Promise<T> {
    claimed.set(request, ownerId);
    const attempt = await wrongCodes.reserve(request);
    const result = await check();
    await attempt.release();
    return result;
  }

  /** A code of the app, or a recovery code, by its shape. */
  const useCode = (userId: string, code: string) =>
    looksLikeRecoveryCode(code) ? useRecoveryCode(db, userId, code) : useAuthenticatorCode(db, userId, code);

  /** A code of the app or the password, as the person gave it, before removing the app or remaking codes. */
  async function proven(
    request: FastifyRequest,
    body: { code?: string; password?: string },
  ): Promise<string> {
    const userId = signedInPerson(request, kind).user.id;
    const code = body.code?.trim() ?? '';
    const password = body.password ?? '';
    if (code !== '') await counted(request, () => useAuthenticatorCode(db, userId, code));
    else if (password !== '') {
      const attempt = await wrongCodes.reserve(request);
      const [user] = await db.query<{ passwordHash: string | null }>(
        'select password_hash as "passwordHash" from users where id = $1',
        [userId],
      );
      if (!(await passwordMatches(user?.passwordHash, password))) throw wrongCurrentPassword();
      await attempt.release();
    } else throw factorErrors.proofRequired();
    return userId;
  }

  api.route<{ Body: { code: string } }>({
    ...handRoute(contract.signInSecondStep),
    handler: async (request, reply) => {
      const pendingUserId = pendingSignIn(request);
      await counted(request, () => useCode(pendingUserId, request.body.code.trim()));
      return options.signIn(request, reply, pendingUserId);
    },
  });

  api.route({
    ...handRoute(contract.factors),
    handler: async (request) => {
      const userId = signedInPerson(request, kind).user.id;
      return { ...(await factorsOf(db, userId)), passkeys: await passkeysOf(db, userId) };
    },
  });

  api.route({
    ...handRoute(contract.beginAuthenticator),
    handler: async (request) => {
      const { user } = signedInPerson(request, kind);
      return beginAuthenticator(db, { userId: user.id, email: user.email });
    },
  });

  api.route<{ Body: { code: string } }>({
    ...handRoute(contract.confirmAuthenticator),
    handler: async (request) => {
      const userId = signedInPerson(request, kind).user.id;
      await counted(request, () =>
        useAuthenticatorCode(db, userId, request.body.code.trim(), { confirming: true }),
      );
      return { recoveryCodes: await makeRecoveryCodes(db, userId) };
    },
  });

  api.route<{ Body: { code?: string; password?: string } }>({
    ...handRoute(contract.removeAuthenticator),
    handler: async (request) => {
      const person = signedInPerson(request, kind);
      // Under a policy that requires a factor of them, the app stays unless they have a passkey.
      if (
        person.secondFactor?.required === true &&
        !(await keepsAFactorWithout(db, person.user.id, { authenticator: true }))
      ) {
        throw factorErrors.lastRequired(tenantOf(person, kind).name);
      }
      await removeAuthenticator(db, await proven(request, request.body));
      return {};
    },
  });

  api.route<{ Body: { code?: string; password?: string } }>({
    ...handRoute(contract.remakeRecoveryCodes),
    handler: async (request) => {
      if (!(await hasAuthenticator(db, signedInPerson(request, kind).user.id))) throw factorErrors.noApp();
      return { recoveryCodes: await makeRecoveryCodes(db, await proven(request, request.body)) };
    },
  });

  registerPasskeyRoutes(api, { ...options, countedTry, proven, pendingSignIn });
}
