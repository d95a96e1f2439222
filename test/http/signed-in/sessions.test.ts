// Sessions people can see and end (issue 42, item 5), through the shared sign-in kit on both signed-in surfaces,
// on the apps `portico serve` builds: the list with browser and address, ending one or all but this one (the
// ended browser's next request is signed out), and the idle and absolute limits read from the config.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { describeUserAgent } from '../../../src/accounts/session-list.ts';
import type { Role } from '../../../src/accounts/roles.ts';
import type { AccountTenant } from '../../../src/accounts/users.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { SESSION_COOKIE } from '../../../src/portfolio/dashboard/dashboard.ts';
import { CONSOLE_SESSION_COOKIE } from '../../../src/transactions/console/console.ts';
import { createOrganization } from '../../../src/transactions/organizations.ts';
import {
  Browser,
  createPerson,
  sessionIdHash,
  smtpWithMailer,
  type SignInSurface,
} from '../../support/data/dashboard.ts';
import { createPortfolioInstance } from '../../support/data/portfolio.ts';
import { testDatabaseAndFiles, uniqueHandle } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';
import { servedAppsOf } from '../../support/data/service-apps.ts';

interface Surface {
  name: string;
  app: FastifyInstance;
  browserSurface: SignInSurface;
  tenant: AccountTenant;
  /** The admin route that ends a colleague's sessions, and the role that may not. */
  endColleague: (id: string) => string;
  nonAdmin: Role;
}

const CHROME_ON_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

const world = madeBeforeAll('the served apps with short session limits', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-sessions-'));
  closeAfterAll(() => rm(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    PORTICO_DATA_DIR: dataDir,
    PORTICO_SESSION_IDLE_MINUTES: '5',
    PORTICO_SESSION_MAX_HOURS: '1',
  });
  const { smtp, mailer } = await smtpWithMailer(closeAfterAll);
  const { appOf } = await servedAppsOf(closeAfterAll, { db, files, config, mailer });
  const organization = await createOrganization(db, {
    handle: uniqueHandle('sessions'),
    name: 'Session Capital',
  });
  const instanceSlug = uniqueHandle('sessions');
  const instance = await createPortfolioInstance(db, {
    slug: instanceSlug,
    name: 'Session Portfolio',
  });
  const surfaces: Surface[] = [
    {
      name: 'console',
      app: appOf('transactions'),
      browserSurface: { apiPath: '/console/api', cookie: CONSOLE_SESSION_COOKIE },
      tenant: { kind: 'organization', id: organization.id },
      endColleague: (id) => `/console/api/team/${id}/sessions/end`,
      nonAdmin: 'operator',
    },
    {
      name: 'dashboard',
      app: appOf('portfolio'),
      browserSurface: { apiPath: '/dashboard/api', cookie: SESSION_COOKIE },
      tenant: { kind: 'instance', id: instance.instanceId },
      endColleague: (id) => `/dashboard/api/instances/${instanceSlug}/people/${id}/sessions/end`,
      nonAdmin: 'member',
    },
  ];
  const otherOrganization = await createOrganization(db, {
    handle: uniqueHandle('elsewhere'),
    name: 'Elsewhere Capital',
  });
  const otherInstance = await createPortfolioInstance(db, {
    slug: uniqueHandle('elsewhere'),
    name: 'Elsewhere Portfolio',
  });
  const elsewhere: Record<string, AccountTenant> = {
    console: { kind: 'organization', id: otherOrganization.id },
    dashboard: { kind: 'instance', id: otherInstance.instanceId },
  };
  return { db, surfaces, smtp, elsewhere };
});

/**
 * Signs a person in from a new browser with this User-Agent (and this browser cookie, as a browser signed in
 * before would send it); answers the browser and the browser cookie the server set.
 */
async function browserOf(
  surface: Surface,
  credentials: { email: string; password: string },
  userAgent: string,
  browserCookie?: string,
) {
  const browser = new Browser(surface.app, undefined, surface.browserSurface);
  await browser.session();
  const answer = await browser.request('POST', `${surface.browserSurface.apiPath}/session`, credentials, {
    headers: {
      'user-agent': userAgent,
      ...(browserCookie === undefined ? {} : { cookie: `portico_device=${browserCookie}` }),
    },
  });
  expect(answer.status).toBe(200);
  const header = answer.headers['set-cookie'];
  const lines: string[] =
    header === undefined ? [] : Array.isArray(header) ? header : typeof header === 'string' ? [header] : [];
  const device = lines.find((line) => line.startsWith('portico_device='));
  return Object.assign(browser, {
    deviceCookie: device?.split(';')[0]?.slice('portico_device='.length),
    deviceAttributes:
      device
        ?.split(';')
        .slice(1)
        .map((part) => part.trim()) ?? [],
  });
}

interface Listed {
  id: string;
  browser: string;
  ipAddress: string | null;
  startedAt: string;
  lastActiveAt: string;
  current: boolean;
}

/** A person of the surface's tenant signed in from two browsers: Chrome on macOS, then Firefox on Windows. */
async function twoBrowsers(surface: Surface) {
  const person = await createPerson(world.db, { tenant: surface.tenant, role: 'admin' });
  const credentials = { email: person.email, password: person.password };
  const mac = await browserOf(surface, credentials, CHROME_ON_MAC);
  const windows = await browserOf(surface, credentials, FIREFOX_ON_WINDOWS);
  const api = (path: string) => `${surface.browserSurface.apiPath}${path}`;
  const list = async (browser: Browser) => {
    const answer = await browser.get(api('/sessions'));
    expect(answer.status).toBe(200);
    return (answer.body as { sessions: Listed[] }).sessions;
  };
  return { person, mac, windows, api, list };
}

describe('describeUserAgent', () => {
  it('names the browser and system in a few words', () => {
    expect(describeUserAgent(CHROME_ON_MAC)).toBe('Chrome on macOS');
    expect(describeUserAgent(FIREFOX_ON_WINDOWS)).toBe('Firefox on Windows');
    expect(
      describeUserAgent(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iOS');
    expect(describeUserAgent(undefined)).toBe('Unknown browser');
  });
});

describe('session limits in the config', () => {
  it('refuses limits that are not whole numbers in range, in one line each', () => {
    expect(() => loadConfig({ PORTICO_SESSION_IDLE_MINUTES: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORTICO_SESSION_MAX_HOURS: 'soon' })).toThrow(/PORTICO_SESSION_MAX_HOURS/);
    expect(loadConfig({})).toMatchObject({ sessionIdleMinutes: 120, sessionMaxHours: 12 });
  });
});

for (const name of ['console', 'dashboard']) {
  const surfaceOf = () => {
    const found = world.surfaces.find((each) => each.name === name);
    if (!found) throw new Error(`no ${name} surface`);
    return found;
  };

  describe(`sessions on the ${name}`, () => {
    it('lists this session and the other with browser, address and which one is this one', async () => {
      const { mac, windows, list } = await twoBrowsers(surfaceOf());
      const sessions = await list(mac);
      expect(sessions).toHaveLength(2);
      const [current, other] = sessions;
      expect(current).toMatchObject({
        browser: 'Chrome on macOS',
        ipAddress: mac.clientAddress,
        current: true,
      });
      expect(other).toMatchObject({
        browser: 'Firefox on Windows',
        ipAddress: windows.clientAddress,
        current: false,
      });
      // The id shown is neither the session's secret nor the hash it is kept under.
      expect(other?.id).not.toContain(windows.sessionId());
      expect(other?.id).not.toBe(sessionIdHash(windows.sessionId()).toString('hex'));
      expect(Date.parse(other?.startedAt ?? '')).not.toBeNaN();
    });

    it('ends another session: its next request is signed out, and this one stays', async () => {
      const { mac, windows, api, list } = await twoBrowsers(surfaceOf());
      const other = (await list(mac)).find((session) => !session.current);
      expect((await mac.request('DELETE', api(`/sessions/${other?.id ?? ''}`))).status).toBe(200);
      expect((await windows.get(api('/sessions'))).status).toBe(401);
      expect(((await windows.session()).body as { user: unknown }).user).toBeNull();
      expect(await list(mac)).toHaveLength(1);
      // Ended already: there is no such session of theirs.
      const again = await mac.request('DELETE', api(`/sessions/${other?.id ?? ''}`));
      expect(again.status).toBe(404);
      expect((again.body as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    });

    it("refuses to end another person's session as NOT_FOUND", async () => {
      const first = await twoBrowsers(surfaceOf());
      const second = await twoBrowsers(surfaceOf());
      const theirs = (await second.list(second.mac))[0];
      const refused = await first.mac.request('DELETE', first.api(`/sessions/${theirs?.id ?? ''}`));
      expect(refused.status).toBe(404);
      expect((await second.mac.get(second.api('/sessions'))).status).toBe(200);
    });

    it('ends all sessions but this one', async () => {
      const { person, mac, windows, api, list } = await twoBrowsers(surfaceOf());
      const third = await browserOf(
        surfaceOf(),
        { email: person.email, password: person.password },
        CHROME_ON_MAC,
      );
      const ended = await mac.request('POST', api('/sessions/end-others'));
      expect(ended.status).toBe(200);
      expect(ended.body).toEqual({ otherSessionsEnded: 2 });
      expect((await windows.get(api('/sessions'))).status).toBe(401);
      expect((await third.get(api('/sessions'))).status).toBe(401);
      expect((await list(mac)).map((session) => session.current)).toEqual([true]);
    });

    it('mails the person once when they sign in from a browser not seen before, and not from a known one', async () => {
      const surface = surfaceOf();
      const person = await createPerson(world.db, { tenant: surface.tenant, role: 'admin' });
      const credentials = { email: person.email, password: person.password };
      const mailsTo = () =>
        world.smtp.received.filter((mail) => mail.envelope.to.includes(person.email.toLowerCase()));
      // The account's first browser mails no one.
      const first = await browserOf(surface, credentials, CHROME_ON_MAC);
      expect(first.deviceCookie).toMatch(/^[\w-]{32}$/);
      expect(first.deviceAttributes).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax']));
      expect(mailsTo()).toHaveLength(0);
      // A new browser: one mail, naming the browser and the address.
      const second = await browserOf(surface, credentials, FIREFOX_ON_WINDOWS);
      expect(second.deviceCookie).not.toBe(first.deviceCookie);
      expect(mailsTo()).toHaveLength(1);
      expect(mailsTo()[0]?.parsed.text).toContain(`Firefox on Windows from ${second.clientAddress}`);
      expect(mailsTo()[0]?.parsed.text).toContain(
        "If this wasn't you, change your password and end the session",
      );
      // The first browser again, by its cookie: no mail.
      await browserOf(surface, credentials, CHROME_ON_MAC, first.deviceCookie);
      expect(mailsTo()).toHaveLength(1);
    });

    it("lets an admin end a colleague's sessions, refuses a non-admin, and finds no one of another tenant", async () => {
      const surface = surfaceOf();
      const colleague = await twoBrowsers(surface);
      const signedIn = async (role: Role) => {
        const person = await createPerson(world.db, { tenant: surface.tenant, role });
        return browserOf(surface, { email: person.email, password: person.password }, CHROME_ON_MAC);
      };
      const nonAdmin = await signedIn(surface.nonAdmin);
      const refused = await nonAdmin.request('POST', surface.endColleague(colleague.person.id));
      expect(refused.status).toBe(403);
      expect((await colleague.mac.get(colleague.api('/sessions'))).status).toBe(200);
      const admin = await signedIn('admin');
      const ended = await admin.request('POST', surface.endColleague(colleague.person.id));
      expect(ended.status).toBe(200);
      expect(ended.body).toEqual({ sessionsEnded: 2 });
      expect((await colleague.mac.get(colleague.api('/sessions'))).status).toBe(401);
      expect((await colleague.windows.get(colleague.api('/sessions'))).status).toBe(401);
      const outsider = await createPerson(world.db, {
        tenant: world.elsewhere[name] ?? surface.tenant,
        role: 'admin',
      });
      const outsiders = await browserOf(
        { ...surface, tenant: world.elsewhere[name] ?? surface.tenant },
        { email: outsider.email, password: outsider.password },
        CHROME_ON_MAC,
      );
      const notFound = await admin.request('POST', surface.endColleague(outsider.id));
      expect(notFound.status).toBe(404);
      expect((notFound.body as { error: { code: string } }).error.code).toBe('NOT_FOUND');
      expect((await outsiders.get(colleague.api('/sessions'))).status).toBe(200);
      if (name === 'console') {
        const [recorded] = await world.db.query<{ details: unknown }>(
          "select details from team_changes where user_id = $1 and action = 'sessions_ended'",
          [colleague.person.id],
        );
        expect(recorded?.details).toEqual({ sessionsEnded: 2 });
      }
    });

    it('ends a session idle longer than the configured idle limit', async () => {
      const { mac, windows, api } = await twoBrowsers(surfaceOf());
      const [row] = await world.db.query<{ minutes: number }>(
        `select extract(epoch from expires_at - clock_timestamp()) / 60 as minutes
         from user_sessions where id_hash = $1`,
        [sessionIdHash(mac.sessionId())],
      );
      // PORTICO_SESSION_IDLE_MINUTES=5: the idle expiry is at most 5 minutes ahead, not the default 2 hours.
      expect(Number(row?.minutes)).toBeGreaterThan(0);
      expect(Number(row?.minutes)).toBeLessThanOrEqual(5);
      await world.db.query(
        `update user_sessions set expires_at = clock_timestamp() - interval '1 second' where id_hash = $1`,
        [sessionIdHash(mac.sessionId())],
      );
      expect((await mac.get(api('/sessions'))).status).toBe(401);
      expect((await windows.get(api('/sessions'))).status).toBe(200);
    });

    it('ends a session signed in longer ago than the configured absolute limit, however active', async () => {
      const { mac, windows, api } = await twoBrowsers(surfaceOf());
      const signedInAgo = async (browser: Browser, minutes: number) => {
        await world.db.query(
          `update user_sessions set data = jsonb_set(data, '{signedInAt}', to_jsonb($2::bigint))
           where id_hash = $1`,
          [sessionIdHash(browser.sessionId()), Date.now() - minutes * 60_000],
        );
      };
      // PORTICO_SESSION_MAX_HOURS=1: 59 minutes in, still signed in; 61 minutes in, signed out.
      await signedInAgo(windows, 59);
      await signedInAgo(mac, 61);
      expect((await windows.get(api('/sessions'))).status).toBe(200);
      expect((await mac.get(api('/sessions'))).status).toBe(401);
      const listed = (await windows.get(api('/sessions'))).body as { sessions: Listed[] };
      expect(listed.sessions.map((session) => session.current)).toEqual([true]);
    });
  });
}
