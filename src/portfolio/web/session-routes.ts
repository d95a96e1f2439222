import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkCredentialsInAnyTenant, setPasswordWithLink } from '../../accounts/users.ts';
import { AppError } from '../../errors.ts';
import { checkLimits, clientAddressKey, type RequestLimit } from '../../http/rate-limit.ts';
import { mailPasswordResets } from '../people.ts';
import { publicCaller, signedInCaller } from './caller.ts';
import type { DashboardDeps } from './dashboard.ts';

/** Failed sign-ins allowed in a window, per address typed and per client address. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;
const FAILED_SIGN_INS_PER_ACCOUNT = 10;
const FAILED_SIGN_INS_PER_CLIENT = 50;
/** Password reset mails asked for in an hour, per address typed and per client address. */
const RESETS_PER_ACCOUNT = 5;
const RESETS_PER_CLIENT = 20;

const Email = Type.String({ maxLength: 254 });
// Far above the longest password Portico sets (200): what argon2 is asked to hash stays bounded.
const Password = Type.String({ maxLength: 1000 });

const SignIn = Type.Object(
  { email: Email, password: Password, instance: Type.Optional(Type.String({ maxLength: 63 })) },
  { additionalProperties: false },
);
const Invitation = Type.Object(
  { token: Type.String({ maxLength: 200 }), password: Password, name: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const ResetRequest = Type.Object({ email: Email }, { additionalProperties: false });
const ResetConfirm = Type.Object(
  { token: Type.String({ maxLength: 200 }), password: Password },
  { additionalProperties: false },
);

/** A client's bucket (an IPv6 client by its /64) or a typed address's (hashed: no addresses kept as they are). */
function accountKey(request: FastifyRequest): string {
  const { email } = (request.body ?? {}) as { email?: unknown };
  const address = typeof email === 'string' ? email.trim().toLowerCase() : '';
  return createHash('sha256').update(address).digest('base64url');
}

function required(value: string, what: string, field: string): string {
  if (value.trim() === '') throw new AppError('BAD_USER_INPUT', `Enter ${what}.`, { field });
  return value;
}

/** Sign-in, sign-out, the invitation and password reset links: what a person does before and around a session. */
export function registerSessionRoutes(api: FastifyInstance, deps: DashboardDeps): void {
  const { db } = deps;

  const failedSignIns = [
    api.createRateLimit({
      keyGenerator: (request) => `dashboard-sign-in:account:${accountKey(request)}`,
      // Read without counting, a budget of n is used up once n have counted: more than n - 1.
      max: FAILED_SIGN_INS_PER_ACCOUNT - 1,
      timeWindow: SIGN_IN_WINDOW_MS,
    }),
    api.createRateLimit({
      keyGenerator: (request) => `dashboard-sign-in:client:${clientAddressKey(request)}`,
      max: FAILED_SIGN_INS_PER_CLIENT - 1,
      timeWindow: SIGN_IN_WINDOW_MS,
    }),
  ];
  const resetRequests = [
    api.createRateLimit({
      keyGenerator: (request) => `dashboard-reset:account:${accountKey(request)}`,
      max: RESETS_PER_ACCOUNT,
      timeWindow: 3600_000,
    }),
    api.createRateLimit({
      keyGenerator: (request) => `dashboard-reset:client:${clientAddressKey(request)}`,
      max: RESETS_PER_CLIENT,
      timeWindow: 3600_000,
    }),
  ];
  const limit = (request: FastifyRequest, limits: RequestLimit[], count: boolean, what: string) =>
    checkLimits(request, limits, { count, what });

  /** Starts a signed-in session for the user (a new session id: the one before sign-in is never reused). */
  async function signIn(request: FastifyRequest, reply: FastifyReply, userId: string) {
    await request.session.regenerate();
    request.session.userId = userId;
    request.session.signedInAt = Date.now();
    const csrfToken = reply.generateCsrf();
    return { csrfToken, ...publicCaller(await signedInCaller(db, request)) };
  }

  api.get('/session', async (request, reply) => {
    const caller = await signedInCaller(db, request);
    if (!caller && request.session.userId !== undefined) {
      // Past its limits, or the person has left: what remains is a session that signs no one in.
      await request.session.regenerate();
    }
    return { csrfToken: reply.generateCsrf(), ...publicCaller(caller) };
  });

  api.post<{ Body: Static<typeof SignIn> }>(
    '/session',
    { schema: { body: SignIn } },
    async (request, reply) => {
      const { email, password, instance } = request.body;
      required(email, 'your e-mail address', 'email');
      required(password, 'your password', 'password');
      await limit(request, failedSignIns, false, 'failed sign-ins');
      let matches;
      try {
        matches = await checkCredentialsInAnyTenant(db, 'instance', { email, password });
      } catch (error) {
        if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') {
          await limit(request, failedSignIns, true, 'failed sign-ins').catch(() => undefined);
        }
        throw error;
      }
      const instances = await db.query<{ id: string; slug: string; name: string }>(
        'select id, slug, name from portfolio_instances where id = any($1::uuid[]) order by name, slug',
        [matches.map((match) => match.tenantId)],
      );
      const chosen = instance === undefined ? instances : instances.filter((each) => each.slug === instance);
      const [only] = chosen;
      if (!only) {
        await limit(request, failedSignIns, true, 'failed sign-ins').catch(() => undefined);
        throw new AppError('INVALID_CREDENTIALS', 'The e-mail address or the password is not right.');
      }
      if (chosen.length > 1) {
        throw new AppError(
          'INSTANCE_CHOICE_REQUIRED',
          'This address and password open several instances: choose one.',
          { instances: chosen.map(({ slug, name }) => ({ slug, name })) },
        );
      }
      const match = matches.find((each) => each.tenantId === only.id);
      if (!match) throw new Error('a matched instance without its user');
      return signIn(request, reply, match.user.id);
    },
  );

  api.delete('/session', async (request, reply) => {
    await request.session.regenerate();
    return { csrfToken: reply.generateCsrf() };
  });

  api.post<{ Body: Static<typeof Invitation> }>(
    '/invitation',
    { schema: { body: Invitation } },
    async (request, reply) => {
      const user = await setPasswordWithLink(db, {
        purpose: 'invitation',
        tenantKind: 'instance',
        token: request.body.token,
        password: request.body.password,
        name: request.body.name,
      });
      return signIn(request, reply, user.id);
    },
  );

  api.post<{ Body: Static<typeof ResetRequest> }>(
    '/password-reset',
    { schema: { body: ResetRequest } },
    async (request, reply) => {
      required(request.body.email, 'your e-mail address', 'email');
      await limit(request, resetRequests, true, 'password reset requests');
      // Not awaited: the answer comes as soon whether or not the address has an account.
      void mailPasswordResets(db, deps.mail, request.log, request.body.email).catch((error: unknown) => {
        request.log.error({ err: error }, 'password reset links could not be issued');
      });
      return reply.code(202).send({});
    },
  );

  api.post<{ Body: Static<typeof ResetConfirm> }>(
    '/password-reset/confirm',
    { schema: { body: ResetConfirm } },
    async (request, reply) => {
      await setPasswordWithLink(db, {
        purpose: 'password_reset',
        tenantKind: 'instance',
        token: request.body.token,
        password: request.body.password,
      });
      // The person's sessions have ended; this browser signs in again too, with a fresh CSRF token.
      await request.session.regenerate();
      return { csrfToken: reply.generateCsrf() };
    },
  );
}
