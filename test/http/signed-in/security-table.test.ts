// The security table of every signed-in surface (the console, the dashboard, and those to come), after Unkey's
// `*.security.test.ts`, but read from the apps `portico serve` builds rather than written by hand: every route
// under a surface's JSON prefix, with the access it declared (http/signed-in/surface.ts), is tried without a
// session, without the CSRF token and with another session's, as each role of the surface, and with another
// tenant's ids. A route the kit did not register, or one with no declared access, fails here.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import type { Role } from '../../../src/accounts/roles.ts';
import type { DeclaredRoute } from '../../../src/http/signed-in/surface.ts';
import { createMailer } from '../../../src/mail/mailer.ts';
import { PERMISSIONS as DASHBOARD_PERMISSIONS } from '../../../src/portfolio/dashboard/role-permissions.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { PERMISSIONS as CONSOLE_PERMISSIONS } from '../../../src/transactions/console/role-permissions.ts';
import { addReviewComment } from '../../../src/transactions/review/comments.ts';
import { createClosing } from '../../../src/transactions/console/closings/closings.ts';
import { createBulkJob } from '../../../src/transactions/console/bulk/bulk-jobs.ts';
import { fanOutEvents } from '../../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../../src/webhooks/endpoints.ts';
import { Browser, createPerson, type SignInSurface } from '../../support/data/dashboard.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { createTestPortfolio } from '../../support/data/portfolio.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { testDatabaseAndFiles } from '../../support/data/transactions.ts';
import { routesOf } from '../../support/routes.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';

/** A surface as the table tries it: its app, prefix, cookie and role table, its people and the other tenant's ids. */
interface SurfaceUnderTest {
  name: string;
  app: FastifyInstance;
  browserSurface: SignInSurface;
  roles: readonly Role[];
  permissions: Readonly<Record<string, { roles: readonly string[] }>>;
  /** A browser signed in as a person of each role, in the tenant the table tries. */
  signedIn: Partial<Record<Role, Browser>>;
  /** The value of a path parameter for the own tenant (`slug`), when the surface has one. */
  ownParams: Record<string, string>;
  /** For each kind of id (the path's segment before `:id`), one of the other tenant's. */
  otherIds: Record<string, string>;
  /** The other tenant's values of the tenant's own path parameters (its slug). */
  otherParams: Record<string, string>;
}

/** What a person signs in with. */
const credentials = (person: { email: string; password: string }) => ({
  email: person.email,
  password: person.password,
});

const world = madeBeforeAll('the served apps and two tenants of each kind', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-security-table-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ PORTICO_DATA_DIR: dataDir });
  const mailer = createMailer({ ...config, smtpUrl: undefined }, pino({ level: 'silent' }));
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });

  // The console: an organization with a person of each role, and another with one of each kind of id.
  const ours = await organizationStory(db, files, { transactions: ['created'] });
  const theirs = await organizationStory(db, files, {
    transactions: ['submitted'],
    template: (example) => ({ ...example, workflow: { ...example.workflow, secondPerson: ['void'] } }),
  });
  const consoleApp = appOf('transactions');
  const consoleSurface = { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE };
  const consolePeople: Partial<Record<Role, Browser>> = {};
  for (const role of ['admin', 'operator', 'reviewer', 'viewer'] as const) {
    const person = await createPerson(db, {
      tenant: { kind: 'organization', id: ours.organizationId },
      role,
    });
    consolePeople[role] = await new Browser(consoleApp, undefined, consoleSurface).signInOrThrow(
      credentials(person),
    );
  }
  const theirOperator = await createPerson(db, {
    tenant: { kind: 'organization', id: theirs.organizationId },
    role: 'operator',
  });
  const theirBrowser = await new Browser(consoleApp, undefined, consoleSurface).signInOrThrow(
    credentials(theirOperator),
  );
  const transactionPath = `/console/api/transactions/${theirs.transactionId}`;
  const { workflow } = (await theirBrowser.get(`${transactionPath}/workflow`)).body as {
    workflow: { version: string };
  };
  const asked = await theirBrowser.request('POST', `${transactionPath}/events`, {
    eventKey: 'void',
    version: workflow.version,
    message: 'The fund is closed.',
  });
  const { approval } = asked.body as { approval: { id: string } };
  const comment = await addReviewComment(db, {
    organizationId: theirs.organizationId,
    transactionId: theirs.transactionId,
    vulcanKey: 'investor_details',
    field: 'legalName',
    body: 'Spell it as on the passport.',
    forInvestor: true,
    actor: { type: 'user', id: theirOperator.id },
  });
  await createEndpoint(db, {
    organizationId: theirs.organizationId,
    url: 'http://127.0.0.1:9/hooks',
    eventTypes: ['transaction.state_changed'],
    allowInsecure: true,
  });
  await fanOutEvents(db);
  const [delivery] = await db.query<{ id: string }>(
    `select d.id from webhook_deliveries d join outbox_events o on o.id = d.event_id
     where o.transaction_id = $1 limit 1`,
    [theirs.transactionId],
  );
  if (!delivery) throw new Error('no webhook delivery was made for the other organization');
  const theirClosing = await createClosing(db, {
    organizationId: theirs.organizationId,
    userId: theirOperator.id,
    input: {
      name: 'Their first close',
      templateId: theirs.templateId,
      senderEntityId: theirs.senderEntityId,
    },
  });

  const theirBulk = await createBulkJob(db, {
    organizationId: theirs.organizationId,
    userId: theirOperator.id,
    role: 'operator',
    selection: { ids: [theirs.transactionId] },
    action: { kind: 'remind' },
    checkedAt: new Date(),
    idempotencyKey: randomUUID(),
  });

  // The dashboard: an instance with a person of each role, and another with a key, a person and a company.
  const ourInstance = await createTestPortfolio(db, { companies: 1, funds: 1 });
  const theirInstance = await createTestPortfolio(db, { companies: 1, funds: 1 });
  const dashboardApp = appOf('portfolio');
  const dashboardSurface = { apiPath: '/dashboard/api', cookie: SESSION_COOKIE };
  const dashboardPeople: Partial<Record<Role, Browser>> = {};
  for (const role of ['admin', 'member'] as const) {
    const person = await createPerson(db, { tenant: { kind: 'instance', id: ourInstance.instanceId }, role });
    dashboardPeople[role] = await new Browser(dashboardApp, undefined, dashboardSurface).signInOrThrow(
      credentials(person),
    );
  }
  const theirPerson = await createPerson(db, {
    tenant: { kind: 'instance', id: theirInstance.instanceId },
    role: 'member',
  });
  const [theirKey] = await db.query<{ id: string }>(
    'select id from portfolio_api_keys where instance_id = $1',
    [theirInstance.instanceId],
  );
  if (!theirKey) throw new Error('the other instance has no key');
  // A passkey of a person of each other tenant (only its id is tried).
  const passkeyOf = async (userId: string) => {
    const [row] = await db.query<{ id: string }>(
      `insert into passkeys (user_id, credential_id, public_key, name) values ($1, $2, '\\x00', 'Theirs')
       returning id`,
      [userId, randomUUID()],
    );
    if (!row) throw new Error('no passkey was made');
    return row.id;
  };

  const surfaces: SurfaceUnderTest[] = [
    {
      name: 'console',
      app: consoleApp,
      browserSurface: consoleSurface,
      roles: ['admin', 'operator', 'reviewer', 'viewer'],
      permissions: CONSOLE_PERMISSIONS,
      signedIn: consolePeople,
      ownParams: {},
      otherIds: {
        team: theirOperator.id,
        transactions: theirs.transactionId,
        approvals: approval.id,
        comments: comment.id,
        'webhook-deliveries': delivery.id,
        closings: theirClosing.id,
        bulk: theirBulk.id,
        passkeys: await passkeyOf(theirOperator.id),
      },
      otherParams: {},
    },
    {
      name: 'dashboard',
      app: dashboardApp,
      browserSurface: dashboardSurface,
      roles: ['admin', 'member'],
      permissions: DASHBOARD_PERMISSIONS,
      signedIn: dashboardPeople,
      ownParams: { slug: ourInstance.slug },
      otherIds: {
        keys: theirKey.id,
        people: theirPerson.id,
        companies: theirInstance.companyId,
        passkeys: await passkeyOf(theirPerson.id),
      },
      otherParams: { slug: theirInstance.slug },
    },
  ];
  return { surfaces };
});

/** A value a JSON schema accepts, made from its first choices: what gets a request past validation. */
function sample(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const rule = schema as Record<string, unknown>;
  if (Array.isArray(rule.enum)) return rule.enum[0];
  if ('const' in rule) return rule.const;
  const choices = (rule.anyOf ?? rule.oneOf) as unknown[] | undefined;
  if (choices) return sample(choices.find((choice) => (choice as { type?: string }).type !== 'null'));
  switch (rule.type) {
    case 'object': {
      const properties = (rule.properties ?? {}) as Record<string, unknown>;
      const required = (rule.required ?? []) as string[];
      return Object.fromEntries(required.map((key) => [key, sample(properties[key])]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return rule.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (rule.format === 'uuid') return randomUUID();
      if (rule.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      return 'sample';
    default:
      return undefined;
  }
}

/** The request that tries a route: its path with params filled in, and a body its schema accepts. */
interface RequestIds {
  id?: string | undefined;
  params?: Record<string, string>;
}

function requestFor(
  surface: SurfaceUnderTest,
  route: DeclaredRoute,
  ids: RequestIds = {},
): { url: string; body: object | undefined } {
  const params = { ...surface.ownParams, ...ids.params };
  const url = route.url.replace(/:(\w+)/g, (_, name: string) => params[name] ?? ids.id ?? randomUUID());
  const schema = route.schema as { body?: unknown } | undefined;
  const changes = route.method !== 'GET' && route.method !== 'HEAD';
  return { url, body: changes ? ((sample(schema?.body) as object | undefined) ?? {}) : undefined };
}

/** How many requests the table sent, by surface, and over how many routes. */
const tried = new Map<string, { requests: number; routes: Set<string> }>();
afterAll(() => {
  for (const [surface, { requests, routes }] of tried) {
    console.info(
      `security table of the ${surface}: ${String(routes.size)} routes, ${String(requests)} cases`,
    );
  }
});

/** Sends a route's request from a browser (its session and its latest CSRF token), reading only the head of a stream. */
async function send(
  surface: SurfaceUnderTest,
  browser: Browser | undefined,
  route: DeclaredRoute,
  request: { url: string; body: object | undefined },
  csrfToken?: string | null,
): Promise<{ status: number; code: string | undefined; message: string | undefined }> {
  const count = tried.get(surface.name) ?? { requests: 0, routes: new Set<string>() };
  tried.set(surface.name, {
    requests: count.requests + 1,
    routes: count.routes.add(`${route.method} ${route.url}`),
  });
  const headers: Record<string, string> = { 'x-forwarded-proto': 'https' };
  if (browser?.cookie !== undefined) headers.cookie = `${surface.browserSurface.cookie}=${browser.cookie}`;
  const token = csrfToken === undefined ? browser?.csrfToken : csrfToken;
  if (route.method !== 'GET' && route.method !== 'HEAD' && token !== null && token !== undefined) {
    headers['x-csrf-token'] = token;
  }
  const response = await surface.app.inject({
    method: route.method as 'GET',
    url: request.url,
    headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
    payloadAsStream: true,
  });
  const stream = response.stream();
  // A stream that stays open (the console's live changes) is read no further than its head.
  const type = response.headers['content-type'];
  if (typeof type === 'string' && type.startsWith('text/event-stream')) {
    stream.destroy();
    return { status: response.statusCode, code: undefined, message: undefined };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const error = text.startsWith('{')
    ? (JSON.parse(text) as { error?: { code: string; message: string } }).error
    : undefined;
  return { status: response.statusCode, code: error?.code, message: error?.message };
}

const surfaceNames = ['console', 'dashboard'];
const surfaceOf = (name: string) => {
  const found = world.surfaces.find((surface) => surface.name === name);
  if (!found) throw new Error(`no surface ${name}`);
  return found;
};
const declaredRoutes = (surface: SurfaceUnderTest) =>
  surface.app.signedInRoutes.filter((route) => route.surface === surface.name);
const guarded = (surface: SurfaceUnderTest) =>
  declaredRoutes(surface).filter((route) => route.access !== 'public');
const changing = (route: DeclaredRoute) => route.method !== 'GET' && route.method !== 'HEAD';

describe.each(surfaceNames)('the security table of the %s', (name) => {
  it('declares the access of every route Fastify serves under its JSON prefix, and only permissions its roles have', () => {
    const surface = surfaceOf(name);
    const prefix = `${surface.browserSurface.apiPath}/`;
    const served = routesOf(surface.app)
      .filter((route) => route.url.startsWith(prefix))
      .map((route) => `${route.method} ${route.url}`);
    const declared = declaredRoutes(surface);
    expect(declared.map((route) => `${route.method} ${route.url}`).toSorted()).toEqual(served.toSorted());
    for (const route of declared) {
      expect(['public', 'signedIn', ...Object.keys(surface.permissions)], route.url).toContain(route.access);
    }
    expect(guarded(surface).length).toBeGreaterThan(8);
  });

  it('answers its routes before sign-in without a session', async () => {
    const surface = surfaceOf(name);
    const open = declaredRoutes(surface).filter(
      (route) => route.access === 'public' && route.method === 'GET',
    );
    expect(open.length).toBeGreaterThan(0);
    for (const route of open) {
      // Its declared success: 200, or 302 for a redirect (the single sign-on callback sends the browser on).
      const { response } = route.schema as { response: Record<string, unknown> };
      const success = Number(Object.keys(response).find((code) => /^[23]\d\d$/.test(code)) ?? 200);
      expect((await send(surface, undefined, route, requestFor(surface, route))).status, route.url).toBe(
        success,
      );
    }
  });

  it('answers 401 UNAUTHENTICATED on every route past sign-in to a request without a session', async () => {
    const surface = surfaceOf(name);
    const tried: string[] = [];
    for (const route of guarded(surface)) {
      const answer = await send(surface, undefined, route, requestFor(surface, route), null);
      // A change without a session has no CSRF secret either: that refusal comes first, and is as closed.
      const where = `${route.method} ${route.url}`;
      if (changing(route)) expect([answer.status, answer.code], where).toEqual([403, 'CSRF_INVALID']);
      else expect(answer.status, where).toBe(401);
      // A HEAD answer has no body to hold the code.
      if (route.method === 'GET') expect(answer.code, where).toBe('UNAUTHENTICATED');
      tried.push(route.url);
    }
    // With a session that signs no one in (a fresh one has its CSRF token), a change is refused 401 too.
    const fresh = new Browser(surface.app, undefined, surface.browserSurface);
    await fresh.session();
    for (const route of guarded(surface).filter(changing)) {
      const answer = await send(surface, fresh, route, requestFor(surface, route));
      expect([answer.status, answer.code], `${route.method} ${route.url}`).toEqual([401, 'UNAUTHENTICATED']);
    }
    expect(tried.length).toBe(guarded(surface).length);
  });

  it('refuses every change without the CSRF token, or with another session’s, with 403 CSRF_INVALID', async () => {
    const surface = surfaceOf(name);
    const [first, second] = surface.roles;
    const mine = first && surface.signedIn[first];
    const other = second && surface.signedIn[second];
    if (!mine || !other) throw new Error('two signed-in people are needed');
    const changes = declaredRoutes(surface).filter(changing);
    expect(changes.length).toBeGreaterThan(4);
    for (const route of changes) {
      const request = requestFor(surface, route);
      for (const token of [null, other.csrfToken ?? '']) {
        const answer = await send(surface, mine, route, request, token);
        expect([answer.status, answer.code], `${route.method} ${route.url}`).toEqual([403, 'CSRF_INVALID']);
      }
    }
  });

  it('lets each role through every route its permission allows, and refuses the others with 403 FORBIDDEN', async () => {
    const surface = surfaceOf(name);
    let cases = 0;
    for (const route of guarded(surface)) {
      const allowed =
        route.access === 'signedIn' ? surface.roles : (surface.permissions[route.access]?.roles ?? []);
      for (const role of surface.roles) {
        const answer = await send(surface, surface.signedIn[role], route, requestFor(surface, route));
        const where = `${role}: ${route.method} ${route.url}`;
        if (allowed.includes(role)) {
          expect([401, 403], where).not.toContain(answer.status);
        } else {
          // A HEAD answer has no body: its status says it.
          if (route.method === 'HEAD') expect(answer.status, where).toBe(403);
          else {
            expect([answer.status, answer.code], where).toEqual([403, 'FORBIDDEN']);
            expect(answer.message, where).toMatch(new RegExp(`^Only .*; you are a ${role} of `));
          }
        }
        cases += 1;
      }
    }
    expect(cases).toBe(guarded(surface).length * surface.roles.length);
  });

  it("answers another tenant's ids exactly as ids that exist nowhere", async () => {
    const surface = surfaceOf(name);
    const admin = surface.signedIn.admin;
    /** What two answers must share: the status, the code and the words, with the id asked for taken out. */
    const compare = async (route: DeclaredRoute, theirs: RequestIds, nowhere: RequestIds) => {
      const answers = [];
      for (const ids of [theirs, nowhere]) {
        const answer = await send(surface, admin, route, requestFor(surface, route, ids));
        const message = ids.id === undefined ? answer.message : answer.message?.replaceAll(ids.id, '<id>');
        answers.push({ ...answer, message });
      }
      expect(answers[0], `${route.method} ${route.url}`).toEqual(answers[1]);
      expect(answers[0]?.status, `${route.method} ${route.url}`).toBeGreaterThanOrEqual(400);
    };
    const byId = guarded(surface).filter((route) => route.url.includes(':id'));
    expect(byId.length).toBeGreaterThan(3);
    for (const route of byId) {
      const kind = /\/([\w-]+)\/:id/.exec(route.url)?.[1] ?? '';
      const theirId = surface.otherIds[kind];
      expect(theirId, `an id of another tenant for ${route.url}`).toBeDefined();
      await compare(route, { id: theirId }, { id: randomUUID() });
    }
    for (const [param, theirValue] of Object.entries(surface.otherParams)) {
      for (const route of guarded(surface).filter((each) => each.url.includes(`:${param}`))) {
        await compare(
          route,
          { params: { [param]: theirValue } },
          { params: { [param]: `nowhere-${param}` } },
        );
      }
    }
  });
});
