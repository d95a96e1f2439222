import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkCredentialsInAnyTenant, setPasswordWithLink } from '../../accounts/users.ts';
import { AppError } from '../../errors.ts';
import { clientAddressKey, createAttemptLimits, type AttemptBudget } from '../../http/attempt-limits.ts';
import { mailPasswordResets } from '../people.ts';
import { publicCaller, signedInCaller } from './caller.ts';
import { dashboardRoutes as contract } from './contract.ts';
import type { DashboardDeps } from './deps.ts';

/** Failed sign-ins allowed in a window, per address typed and per client address. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;
const FAILED_SIGN_INS_PER_ACCOUNT = 10;
const FAILED_SIGN_INS_PER_CLIENT = 50;
/** Password reset mails asked for in an hour, per address typed and per client address. */
const RESETS_PER_ACCOUNT = 5;
const RESETS_PER_CLIENT = 20;

/** The address typed in a request's body, as users.email keeps it: what per-account budgets count by. */
function typedAddress(request: FastifyRequest): string {
  const { email } = (request.body ?? {}) as { email?: unknown };
  return typeof email === 'string' ? email.trim().toLowerCase() : '';
}

/** Budgets per address typed and per client address, over one window. */
function budgets(name: string, windowMs: number, perAccount: number, perClient: number): AttemptBudget[] {
  return [
    { name: `${name}:account`, max: perAccount, windowMs, by: typedAddress },
    { name: `${name}:client`, max: perClient, windowMs, by: clientAddressKey },
  ];
}

function required(value: string, what: string, field: string): string {
  if (value.trim() === '') throw new AppError('BAD_USER_INPUT', `Enter ${what}.`, { field });
  return value;
}

/** Sign-in, sign-out, the invitation and password reset links: what a person does before and around a session. */
export function registerSessionRoutes(api: FastifyInstance, deps: DashboardDeps): void {
  const { db } = deps;

  // Counted before the password is checked, and given back when it was right: only failures stay counted.
  const failedSignIns = createAttemptLimits(
    db,
    'failed sign-ins',
    budgets('dashboard-sign-in', SIGN_IN_WINDOW_MS, FAILED_SIGN_INS_PER_ACCOUNT, FAILED_SIGN_INS_PER_CLIENT),
  );
  const resetRequests = createAttemptLimits(
    db,
    'password reset requests',
    budgets('dashboard-reset', 3600_000, RESETS_PER_ACCOUNT, RESETS_PER_CLIENT),
  );

  /** Starts a signed-in session for the user (a new session id: the one before sign-in is never reused). */
  async function signIn(request: FastifyRequest, reply: FastifyReply, userId: string) {
    await request.session.regenerate();
    request.session.userId = userId;
    request.session.signedInAt = Date.now();
    const csrfToken = reply.generateCsrf();
    return { csrfToken, ...publicCaller(await signedInCaller(db, request)) };
  }

  api.get('/session', { schema: contract.session }, async (request, reply) => {
    const caller = await signedInCaller(db, request);
    if (!caller && request.session.userId !== undefined) {
      // Past its limits, or the person has left: what remains is a session that signs no one in.
      await request.session.regenerate();
    }
    return { csrfToken: reply.generateCsrf(), ...publicCaller(caller) };
  });

  api.post<{ Body: Static<typeof contract.signIn.body> }>(
    '/session',
    { schema: contract.signIn },
    async (request, reply) => {
      const { email, password, instance } = request.body;
      required(email, 'your e-mail address', 'email');
      required(password, 'your password', 'password');
      const attempt = await failedSignIns.reserve(request);
      // A named instance is the only one opened (an unknown slug opens none, after the same one check).
      const named =
        instance === undefined
          ? undefined
          : (
              await db.query<{ id: string }>('select id from portfolio_instances where slug = $1', [instance])
            ).map((row) => row.id);
      const matches = await checkCredentialsInAnyTenant(
        db,
        'instance',
        { email, password },
        { tenantIds: named },
      );
      const chosen = await db.query<{ id: string; slug: string; name: string }>(
        'select id, slug, name from portfolio_instances where id = any($1::uuid[]) order by name, slug',
        [matches.map((match) => match.tenantId)],
      );
      const [only] = chosen;
      if (!only) throw new Error('a matched account without its instance');
      // The password was right: this attempt is not a failure, whatever comes next.
      await attempt.release();
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

  api.delete('/session', { schema: contract.signOut }, async (request, reply) => {
    await request.session.regenerate();
    return { csrfToken: reply.generateCsrf() };
  });

  api.post<{ Body: Static<typeof contract.acceptInvitation.body> }>(
    '/invitation',
    { schema: contract.acceptInvitation },
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

  api.post<{ Body: Static<typeof contract.requestPasswordReset.body> }>(
    '/password-reset',
    { schema: contract.requestPasswordReset },
    async (request, reply) => {
      required(request.body.email, 'your e-mail address', 'email');
      await resetRequests.reserve(request);
      // Not awaited: the answer comes as soon whether or not the address has an account.
      void mailPasswordResets(db, deps.mail, request.log, request.body.email).catch((error: unknown) => {
        request.log.error({ err: error }, 'password reset links could not be issued');
      });
      return reply.code(202).send({});
    },
  );

  api.post<{ Body: Static<typeof contract.confirmPasswordReset.body> }>(
    '/password-reset/confirm',
    { schema: contract.confirmPasswordReset },
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
