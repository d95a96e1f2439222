import type { FastifyInstance, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { AccountPages } from '../../accounts/people-mail.ts';
import { allows, rolesInWords, type RoleTable } from '../../accounts/roles.ts';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../../accounts/sessions.ts';
import { TENANT_TABLES } from '../../accounts/tenant-tables.ts';
import type { Database } from '../../db/database.ts';
import { AppError, factorErrors, notPermitted, notSignedIn } from '../../errors.ts';
import { contractRoutes, type ContractRoute, type RouteContract } from '../contract-routes.ts';
import { pageDrawing, type DrawnRoute } from '../drawing/drawn-pages.ts';
import type { PageDrawer } from '../drawing/page-drawing.ts';
import {
  DEFAULT_WEB_DIST_DIR,
  pageContentSecurityPolicy,
  registerWebSurface,
  type WebSurfaceOptions,
} from '../web-pages.ts';
import { SECOND_FACTOR_SETUP, type accountRoutes } from './account-contract.ts';
import { registerAccountRoutes } from './account-routes.ts';
import { browserSession } from './browser-session.ts';
import type { SurfaceSso } from './sso-routes.ts';
import {
  publicPerson,
  readSignedInPerson,
  secondFactorDue,
  signedInPerson,
  tenantOf,
  type SignedInPerson,
  type TenantKind,
} from './person.ts';

/**
 * Who may call a route of a signed-in surface: anyone (`public`: the routes before and around a session), any
 * signed-in person (`signedIn`), or a person whose role has a permission of the surface's role table.
 */
export type Access<Permission extends string> = 'public' | 'signedIn' | Permission;

/** A route's entry in a signed-in surface's contract: where it is, who may call it, what it takes and answers. */
export interface SignedInRouteContract<Permission extends string = string> extends RouteContract {
  access: Access<Permission>;
}

/** A route of a signed-in surface, as the security test reads them (`app.signedInRoutes`). */
export interface DeclaredRoute {
  surface: string;
  method: string;
  url: string;
  access: string;
  /** What the route validates: the security test sends what passes it. */
  schema: unknown;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app's signed-in surfaces, with what it declared it needs (see surface.ts). */
    signedInRoutes: DeclaredRoute[];
  }
  interface FastifyContextConfig {
    /** Who may call the route, on a signed-in surface (see `Access`). */
    access?: string;
  }
}

/** A surface people sign in to, as {@link registerSignedInSurface} takes it. */
export interface SignedInSurface<Kind extends TenantKind, Table extends RoleTable> {
  /** Names the surface: its page's folder, its cookie's secret (`<name>_session_cookies`), its sign-in limits. */
  name: string;
  /** The kind of tenant its people belong to. */
  kind: Kind;
  /**
   * Its page, under `page.path` (every path without a dot: it routes on the client); `drawn` names the pages the
   * server draws for a signed-in person (drawing/drawn-pages.ts).
   */
  page: Pick<WebSurfaceOptions, 'path' | 'title' | 'worksWithout' | 'distDir'> & {
    drawn?: ((path: string) => DrawnRoute | undefined) | undefined;
    /** @default the process's page drawer */
    drawer?: PageDrawer | undefined;
  };
  /**
   * Its session cookie's name; the cookie goes to the page and its JSON routes, under `page.path` (the page is
   * drawn for the person it names).
   */
  cookieName: string;
  db: Database;
  /** The contract's account routes (sign-in, sign-out, invitation and password reset links). */
  contract: ReturnType<typeof accountRoutes>;
  /** What each role may do: the permissions the routes declare (role-permissions.ts of each surface). */
  permissions: Table;
  /** How the surface's mail names it and links to it. */
  mail: AccountPages;
  /**
   * A path parameter that names the tenant (the dashboard's `:slug`): a route with it answers only for the
   * signed-in person's own tenant, and `refusal` otherwise, alike whether or not the tenant exists.
   */
  tenantInPath?: { param: string; refusal: (person: SignedInPerson<Kind>) => AppError };
  /** The surface's own routes, added with `route` (a contract entry and its action) or to `api` directly. */
  routes: (
    route: ContractRoute<SignedInPerson<Kind>, SignedInRouteContract<keyof Table & string>>,
    api: FastifyInstance,
  ) => void;
  /** How long its sessions last idle, and at most after signing in. @default DEFAULT_SESSION_LIMITS */
  sessionLimits?: SessionLimits | undefined;
  /** Runs after each successful request that changes something (which may have ended sessions). */
  afterChange?: () => void;
  /** Single sign-on through each tenant's identity provider (sso-routes.ts); the routes answer 404 without it. */
  sso?: SurfaceSso | undefined;
}

/**
 * A surface people sign in to: its page under `page.path`, and its JSON routes under `<page.path>/api` with a
 * server-side session and a CSRF token on every change (browser-session.ts), the account routes
 * (account-routes.ts), and the surface's own routes. Each route declares its `access` (a contract entry's, or
 * `config.access`), and the kit checks it before the route's input is even validated: no session → 401,
 * another tenant in the path → the surface's refusal, a person who must add a second factor first →
 * SECOND_FACTOR_REQUIRED (but on the routes that add one), a role without the permission → 403. A route declared
 * with no access stops the app from starting.
 *
 * @example
 * await registerSignedInSurface(app, { name: 'console', kind: 'organization', permissions: PERMISSIONS, routes, … });
 */
export async function registerSignedInSurface<Kind extends TenantKind, Table extends RoleTable>(
  app: FastifyInstance,
  surface: SignedInSurface<Kind, Table>,
): Promise<void> {
  const { db, kind, permissions } = surface;
  const sessionLimits = surface.sessionLimits ?? DEFAULT_SESSION_LIMITS;
  const apiPath = `${surface.page.path}/api`;
  const { drawn, drawer, ...page } = surface.page;
  registerWebSurface(app, {
    ...page,
    surface: surface.name,
    contentSecurityPolicy: pageContentSecurityPolicy(),
    clientRoutes: true,
    draw:
      drawn &&
      pageDrawing(app, {
        surface: surface.name,
        pagePath: page.path,
        apiPath,
        cookieName: surface.cookieName,
        distDir: page.distDir ?? DEFAULT_WEB_DIST_DIR,
        routeAt: drawn,
        drawer,
      }),
  });
  if (!app.hasDecorator('signedInRoutes')) app.decorate('signedInRoutes', []);
  const declared = app.signedInRoutes;

  // What a person who must add a second factor may still call (besides the public routes): adding one.
  const settingUp = new Set(
    SECOND_FACTOR_SETUP.map(
      (name) => `${surface.contract[name].method} ${apiPath}${surface.contract[name].url}`,
    ),
  );

  /**
   * The guard of a route declared with `access`; `setup`: the route adds a second factor, which a person whose
   * tenant requires one of them, and who has none, may call (every other route refuses them SECOND_FACTOR_REQUIRED).
   */
  const guardOf = (
    access: string,
    url: string,
    setup: boolean,
  ): preValidationAsyncHookHandler | undefined => {
    if (access === 'public') return undefined;
    if (access !== 'signedIn' && !(access in permissions)) {
      throw new Error(`${url} declares access "${access}", which is not a permission of the ${surface.name}`);
    }
    const { tenantInPath } = surface;
    const named = tenantInPath && url.includes(`:${tenantInPath.param}`) ? tenantInPath : undefined;
    return async (request) => {
      const person = await readSignedInPerson(db, kind, request.session, sessionLimits);
      if (!person) throw notSignedIn();
      const tenant = tenantOf(person, kind);
      if (named && (request.params as Record<string, unknown>)[named.param] !== tenant.handle) {
        throw named.refusal(person);
      }
      if (!setup && secondFactorDue(person)) throw factorErrors.required(tenant.name);
      if (access !== 'signedIn' && !allows(permissions, person.user.role, access)) {
        const rule = permissions[access];
        throw notPermitted({
          permission: access,
          roles: rolesInWords(rule?.roles ?? []),
          does: rule?.does ?? '',
          role: person.user.role,
          tenant: tenant.name,
        });
      }
      request.signedInPerson = person;
    };
  };

  await app.register(
    async (api) => {
      await api.register(browserSession, {
        db,
        secretName: `${surface.name}_session_cookies`,
        cookieName: surface.cookieName,
        path: surface.page.path,
        limits: sessionLimits,
      });
      api.decorateRequest('signedInPerson', null);
      api.addHook('onRoute', (options) => {
        const access = options.config?.access;
        if (access === undefined) {
          throw new Error(
            `${String(options.method)} ${options.url} of the ${surface.name} declares no access`,
          );
        }
        const setup = [options.method].flat().every((method) => settingUp.has(`${method} ${options.url}`));
        const guard = guardOf(access, options.url, setup);
        if (guard) {
          const before = options.preValidation;
          options.preValidation = [guard, ...(before ? [before].flat() : [])];
        }
        for (const method of [options.method].flat()) {
          declared.push({ surface: surface.name, method, url: options.url, access, schema: options.schema });
        }
      });
      const { afterChange } = surface;
      if (afterChange) {
        api.addHook('onResponse', (request, reply, done) => {
          if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) afterChange();
          done();
        });
      }
      registerAccountRoutes(api, {
        db,
        pages: surface.mail,
        name: surface.name,
        contract: surface.contract,
        sessionLimits,
        sso: surface.sso && { ...surface.sso, pagePath: surface.page.path },
        sessionAnswer: async (request) => {
          const person = await readSignedInPerson(db, kind, request.session, sessionLimits);
          return { answer: publicPerson(kind, person), signedIn: person !== undefined };
        },
        choiceRequired: (choices) => {
          const handle = TENANT_TABLES[kind].handle;
          return new AppError(
            kind === 'instance' ? 'INSTANCE_CHOICE_REQUIRED' : 'ORGANIZATION_CHOICE_REQUIRED',
            `This address and password open several ${kind}s: choose one.`,
            { [`${kind}s`]: choices.map((choice) => ({ [handle]: choice.handle, name: choice.name })) },
          );
        },
      });
      const callerOf = (request: FastifyRequest) => signedInPerson(request, kind);
      const route = contractRoutes<SignedInPerson<Kind>, SignedInRouteContract<keyof Table & string>>(
        api,
        callerOf,
        (entry) => ({ config: { access: entry.access } }),
      );
      surface.routes(route, api);
    },
    { prefix: apiPath },
  );
}
