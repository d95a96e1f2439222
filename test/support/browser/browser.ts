/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { DEFAULT_WEB_DIST_DIR } from '../../../src/http/web-pages.ts';
import { DIALECT } from '../db/database.ts';
import type { CloseAfterAll } from '../made-before-all.ts';

/**
 * Browser tests drive Debian's chromium (which `.ci/run` installs when it is missing) with playwright-core, on
 * Portico's pages over real HTTPS. A test file calls {@link useChromium} once: one browser for the file, pages
 * that reach nothing but Portico, screenshots checked for accessibility.
 */

/** Debian's chromium. */
export const CHROMIUM = '/usr/bin/chromium';
/** Where the browser tests save their screenshots (git-ignored): look at them after a change to a page. */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'web', 'screenshots');
/**
 * Whether the screenshots are written: always, but where `PORTICO_TEST_SCREENSHOTS=0` says no one will look at
 * them (CI, whose clone is thrown away): writing a whole page's PNG takes a few hundred milliseconds each. The
 * accessibility check of each shot runs either way.
 */
const SAVE_SCREENSHOTS = process.env.PORTICO_TEST_SCREENSHOTS !== '0';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * Headless Chromium, as root in CI, without background networking (this machine's closed network refuses it),
 * after checking that the browser and the built surface the test opens are there. No name resolves but
 * localhost's, so a page cannot reach another host: a request there fails at once (and {@link useChromium}'s
 * check names it). That is cheaper than intercepting every request (`context.route`), which also turns the
 * HTTP cache off, so that every navigation fetched every asset again.
 */
export async function launchChromium(
  /** The built surface its pages open (checked to be built), or null for pages of the test's own. */
  surface: string | null,
  /** Other hosts its pages may reach besides localhost (an identity provider on 127.0.0.1). */
  options: { reachable?: string[] } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  if (surface !== null && !existsSync(join(DEFAULT_WEB_DIST_DIR, surface, 'index.html'))) {
    throw new Error(`web/dist/${surface} is missing: npm run build:web`);
  }
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--host-resolver-rules=MAP * ~NOTFOUND, ${['localhost', ...(options.reachable ?? [])].map((host) => `EXCLUDE ${host}`).join(', ')}`,
    ],
  });
}

/** A fresh browser context (its own cookies and storage) that reaches only localhost, its requests recorded. */
export interface RecordedContext {
  context: BrowserContext;
  /** Every address a page of the context (or its workers) asked for, reached or not. */
  requested: string[];
  /** Content-Security-Policy refusals and uncaught errors its pages reported. */
  problems: string[];
  /** A new page of the context, its problems recorded. */
  newPage(): Promise<Page>;
}

/**
 * A context on Portico's self-signed certificate for localhost, whose requests are recorded (those to another
 * host fail: see {@link launchChromium}), with a default wait well inside a test's own time limit, so that a
 * missing element is reported as such. Its pages prefer reduced motion, as many people's devices are set: a
 * dialog is there at once instead of fading in, and a software-rendered browser on two cores does not draw each
 * frame of an animation no test looks at.
 */
export async function recordedContext(browser: Browser, options: PageOptions = {}): Promise<RecordedContext> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'reduce',
    ...(options.permissions ? { permissions: options.permissions } : {}),
  });
  // A page's step waits up to 20 s: on a slow two-core machine, beside another browser and ESLint, a page that
  // takes 1 s alone took more than 10.
  context.setDefaultTimeout(20_000);
  const requested: string[] = [];
  const problems: string[] = [];
  context.on('request', (request) => {
    requested.push(request.url());
  });
  return {
    context,
    requested,
    problems,
    async newPage() {
      const page = await context.newPage();
      page.on('console', (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      return page;
    },
  };
}

/** One rule a page breaks, as axe-core reports it: the rule, how bad, and where. */
export interface AccessibilityViolation {
  rule: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

const require = createRequire(import.meta.url);
let axeSource: Promise<string> | undefined;

/**
 * What axe-core (the accessibility engine of browsers' own audit tools) finds wrong with the page as it is now,
 * against WCAG 2.1 A and AA: labels, names, contrast, landmarks, ARIA. The engine is evaluated in the page by the
 * test (as a devtools extension would), not served by Portico.
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  // Evaluated once per document: a page's later checks (the same single-page app, step after step) reuse it.
  if (!(await page.evaluate(() => 'axe' in window))) {
    axeSource ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(await axeSource);
  }
  // A dialog fading in or a button's colour changing is checked once it has settled: mid-way, its contrast is
  // neither the one before nor the one after (a check run there found a half-faded button). Endless animations
  // (a spinner) are not waited for.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const results = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: {
        run: (
          context: Document,
          options: object,
        ) => Promise<{
          violations: {
            id: string;
            impact?: string | null;
            help: string;
            nodes: { target: unknown[] }[];
          }[];
        }>;
      };
    };
    const found = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return found.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.map(String).join(' ')),
    }));
  });
  return results;
}

/** What a page of {@link useChromium} is opened with besides its origin. */
export interface PageOptions {
  /** @default DESKTOP */
  viewport?: { width: number; height: number };
  /** The device's light or dark setting. @default 'light' */
  colorScheme?: 'light' | 'dark';
  permissions?: string[];
}

/** The Chromium of one test file (see {@link useChromium}). */
export interface ChromiumFixture {
  /**
   * A page in a fresh context (its own cookies and storage), for `origin`: the file fails if one of its pages
   * asks anything of another origin (but those of `otherOrigins`).
   */
  newPage: (origin: string, options?: PageOptions) => Promise<Page>;
  /**
   * Saves what the page shows, whole, as `<surface>-<database>-<shot>.png` in test/web/screenshots, and checks
   * it as it is against WCAG 2.1 A and AA with axe-core (unless `accessibility` is false: a page Portico does
   * not draw itself, such as GraphiQL's).
   */
  screenshot: (page: Page, shot: string, options?: { accessibility?: boolean }) => Promise<void>;
  /** Every address the page's context asked for so far. */
  requested: (page: Page) => string[];
  /** {@link ChromiumFixture.screenshot} at phone width, then at desktop width (`<shot>-phone`, `<shot>-desktop`). */
  screenshotPhoneAndDesktop: (page: Page, shot: string) => Promise<void>;
}

/**
 * Registers the hooks of a browser test file: Chromium launched before its tests (after checking that
 * web/dist/`surface` is built) and closed after them. After them too, every page the file opened asked nothing
 * of another origin over HTTP(S) and had no Content-Security-Policy refusal or uncaught error. Call it before
 * the file's own hooks, so that its browser is up first and closed last.
 *
 * @example
 * const chromium = useChromium('recipient');
 * it('shows the overview', async () => {
 *   const page = await chromium.newPage(origin, { viewport: PHONE });
 *   await page.goto(`${origin}/r/${token}`);
 *   await chromium.screenshot(page, 'overview');
 * });
 */
export function useChromium(
  surface: string,
  options: {
    /**
     * Other origins the pages may reach besides their own (an identity provider's), known once the file's
     * `beforeAll` hooks registered before this call have run.
     */
    otherOrigins?: () => string[];
  } = {},
): ChromiumFixture {
  let browser: Browser | undefined;
  const opened: { browsing: RecordedContext; origin: string }[] = [];

  beforeAll(async () => {
    const reachable = (options.otherOrigins?.() ?? []).map((origin) => new URL(origin).hostname);
    browser = await launchChromium(surface, { reachable });
  });
  afterAll(async () => {
    const others = options.otherOrigins?.() ?? [];
    for (const { browsing, origin } of opened) {
      // Chromium's own viewers (chrome:// pages, the PDF viewer's extension) are not asked over the network.
      const fetched = browsing.requested.filter((url) => /^https?:/.test(url));
      expect(fetched.filter((url) => ![origin, ...others].includes(new URL(url).origin))).toEqual([]);
      expect(browsing.problems).toEqual([]);
    }
    await browser?.close();
  });

  async function screenshot(page: Page, shot: string, options: { accessibility?: boolean } = {}) {
    if (SAVE_SCREENSHOTS) {
      await page.screenshot({ path: join(SCREENSHOTS, `${surface}-${DIALECT}-${shot}.png`), fullPage: true });
    }
    if (options.accessibility !== false) expect(await accessibilityViolations(page), shot).toEqual([]);
  }

  return {
    async newPage(origin, options = {}) {
      if (!browser) throw new Error('the browser is launched in beforeAll: open pages inside tests');
      const browsing = await recordedContext(browser, options);
      opened.push({ browsing, origin });
      return browsing.newPage();
    },
    screenshot,
    requested: (page) =>
      opened.find(({ browsing }) => browsing.context === page.context())?.browsing.requested ?? [],
    async screenshotPhoneAndDesktop(page, shot) {
      const viewport = page.viewportSize() ?? DESKTOP;
      for (const [width, size] of [
        ['phone', PHONE],
        ['desktop', DESKTOP],
      ] as const) {
        await page.setViewportSize(size);
        await screenshot(page, `${shot}-${width}`);
      }
      await page.setViewportSize(viewport);
    },
  };
}

/**
 * Makes an app built with the test certificate (`testTls()`) listen on a free loopback port, closed after the
 * file's tests, and returns its origin as a browser opens it: `https://localhost:<port>`, the name the
 * certificate is for.
 */
export async function listenForBrowser(app: FastifyInstance, closeAfterAll: CloseAfterAll): Promise<string> {
  closeAfterAll(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `https://localhost:${String((app.server.address() as AddressInfo).port)}`;
}

/** A file a click downloaded: where it came from, the name the service gave it, and its bytes. */
export interface Downloaded {
  url: string;
  suggestedFilename: string;
  body: Buffer;
}

/**
 * The file a click downloads. Headless Chromium (156.0.8078.108) has ended downloads as "canceled" once they had
 * begun, under CI's load only: the queue's CSV in every CI run of 2026-11-29, a signed PDF once before, never
 * alone, with no error the service logged. The link the page offered is then fetched once more with the page's
 * session (`page.request`, the context's cookies), said on stderr, and must answer the whole file: a refusal or a
 * stream the service cuts short still fails the test, with `explain` (what the test knows: the service's log).
 */
export async function downloadBy(
  page: Page,
  click: () => Promise<unknown>,
  explain: () => string = () => '',
): Promise<Downloaded> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const url = download.url();
  const suggestedFilename = download.suggestedFilename();
  const failure = await download.failure();
  if (failure === null) return { url, suggestedFilename, body: await readFile(await download.path()) };
  const path = new URL(url).pathname;
  process.stderr.write(
    `Chromium ended the download of ${path} as "${failure}": fetching it with the page's session\n`,
  );
  const response = await page.request.get(url);
  if (!response.ok()) {
    throw new Error(
      `the download of ${path} failed (${failure}), then answered ${String(response.status())} ${explain()}`,
    );
  }
  return { url, suggestedFilename, body: await response.body() };
}
