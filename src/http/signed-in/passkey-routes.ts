import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  addPasskey,
  authenticationOptions,
  findPasskey,
  liveChallenge,
  ownerOfPasskey,
  registrationOptions,
  removePasskey,
  renamePasskey,
  usePasskey,
  type PasskeyPurpose,
  type RelyingParty,
} from '../../accounts/factors/passkeys.ts';
import { keepsAFactorWithout } from '../../accounts/factors/factor-policy.ts';
import type { Database } from '../../db/database.ts';
import { factorErrors } from '../../errors.ts';
import { handRoute } from '../contract-routes.ts';
import type { accountRoutes } from './account-contract.ts';
import { signedInPerson, tenantOf, type TenantKind } from './person.ts';

/** What {@link registerPasskeyRoutes} is given by the factor routes (factor-routes.ts). */
export interface PasskeyRoutesOptions {
  db: Database;
  kind: TenantKind;
  contract: ReturnType<typeof accountRoutes>;
  /** Signs the user in on this request's session (a new session id), answering the session. */
  signIn: (request: FastifyRequest, reply: FastifyReply, userId: string) => Promise<object>;
  /** The site the surface's passkeys are for: its public address, as it is now. */
  relyingParty: () => RelyingParty;
  /** Runs a check counted as a try of `ownerId`'s in the limits of wrong codes; a refusal stays counted. */
  countedTry: <T>(request: FastifyRequest, ownerId: string, check: () => Promise<T>) => Promise<T>;
  /** The signed-in person's id once a code of their app or their password proved it is them. */
  proven: (request: FastifyRequest, body: { code?: string; password?: string }) => Promise<string>;
  /** The person of the session's half-done sign-in (UNAUTHENTICATED when there is none). */
  pendingSignIn: (request: FastifyRequest) => string;
}

/**
 * The passkeys' routes, the same on every signed-in surface: a person adds, renames and removes their own; anyone
 * signs in with one without typing an address (it names the person, so the tenant); a person half signed in by
 * their password finishes with one of theirs. The challenge of each ceremony lives in the session, for its one
 * purpose, answered once within 5 minutes; each answer to a sign-in is counted as a try of the person's, as a code
 * is, and given back when it passed.
 */
export function registerPasskeyRoutes(api: FastifyInstance, options: PasskeyRoutesOptions): void {
  const { db, kind, contract, relyingParty } = options;

  /** Keeps a new challenge in the session, for `purpose`: the one answer it waits for. */
  const keepChallenge = (request: FastifyRequest, purpose: PasskeyPurpose, value: string) => {
    request.session.passkeyChallenge = { value, purpose, issuedAt: Date.now() };
  };
  /** Takes the session's challenge for `purpose`: it works once, whatever the answer. */
  const takeChallenge = (request: FastifyRequest, purpose: PasskeyPurpose): string => {
    const challenge = request.session.passkeyChallenge;
    request.session.passkeyChallenge = undefined;
    return liveChallenge(challenge, purpose);
  };

  api.route({
    ...handRoute(contract.passkeyOptions),
    handler: async (request) => {
      const person = signedInPerson(request, kind);
      const made = await registrationOptions(db, relyingParty(), {
        userId: person.user.id,
        email: person.user.email,
        name: person.user.name,
        tenantName: tenantOf(person, kind).name,
      });
      keepChallenge(request, 'register', made.challenge);
      return made;
    },
  });

  api.route<{ Body: { name: string; passkey: RegistrationResponseJSON } }>({
    ...handRoute(contract.addPasskey),
    handler: async (request) => {
      const challenge = takeChallenge(request, 'register');
      return addPasskey(db, relyingParty(), {
        userId: signedInPerson(request, kind).user.id,
        name: request.body.name,
        response: request.body.passkey,
        challenge,
      });
    },
  });

  api.route<{ Params: { id: string }; Body: { name: string } }>({
    ...handRoute(contract.renamePasskey),
    handler: async (request) =>
      renamePasskey(db, {
        userId: signedInPerson(request, kind).user.id,
        id: request.params.id,
        name: request.body.name,
      }),
  });

  api.route<{ Params: { id: string }; Body: { code?: string; password?: string } }>({
    ...handRoute(contract.removePasskey),
    handler: async (request) => {
      const person = signedInPerson(request, kind);
      const userId = person.user.id;
      // NOT_FOUND before the proof: a code of the app is not used up on a passkey that is not there.
      await findPasskey(db, userId, request.params.id);
      // Under a policy that requires a factor of them, their last one stays.
      if (
        person.secondFactor?.required === true &&
        !(await keepsAFactorWithout(db, userId, { passkeyId: request.params.id }))
      ) {
        throw factorErrors.lastRequired(tenantOf(person, kind).name);
      }
      await options.proven(request, request.body);
      await removePasskey(db, { userId, id: request.params.id });
      return {};
    },
  });

  api.route({
    ...handRoute(contract.passkeySignInOptions),
    handler: async (request) => {
      const made = await authenticationOptions(db, relyingParty());
      keepChallenge(request, 'sign-in', made.challenge);
      return made;
    },
  });

  api.route<{ Body: { passkey: AuthenticationResponseJSON } }>({
    ...handRoute(contract.signInWithPasskey),
    handler: async (request, reply) => {
      const challenge = takeChallenge(request, 'sign-in');
      const response = request.body.passkey;
      // Counted as a try of the passkey's person, or of the unknown passkey itself.
      const owner = (await ownerOfPasskey(db, kind, response.id)) ?? `passkey:${response.id}`;
      const { userId } = await options.countedTry(request, owner, () =>
        usePasskey(db, relyingParty(), { kind, response, challenge }),
      );
      return options.signIn(request, reply, userId);
    },
  });

  api.route({
    ...handRoute(contract.secondStepPasskeyOptions),
    handler: async (request) => {
      const made = await authenticationOptions(db, relyingParty(), options.pendingSignIn(request));
      keepChallenge(request, 'second-step', made.challenge);
      return made;
    },
  });

  api.route<{ Body: { passkey: AuthenticationResponseJSON } }>({
    ...handRoute(contract.signInSecondStepPasskey),
    handler: async (request, reply) => {
      const userId = options.pendingSignIn(request);
      const challenge = takeChallenge(request, 'second-step');
      await options.countedTry(request, userId, () =>
        usePasskey(db, relyingParty(), { kind, response: request.body.passkey, challenge, userId }),
      );
      return options.signIn(request, reply, userId);
    },
  });
}
