import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pino from 'pino';
import type { Role } from '../../../src/accounts/roles.ts';
import { inviteUser, setPasswordWithLink, type AccountTenant } from '../../../src/accounts/users.ts';
import type { Database, Queryable } from '../../../src/db/database.ts';
import type { RateLimitSettings } from '../../../src/http/rate-limit.ts';
import { createMailer, type Mailer } from '../../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../../src/portfolio/app.ts';
import { DASHBOARD_API_PATH, SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import type { ApiResponse } from './portfolio.ts';
import type { CloseAfterAll } from '../made-before-all.ts';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../peers/smtp.ts';

/**
 * Helpers for tests of the customer dashboard on the Portfolio service: the app with its dashboard, browsers
 * that keep the session cookie and the latest CSRF token, people who can sign in, and the links mailed to them.
 */

/** The public address the dashboard's mail links point to. */
export const PORTFOLIO_URL = 'https://portfolio.test';

/** A password long enough for `checkNewPassword`, shared by the people the tests make. */
export const PASSWORD = 'correct horse battery staple';

/** The surfaces {@link stubDashboardBuild} stands in for, and where each is served. */
const STUB_SURFACES: Record<string, string> = {
  dashboard: '/dashboard',
  'key-delivery': '/key-delivery',
  console: '/console',
  recipient: '/r',
};

/**
 * A stand-in for the built front end (`web/dist/<surface>/index.html` and an asset of each surface, the
 * dashboard's, the key-delivery page's and the recipient portal's), in a temporary folder: the server's page
 * routes, headers and route table do not depend on what the pages hold.
 */
export async function stubDashboardBuild(): Promise<{ distDir: string; cleanup: () => Promise<void> }> {
  const distDir = await mkdtemp(join(tmpdir(), 'portico-web-dist-'));
  for (const [surface, path] of Object.entries(STUB_SURFACES)) {
    await mkdir(join(distDir, surface, 'assets'), { recursive: true });
    await writeFile(
      join(distDir, surface, 'index.html'),
      `<!doctype html><html><head><script type="module" src="${path}/assets/main.js"></script></head>` +
        `<body><div id="${surface}"></div></body></html>`,
    );
    await writeFile(join(distDir, surface, 'assets', 'main.js'), 'export {};\n');
  }
  return { distDir, cleanup: () => rm(distDir, { recursive: true, force: true }) };
}

/** A mailer that hands every message to the SMTP server at `smtpUrl` (see `startSmtpServer`). */
export function smtpMailer(smtpUrl: string): Mailer {
  return createMailer(
    { smtpUrl, mailFrom: 'Portico <no-reply@portfolio.test>', dataDir: tmpdir() },
    pino({ level: 'silent' }),
  );
}

/** An SMTP server on loopback and a mailer that hands it every message, both closed after the file's tests. */
export async function smtpWithMailer(
  closeAfterAll: CloseAfterAll,
): Promise<{ smtp: TestSmtpServer; mailer: Mailer }> {
  const smtp = await startSmtpServer();
  closeAfterAll(() => smtp.close());
  const mailer = smtpMailer(smtp.url());
  closeAfterAll(() => {
    mailer.close();
  });
  return { smtp, mailer };
}

/**
 * The Portfolio service with its dashboard, as it runs behind a TLS-terminating proxy (every request of a
 * {@link Browser} says `x-forwarded-proto: https`, so the Secure session cookie is set), looking keys up on
 * every request.
 */
export function dashboardApp(
  db: Database,
  options: { mailer: Mailer; distDir?: string | undefined; rateLimit?: RateLimitSettings },
): Promise<FastifyInstance> {
  return buildPortfolioApp({
    db,
    trustProxy: true,
    apiKeyCacheMs: 0,
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    dashboard: { mail: { mailer: options.mailer, portfolioUrl: PORTFOLIO_URL }, distDir: options.distDir },
  });
}

/** `/dashboard/api/instances/<slug><path>`: an instance route of the dashboard. */
export function instanceApi(slug: string, path: string): string {
  return `${DASHBOARD_API_PATH}/instances/${slug}${path}`;
}

/** A random client address, so that each browser has sign-in and reset limits of its own. */
export function randomClientAddress(): string {
  const bytes = randomBytes(3);
  return `10.${String(bytes[0])}.${String(bytes[1])}.${String(bytes[2])}`;
}

type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A page people sign in to, as a browser sees it: where its JSON routes are, and its session cookie's name. */
export interface SignInSurface {
  apiPath: string;
  cookie: string;
}

/** The customer dashboard on the Portfolio service. */
export const DASHBOARD_SURFACE: SignInSurface = { apiPath: DASHBOARD_API_PATH, cookie: SESSION_COOKIE };

/** A sign-in's body: the address and password, and the tenant chosen when they open several. */
type SignInCredentials = { email: string; password: string; instance?: string; organization?: string };

/**
 * One simulated browser: it keeps the session cookie the server sets (as a browser would, only the
 * latest), and the latest CSRF token the dashboard's answers carry, which it sends as `x-csrf-token` on every
 * POST and DELETE. Requests come from `clientAddress` (`x-forwarded-for`) over HTTPS (`x-forwarded-proto`).
 */
export class Browser {
  /** The session cookie's value as the server set it, or undefined before it set one. */
  cookie: string | undefined;
  /** The latest CSRF token an answer carried. */
  csrfToken: string | undefined;
  /** The attributes of the last session cookie the server set (`HttpOnly`, `Path=/dashboard`, …). */
  cookieAttributes: string[] = [];

  constructor(
    private readonly app: FastifyInstance,
    readonly clientAddress = randomClientAddress(),
    readonly surface: SignInSurface = DASHBOARD_SURFACE,
  ) {}

  /** Another browser holding this one's cookie and token (a copied cookie; what a thief would hold). */
  copy(): Browser {
    const other = new Browser(this.app, this.clientAddress, this.surface);
    other.cookie = this.cookie;
    other.csrfToken = this.csrfToken;
    return other;
  }

  /**
   * Sends a request. `csrfToken` overrides the token sent (null sends none); by default POST and DELETE send
   * the latest one. `headers` go with it (a multipart body's content type).
   */
  async request(
    method: Method,
    url: string,
    payload?: object,
    options: { csrfToken?: string | null; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      ...options.headers,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': this.clientAddress,
    };
    // A cookie given in `headers` (another of the site's cookies) goes with the session's.
    if (this.cookie !== undefined) {
      headers.cookie = [options.headers?.cookie, `${this.surface.cookie}=${this.cookie}`]
        .filter((part) => part !== undefined)
        .join('; ');
    }
    const token = options.csrfToken === undefined ? this.csrfToken : options.csrfToken;
    if (method !== 'GET' && method !== 'HEAD' && token !== null && token !== undefined) {
      headers['x-csrf-token'] = token;
    }
    const response = await this.app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload }),
    } satisfies InjectOptions);
    this.keepCookie(response.headers['set-cookie']);
    const text = response.body;
    const isJson = (response.headers['content-type'] ?? '').includes('application/json');
    const body: unknown = text !== '' && isJson ? response.json() : undefined;
    if (body && typeof body === 'object' && 'csrfToken' in body && typeof body.csrfToken === 'string') {
      this.csrfToken = body.csrfToken;
    }
    return { status: response.statusCode, headers: response.headers, body, text, bytes: response.rawPayload };
  }

  get(url: string): Promise<ApiResponse> {
    return this.request('GET', url);
  }

  /** GET <api>/session: who is signed in, and a CSRF token (kept). */
  session(): Promise<ApiResponse> {
    return this.get(`${this.surface.apiPath}/session`);
  }

  /** Signs in (reading a CSRF token first when the browser has none yet). */
  async signIn(credentials: SignInCredentials): Promise<ApiResponse> {
    if (this.csrfToken === undefined) await this.session();
    return this.request('POST', `${this.surface.apiPath}/session`, credentials);
  }

  /** Signs in, and throws unless the sign-in succeeded. */
  async signInOrThrow(credentials: SignInCredentials): Promise<this> {
    const response = await this.signIn(credentials);
    if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${response.text}`);
    return this;
  }

  /** The session id the cookie carries (the part before its signature), to find its row in `user_sessions`. */
  sessionId(): string {
    if (this.cookie === undefined) throw new Error('this browser has no session cookie');
    const id = decodeURIComponent(this.cookie).split('.')[0];
    if (id === undefined || id === '') throw new Error(`no session id in the cookie ${this.cookie}`);
    return id;
  }

  private keepCookie(header: string | string[] | undefined): void {
    const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      if (pair.slice(0, separator) !== this.surface.cookie) continue;
      const value = pair.slice(separator + 1);
      const expired = attributes.some(
        (attribute) => /^expires=/i.test(attribute) && new Date(attribute.slice(8)).getTime() <= Date.now(),
      );
      this.cookie = value === '' || expired ? undefined : value;
      this.cookieAttributes = attributes;
    }
  }
}

/** The SHA-256 under which `user_sessions` keeps a session id. */
export function sessionIdHash(sessionId: string): Buffer {
  return createHash('sha256').update(sessionId).digest();
}

/** A person of an instance who can sign in: made through an invitation they accepted. */
export interface DashboardPerson {
  id: string;
  email: string;
  name: string;
  role: Role;
  password: string;
}

/** A unique e-mail address, so that people made by one test file never share one by accident. */
export function uniqueEmail(name = 'person'): string {
  return `${name}-${randomBytes(4).toString('hex')}@example.com`;
}

/**
 * An active person of the instance (invited, and the invitation accepted with `password`): about 50 ms for
 * the password's hash.
 */
export function createDashboardPerson(
  db: Database,
  options: { instanceId: string; role: Role; email?: string; name?: string; password?: string },
): Promise<DashboardPerson> {
  return createPerson(db, { ...options, tenant: { kind: 'instance', id: options.instanceId } });
}

/** An active person of a tenant of either kind, as {@link createDashboardPerson}. */
export async function createPerson(
  db: Database,
  options: { tenant: AccountTenant; role: Role; email?: string; name?: string; password?: string },
): Promise<DashboardPerson> {
  const email = options.email ?? uniqueEmail(options.role);
  const name = options.name ?? `${options.role === 'admin' ? 'Ada' : 'Max'} ${email.slice(0, 8)}`;
  const password = options.password ?? PASSWORD;
  const { link } = await inviteUser(db, { tenant: options.tenant, email, role: options.role, name });
  const user = await setPasswordWithLink(db, {
    purpose: 'invitation',
    tenantKind: options.tenant.kind,
    token: link.token,
    password,
  });
  return { id: user.id, email: user.email, name: user.name, role: user.role, password };
}

/** A browser signed in as the person. */
export function signedInBrowser(
  app: FastifyInstance,
  person: DashboardPerson,
  instance?: string,
): Promise<Browser> {
  return new Browser(app).signInOrThrow({
    email: person.email,
    password: person.password,
    ...(instance === undefined ? {} : { instance }),
  });
}

/**
 * The `nth` message (1 = the first) the SMTP server received for `address` after its first `after` messages,
 * once it has arrived.
 */
export async function mailTo(
  smtp: TestSmtpServer,
  address: string,
  options: { after?: number; nth?: number; timeoutMs?: number } = {},
): Promise<ReceivedMail> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const found = smtp.received
      .slice(options.after ?? 0)
      .filter((mail) => mail.envelope.to.includes(address.toLowerCase()))[(options.nth ?? 1) - 1];
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`mail ${String(options.nth ?? 1)} to ${address} did not arrive`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The link (`invitation` or `reset-password`) of the pages at `pagesUrl` in a message's text. */
export function mailedLink(
  mail: ReceivedMail,
  page: 'invitation' | 'reset-password',
  pagesUrl = `${PORTFOLIO_URL}/dashboard`,
): { link: string; token: string } {
  const pattern = new RegExp(`${pagesUrl}/${page}#token=([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])`);
  const found = pattern.exec(mail.parsed.text ?? '');
  const [link, token] = found ?? [];
  if (link === undefined || token === undefined)
    throw new Error(`no ${page} link in: ${mail.parsed.text ?? ''}`);
  return { link, token };
}

/** The token of the dashboard link (`invitation` or `reset-password`) in a message's text. */
export function linkToken(
  mail: ReceivedMail,
  page: 'invitation' | 'reset-password',
  pagesUrl?: string,
): string {
  return mailedLink(mail, page, pagesUrl).token;
}

/** How many rows a `select count(*)` of the test counts. */
export async function countOf(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await db.query<{ count: string | number }>(sql, params);
  return Number(row?.count ?? Number.NaN);
}
