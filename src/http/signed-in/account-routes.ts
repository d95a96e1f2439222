import { randomBytes } from 'node:crypto';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BROWSER_COOKIE,
  BROWSER_COOKIE_MAX_AGE_S,
  newBrowserToken,
  newSignInMail,
  recordBrowser,
} from '../../accounts/known-browsers.ts';
import { relyingPartyOf } from '../../accounts/factors/passkeys.ts';
import { checkMailedLink } from '../../accounts/link-check.ts';
import { changeOwnPassword } from '../../accounts/own-password.ts';
import { mailPasswordResets, type AccountPages } from '../../accounts/people-mail.ts';
import { describeUserAgent } from '../../accounts/session-list.ts';
import { TENANT_TABLES } from '../../accounts/tenant-tables.ts';
import { underSsoOnly } from '../../accounts/sso/sso-only.ts';
import { checkCredentialsInAnyTenant, setPasswordWithLink } from '../../accounts/users.ts';
import type { Database } from '../../db/database.ts';
import type { SessionLimits } from '../../accounts/sessions.ts';
import { AppError } from '../../errors.ts';
import { clientAddressKey, createAttemptLimits, type AttemptBudget } from '../attempt-limits.ts';
import { handRoute, type RouteContract } from '../contract-routes.ts';
import type { accountRoutes } from './account-contract.ts';
import { beginSecondStep, registerFactorRoutes } from './factor-routes.ts';
import { signedInPerson } from './person.ts';
import { registerSessionRoutes } from './session-routes.ts';
import { registerSsoRoutes, type SurfaceSso } from './sso-routes.ts';

/** Failed sign-ins allowed in a window, per address typed and per client address. */
const SIGN_IN_WINDOW_MS = 15 * 60_000;
const FAILED_SIGN_INS_PER_ACCOUNT = 10;
const FAILED_SIGN_INS_PER_CLIENT = 50;
/** Password reset mails asked for in an hour, per address typed and per client address. */
const RESETS_PER_ACCOUNT = 5;
const RESETS_PER_CLIENT = 20;
/** Mailed links checked in 15 minutes per client address: a person opens a few; a guesser learns nothing faster. */
const LINK_CHECKS_PER_CLIENT = 30;
/** Wrong current passwords given in 15 minutes per signed-in person, when changing their password. */
const WRONG_PASSWORDS_PER_PERSON = 10;

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

type AccountContract = ReturnType<typeof accountRoutes>;
/** What a route's body is, as its contract entry declares it. */
type BodyOf<Entry extends RouteContract> = Entry['body'] extends TSchema ? Static<Entry['body']> : undefined;
/** A sign-in's body: the address, the password, and the surface's way to name a tenant. */
type SignInBody = { email: string; password: string } & Record<string, unknown>;

/** A tenant one address and password open, as the sign-in offers it to choose. */
export interface TenantChoice {
  handle: string;
  name: string;
}

/** What one surface's account routes are made of (see {@link registerAccountRoutes}). */
export interface AccountRoutesOptions {
  db: Database;
  /** The surface, as mail names it and links to it; its kind of tenant is the one people sign in to. */
  pages: AccountPages;
  /** Names the surface's attempt budgets, e.g. `dashboard` (`dashboard-sign-in:account`, …). */
  name: string;
  contract: AccountContract;
  /** Who is signed in on the request's session, as the surface answers it (nulls when no one is). */
  sessionAnswer: (request: FastifyRequest) => Promise<{ answer: object; signedIn: boolean }>;
  /** The refusal when an address and password open several tenants and the sign-in named none. */
  choiceRequired: (choices: TenantChoice[]) => AppError;
  /** How long the surface's sessions last (the list of a person's sessions shows only live ones). */
  sessionLimits: SessionLimits;
  /** The surface's single sign-on (sso-routes.ts), and where its page is: its people may sign in through it. */
  sso?: (SurfaceSso & { pagePath: string }) | undefined;
}

/**
 * Sign-in, sign-out, the invitation and password reset links: what a person does before and around a session,
 * on any surface people sign in to, registered beside its `browserSession`. Sign-in is rate-limited per address
 * typed and per client, counting only failures; a person whose address and password open several tenants
 * chooses one; a reset request answers the same whether or not the address has an account; a mailed link's page
 * checks its link before its form, a few times per client. A signed-in person changes their own password, given
 * their current one (wrong ones limited per person). A person with an authenticator app signs in in two steps,
 * and adds and removes the app here too (factor-routes.ts).
 *
 * @example
 * registerAccountRoutes(api, { db, pages, name: 'console', contract, sessionAnswer, choiceRequired });
 */
export function registerAccountRoutes(api: FastifyInstance, options: AccountRoutesOptions): void {
  const { db, pages, contract } = options;
  const tenants = TENANT_TABLES[pages.kind];

  // Counted before the password is checked, and given back when it was right: only failures stay counted.
  const failedSignIns = createAttemptLimits(
    db,
    'failed sign-ins',
    budgets(
      `${options.name}-sign-in`,
      SIGN_IN_WINDOW_MS,
      FAILED_SIGN_INS_PER_ACCOUNT,
      FAILED_SIGN_INS_PER_CLIENT,
    ),
  );
  const resetRequests = createAttemptLimits(
    db,
    'password reset requests',
    budgets(`${options.name}-reset`, 3600_000, RESETS_PER_ACCOUNT, RESETS_PER_CLIENT),
  );
  const linkChecks = createAttemptLimits(db, 'checks of mailed links', [
    {
      name: `${options.name}-link-check:client`,
      max: LINK_CHECKS_PER_CLIENT,
      windowMs: SIGN_IN_WINDOW_MS,
      by: clientAddressKey,
    },
  ]);
  // Counted before the current password is checked, and given back unless it was wrong.
  const wrongPasswords = createAttemptLimits(db, 'wrong passwords', [
    {
      name: `${options.name}-password-change:account`,
      max: WRONG_PASSWORDS_PER_PERSON,
      windowMs: SIGN_IN_WINDOW_MS,
      by: (request) => signedInPerson(request, pages.kind).user.id,
    },
  ]);

  /**
   * Knows the browser by its long-lived cookie (a new one when it has none), and mails the person when they had
   * not signed in from it before (not on their first sign-in). A mail that cannot be sent is logged, and the
   * sign-in goes on.
   */
  async function greetBrowser(request: FastifyRequest, reply: FastifyReply, userId: string) {
    const token = request.cookies[BROWSER_COOKIE] ?? newBrowserToken();
    reply.setCookie(BROWSER_COOKIE, token, {
      path: request.session.cookie.path ?? '/',
      httpOnly: true,
      secure: true,
      sameSite: 'lax',
      maxAge: BROWSER_COOKIE_MAX_AGE_S,
    });
    if ((await recordBrowser(db, userId, token)) !== 'new') return;
    const [user] = await db.query<{ email: string }>('select email from users where id = $1', [userId]);
    if (!user) return;
    const message = newSignInMail({
      to: user.email,
      product: pages.product,
      browser: describeUserAgent(request.headers['user-agent']),
      ipAddress: request.ip,
      at: new Date(),
    });
    await pages.mailer.send({ ...message, log: { requestId: request.id } }).catch((error: unknown) => {
      request.log.error({ err: error }, 'the mail of a new sign-in could not be sent');
    });
  }

  /** Starts a signed-in session for the user (a new session id: the one before sign-in is never reused). */
  async function signIn(request: FastifyRequest, reply: FastifyReply, userId: string) {
    await request.session.regenerate();
    request.session.userId = userId;
    request.session.signedInAt = Date.now();
    // What the person's list of sessions shows of it (session-routes.ts).
    request.session.publicId = randomBytes(12).toString('base64url');
    request.session.userAgent = request.headers['user-agent']?.slice(0, 500);
    request.session.ipAddress = request.ip;
    await greetBrowser(request, reply, userId);
    const csrfToken = reply.generateCsrf();
    return { csrfToken, ...(await options.sessionAnswer(request)).answer };
  }

  /**
   * One route of the contract, with the access its entry declares: open to anyone (what comes before and around a
   * session), or to the signed-in (the kit's guard reads who before the route runs).
   */
  const route = <Entry extends RouteContract & { access: string }>(
    entry: Entry,
    handler: (request: FastifyRequest<{ Body: BodyOf<Entry> }>, reply: FastifyReply) => Promise<unknown>,
    extra: { onResponse?: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void } = {},
  ) => {
    api.route<{ Body: BodyOf<Entry> }>({
      ...extra,
      ...handRoute(entry),
      handler,
    });
  };

  route(contract.session, async (request, reply) => {
    const { answer, signedIn } = await options.sessionAnswer(request);
    if (!signedIn && request.session.userId !== undefined) {
      // Past its limits, or the person has left: what remains is a session that signs no one in.
      await request.session.regenerate();
    }
    return { csrfToken: reply.generateCsrf(), ...answer };
  });

  // Counted when the process reports metrics: a wrong address or password (401), or a sign-in refused by its
  // limits (429).
  const failures = api.metrics?.signInFailures;
  const countFailure = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const reason = { 401: 'credentials', 429: 'limited' }[reply.statusCode];
    if (reason !== undefined) failures?.inc({ surface: options.name, reason });
    done();
  };

  const signInOptions = failures ? { onResponse: countFailure } : {};
  route(
    contract.signIn,
    async (request, reply) => {
      // The contract's body names the tenant by the surface's own word, which its type leaves open.
      const body = request.body as SignInBody;
      const { email, password } = body;
      required(email, 'your e-mail address', 'email');
      required(password, 'your password', 'password');
      const attempt = await failedSignIns.reserve(request);
      // A named tenant is the only one opened (an unknown handle opens none, after the same one check).
      const chosen = body[pages.kind];
      const handle = typeof chosen === 'string' ? chosen : undefined;
      const named =
        handle === undefined
          ? undefined
          : (
              await db.query<{ id: string }>(`select id from ${tenants.table} where ${tenants.handle} = $1`, [
                handle,
              ])
            ).map((row) => row.id);
      // A domain whose single sign-on is "SSO only" opens with a password only for its admins (sso-only.ts).
      const matches = await underSsoOnly(db, pages.kind, email, () =>
        checkCredentialsInAnyTenant(db, pages.kind, { email, password }, { tenantIds: named }),
      );
      const opened = await db.query<TenantChoice & { id: string }>(
        `select id, ${tenants.handle} as handle, name from ${tenants.table}
       where id = any($1::uuid[]) order by name, ${tenants.handle}`,
        [matches.map((match) => match.tenantId)],
      );
      const [only] = opened;
      if (!only) throw new Error('a matched account without its tenant');
      // The password was right: this attempt is not a failure, whatever comes next.
      await attempt.release();
      if (opened.length > 1)
        throw options.choiceRequired(opened.map(({ handle: h, name }) => ({ handle: h, name })));
      const match = matches.find((each) => each.tenantId === only.id);
      if (!match) throw new Error('a matched tenant without its user');
      // A person with an authenticator app is signed in only by the second step (factor-routes.ts).
      const halfway = await beginSecondStep(db, request, reply, match.user.id, options.sessionAnswer);
      return halfway ?? signIn(request, reply, match.user.id);
    },
    signInOptions,
  );

  registerFactorRoutes(api, {
    db,
    kind: pages.kind,
    name: options.name,
    contract,
    signIn,
    relyingParty: () => relyingPartyOf(pages.publicUrl(), pages.product.replace(/^the /, '')),
  });
  registerSessionRoutes(api, { db, kind: pages.kind, contract, limits: options.sessionLimits });
  if (options.sso) {
    registerSsoRoutes(api, {
      db,
      kind: pages.kind,
      name: options.name,
      pagePath: options.sso.pagePath,
      apiPath: `${options.sso.pagePath}/api`,
      contract,
      sso: options.sso,
      signIn,
    });
  }

  route(contract.signOut, async (request, reply) => {
    await request.session.regenerate();
    return { csrfToken: reply.generateCsrf() };
  });

  route(contract.acceptInvitation, async (request, reply) => {
    const user = await setPasswordWithLink(db, {
      purpose: 'invitation',
      tenantKind: pages.kind,
      token: request.body.token,
      password: request.body.password,
      name: request.body.name,
    });
    return signIn(request, reply, user.id);
  });

  route(contract.requestPasswordReset, async (request, reply) => {
    required(request.body.email, 'your e-mail address', 'email');
    await resetRequests.reserve(request);
    // Not awaited: the answer comes as soon whether or not the address has an account.
    void mailPasswordResets(db, pages, request.log, request.body.email, request.id).catch(
      (error: unknown) => {
        request.log.error({ err: error }, 'password reset links could not be issued');
      },
    );
    return reply.code(202).send({});
  });

  route(contract.confirmPasswordReset, async (request, reply) => {
    await setPasswordWithLink(db, {
      purpose: 'password_reset',
      tenantKind: pages.kind,
      token: request.body.token,
      password: request.body.password,
    });
    // The person's sessions have ended; this browser signs in again too, with a fresh CSRF token.
    await request.session.regenerate();
    return { csrfToken: reply.generateCsrf() };
  });

  route(contract.checkLink, async (request) => {
    await linkChecks.reserve(request);
    return checkMailedLink(db, { ...request.body, tenantKind: pages.kind });
  });

  route(contract.changePassword, async (request) => {
    const { user } = signedInPerson(request, pages.kind);
    required(request.body.currentPassword, 'your current password', 'currentPassword');
    const attempt = await wrongPasswords.reserve(request);
    try {
      const changed = await changeOwnPassword(db, {
        tenantKind: pages.kind,
        userId: user.id,
        currentPassword: request.body.currentPassword,
        password: request.body.password,
        keptSessionId: request.session.sessionId,
      });
      await attempt.release();
      return changed;
    } catch (error) {
      // Only a wrong current password stays counted: a new password the rules refuse is not a guess.
      if (!(error instanceof AppError && error.details?.field === 'currentPassword')) await attempt.release();
      throw error;
    }
  });
}
