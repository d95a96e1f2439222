// `npm run bench:pages`: how fast Portico's pages are on a mid-tier phone (issue 24, part 9). Starts `portico
// serve` on a data dir of its own (demo data), builds and serves a floor page (bench/floor-page/: a bare Vite +
// React + Radix Themes page) with the same compression, and measures each page's Largest Contentful Paint in
// headless Chromium over a throttled network and CPU, with the compressed script and style bytes it loads.
/// <reference lib="dom" />
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { build } from 'vite';
import { listMailFiles, readMailFile } from '../src/mail/mail-files.ts';
import { mailDir } from '../src/mail/mailer.ts';
import { launchChromium } from '../test/support/browser/browser.ts';
import { writeCompressedCopies } from '../web/precompress.ts';
import { answers, freePort } from './startup.ts';
import { median, printMarkdownTable, verdict } from './table.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `BENCH_PAGE_RUNS`: loads of each page. */
const RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 3);

/** The phone: Lighthouse's mobile profile (slow 4G: 1.6 Mbps down, 750 kbps up, 150 ms; a CPU 4× slower). */
const PHONE = {
  downloadBytesPerSecond: (1.6 * 1024 * 1024) / 8,
  uploadBytesPerSecond: (750 * 1024) / 8,
  latencyMs: 150,
  cpuSlowdown: 4,
  context: {
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
  },
} as const;

/** The issue's targets: LCP in seconds, and compressed bytes of the first load (not for GraphiQL). */
const TARGETS = {
  lcpSeconds: 1.8,
  chartsLcpSeconds: 2.5,
  graphiqlLcpSeconds: 4,
  jsKiB: 150,
  cssKiB: 30,
} as const;

interface PageToMeasure {
  name: string;
  url: string;
  /** Signed in to the dashboard first, or to the console. */
  signedIn?: boolean | 'console';
  lcpTarget: number;
  /** Whether the byte targets apply. */
  bytesTargets: boolean;
  /**
   * What LCP does not tell, timed too: when each selector first matched, from the start of the navigation (the
   * page usable, a drawing there). The load waits for each, as the network may go quiet before (GraphiQL's editor).
   */
  marks?: Mark[];
}

/** Something a page shows after its first paint, by the selector that finds it. */
interface Mark {
  label: string;
  selector: string;
}

interface Measurement {
  lcpMs: number;
  /** When each of the page's marks showed, in milliseconds from the start of the navigation, by label. */
  markMs: Record<string, number>;
  jsBytes: number;
  cssBytes: number;
  /** Whether the server drew the page: its HTML came with the page's words (`data-drawn`). */
  drawn: boolean;
}

interface Portico {
  transactions: string;
  portfolio: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** `portico serve` on `dataDir` with demo data, both services on free ports, answering. */
async function startPortico(dataDir: string): Promise<Portico> {
  const [transactionsPort, portfolioPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    PORTICO_DATA_DIR: dataDir,
    PORTICO_TRANSACTIONS_PORT: String(transactionsPort),
    PORTICO_PORTFOLIO_PORT: String(portfolioPort),
    PORTICO_LOG_LEVEL: 'silent',
  };
  const child = spawn(process.execPath, ['bin/portico.js', 'serve'], { cwd: ROOT, stdio: 'ignore', env });
  const exited = once(child, 'exit');
  const started = Date.now();
  while (!(
    (await answers(transactionsPort)) &&
    (await answers(portfolioPort)) &&
    existsSync(join(dataDir, 'demo.json'))
  )) {
    if (child.exitCode !== null) throw new Error(`portico serve exited with ${String(child.exitCode)}`);
    if (Date.now() - started > 120_000) throw new Error('portico serve did not answer within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    transactions: `https://localhost:${String(transactionsPort)}`,
    portfolio: `https://localhost:${String(portfolioPort)}`,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Issues a staging key to a bench address with the CLI, and reads its link from the mail outbox. */
async function keyDeliveryLink(dataDir: string): Promise<string> {
  const issued = spawnSync(
    process.execPath,
    [
      'bin/portico.js',
      '--environment',
      'staging',
      'keys',
      'issue',
      '--org',
      'demo-capital',
      '--email',
      'bench@example.com',
    ],
    { cwd: ROOT, env: { ...process.env, PORTICO_DATA_DIR: dataDir }, encoding: 'utf8' },
  );
  if (issued.status !== 0) throw new Error(`portico keys issue failed: ${issued.stderr}`);
  // Decoded as `portico mail show` decodes it: the mail may be quoted-printable or base64 (its "…" makes it so).
  for (const { number, to } of await listMailFiles(dataDir)) {
    if (to !== 'bench@example.com') continue;
    const { text } = await readMailFile(dataDir, number);
    const link = /https:\/\/[^\s"<]+\/key-delivery\/[^\s"<]+/.exec(text)?.[0];
    if (link !== undefined) return link;
  }
  throw new Error(`no key-delivery link in ${mailDir(dataDir)}`);
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
};

/**
 * The floor page built into a temporary folder, precompressed as Portico's assets are, and served over HTTPS
 * (Portico's certificate) by a static server that sends brotli or gzip as the browser accepts.
 */
async function startFloor(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const outDir = join(dataDir, 'floor-page');
  await build({
    configFile: false,
    root: join(ROOT, 'bench', 'floor-page'),
    base: '/',
    publicDir: false,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      assetsDir: 'assets',
      reportCompressedSize: false,
      rolldownOptions: {
        onLog(level, log, handler) {
          // Radix's modules say "use client", which bundling drops harmlessly.
          if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
          handler(level, log);
        },
      },
    },
  });
  await writeCompressedCopies(join(outDir, 'assets'));
  const [cert, key] = await Promise.all([
    readFile(join(dataDir, 'tls', 'localhost-cert.pem')),
    readFile(join(dataDir, 'tls', 'localhost-key.pem')),
  ]);
  const server = createHttpsServer({ cert, key }, (req, res) => {
    void (async () => {
      const path = normalize(new URL(req.url ?? '/', 'https://localhost').pathname);
      const file = join(outDir, path === '/' ? 'index.html' : path);
      const accepted = req.headers['accept-encoding'] ?? '';
      const encoding =
        !file.endsWith('.html') && /\bbr\b/.test(accepted)
          ? 'br'
          : /\bgzip\b/.test(accepted)
            ? 'gzip'
            : undefined;
      const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '';
      try {
        const body = await readFile(file.endsWith('.html') ? file : `${file}${suffix}`);
        res.writeHead(200, {
          'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
          ...(encoding !== undefined && !file.endsWith('.html') ? { 'content-encoding': encoding } : {}),
        });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `https://localhost:${String((server.address() as AddressInfo).port)}/`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** One load of `url` on the phone, in a fresh context (cache empty, and disabled): LCP and bytes by type. */
async function measure(
  browser: Browser,
  url: string,
  storageState?: BrowserContextOptions['storageState'],
  marks: Mark[] = [],
): Promise<Measurement> {
  const context = await browser.newContext({ ...PHONE.context, ignoreHTTPSErrors: true, storageState });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: PHONE.latencyMs,
      downloadThroughput: PHONE.downloadBytesPerSecond,
      uploadThroughput: PHONE.uploadBytesPerSecond,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PHONE.cpuSlowdown });
    const types = new Map<string, string>();
    const bytes = { Script: 0, Stylesheet: 0 };
    cdp.on('Network.responseReceived', (event) => {
      types.set(event.requestId, event.type);
    });
    cdp.on('Network.loadingFinished', (event) => {
      const type = types.get(event.requestId);
      // Bytes on the wire, headers included: compressed as the server sent them.
      if (type === 'Script' || type === 'Stylesheet') bytes[type] += event.encodedDataLength;
    });
    // The marks are timed in the page, when the DOM first holds them (a poll from here would be late by its
    // interval). The callbacks are written inline: the page runs their text, without this file's helpers.
    await page.addInitScript(
      (selectors: string[]) => {
        const shown: Record<string, number> = {};
        (window as unknown as { shown: Record<string, number> }).shown = shown;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) (window as unknown as { lcp: number }).lcp = entry.startTime;
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        if (selectors.length === 0) return;
        const observer = new MutationObserver(() => {
          for (const selector of selectors) {
            if (shown[selector] === undefined && document.querySelector(selector) !== null) {
              shown[selector] = performance.now();
            }
          }
          if (selectors.every((selector) => shown[selector] !== undefined)) observer.disconnect();
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true });
      },
      marks.map((mark) => mark.selector),
    );
    const response = await page.goto(url, { waitUntil: 'networkidle', timeout: 120_000 });
    const drawn = (await response?.text())?.includes(' data-drawn') ?? false;
    for (const { selector } of marks) await page.locator(selector).first().waitFor({ timeout: 120_000 });
    const shown = await page.evaluate(() => (window as unknown as { shown: Record<string, number> }).shown);
    const markMs = Object.fromEntries(
      marks.map(({ label, selector }) => [label, shown[selector] ?? Number.NaN]),
    );
    // On a busy machine the first paint may come after the network is idle: wait for it (15 s at most), then a
    // quiet second, so that a late paint (a chart drawn after its data) still counts.
    await page
      .waitForFunction(() => (window as unknown as { lcp?: number }).lcp !== undefined, null, {
        timeout: 15_000,
      })
      .catch(() => undefined);
    await page.waitForTimeout(1000);
    const lcpMs = await page.evaluate(() => (window as unknown as { lcp?: number }).lcp ?? Number.NaN);
    return { lcpMs, markMs, jsBytes: bytes.Script, cssBytes: bytes.Stylesheet, drawn };
  } finally {
    await context.close();
  }
}

/** The dashboard's demo admin signed in through the sign-in page: the cookies, and where it landed. */
async function signIn(browser: Browser, portfolio: string, dataDir: string) {
  const facts = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as {
    portfolio: { companyId: string | null; dashboard?: { email: string; password: string } | null };
  };
  const account = facts.portfolio.dashboard;
  if (!account || facts.portfolio.companyId === null) throw new Error('demo.json has no dashboard sign-in');
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await page.goto(`${portfolio}/dashboard/sign-in`);
    await page.getByLabel('E-mail address').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/companies$/);
    return {
      storageState: await context.storageState(),
      companies: page.url(),
      companyId: facts.portfolio.companyId,
    };
  } finally {
    await context.close();
  }
}

/** The console's demo admin signed in through the sign-in page: the cookies, and the demo transaction's page. */
async function signInToConsole(browser: Browser, transactions: string, dataDir: string) {
  const facts = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as {
    transactions: { transactionId: string; console?: { email: string; password: string } | null };
  };
  const account = facts.transactions.console;
  if (!account) throw new Error('demo.json has no console sign-in');
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await page.goto(`${transactions}/console/sign-in`);
    await page.getByLabel('E-mail address').fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/queue$/);
    return {
      storageState: await context.storageState(),
      transaction: `${transactions}/console/transactions/${facts.transactions.transactionId}`,
      queue: `${transactions}/console/queue`,
    };
  } finally {
    await context.close();
  }
}

/** The recipient link's overview, and the first item step and the first signing step it links to. */
async function recipientSteps(browser: Browser, overview: string): Promise<{ item: string; sign: string }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  try {
    const page = await context.newPage();
    await page.goto(overview);
    await page.locator('a[href*="/items/"]').first().waitFor();
    const hrefs = await page
      .locator('a[href]')
      .evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href));
    const item = hrefs.find((href) => /\/items\/[^/]+$/.test(href));
    const sign = hrefs.find((href) => /\/sign$/.test(href));
    if (item === undefined || sign === undefined)
      throw new Error(`no item or sign step linked from ${overview}`);
    return { item, sign };
  } finally {
    await context.close();
  }
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-pages-'));
let portico: Portico | undefined;
let floor: { url: string; stop(): Promise<void> } | undefined;
let browser: Browser | undefined;
try {
  portico = await startPortico(dataDir);
  floor = await startFloor(dataDir);
  browser = await launchChromium('dashboard');
  const facts = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8')) as {
    transactions: { recipientUrl?: string };
  };
  const recipient = facts.transactions.recipientUrl;
  if (recipient === undefined) throw new Error('demo.json has no recipient link');
  const session = await signIn(browser, portico.portfolio, dataDir);
  const consoleSession = await signInToConsole(browser, portico.transactions, dataDir);
  const steps = await recipientSteps(browser, recipient);
  const keyLink = await keyDeliveryLink(dataDir);

  const pages: PageToMeasure[] = [
    {
      name: 'floor (Vite + React + Radix Themes)',
      url: floor.url,
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: false,
    },
    {
      name: 'dashboard sign-in',
      url: `${portico.portfolio}/dashboard/sign-in`,
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
    },
    {
      name: 'dashboard companies',
      url: session.companies,
      signedIn: true,
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
    },
    {
      name: 'dashboard company (charts)',
      url: `${session.companies}/${session.companyId}`,
      signedIn: true,
      lcpTarget: TARGETS.chartsLcpSeconds,
      bytesTargets: true,
    },
    {
      name: 'console sign-in',
      url: `${portico.transactions}/console/sign-in`,
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
    },
    {
      name: 'console work queue',
      url: consoleSession.queue,
      signedIn: 'console',
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
    },
    {
      name: 'console transaction (workflow drawn)',
      url: consoleSession.transaction,
      signedIn: 'console',
      // Its words come first (the drawing follows): the target of a page, not a chart's.
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
      marks: [
        // Usable: the events as buttons (enabled, or greyed with the engine's reason when the state says so; the
        // demo's transaction is complete), which act from the moment they show (no server rendering to wake).
        { label: "events' buttons shown", selector: '[aria-labelledby="workflow-heading"] ul button' },
        // The drawing, which comes in a chunk of its own after the page's words.
        { label: 'workflow drawn', selector: '.workflow-graph svg' },
      ],
    },
    { name: 'recipient overview', url: recipient, lcpTarget: TARGETS.lcpSeconds, bytesTargets: true },
    {
      name: 'recipient item step (form)',
      url: steps.item,
      lcpTarget: TARGETS.lcpSeconds,
      bytesTargets: true,
    },
    { name: 'recipient sign step', url: steps.sign, lcpTarget: TARGETS.lcpSeconds, bytesTargets: true },
    { name: 'key delivery', url: keyLink, lcpTarget: TARGETS.lcpSeconds, bytesTargets: true },
    {
      name: 'GraphiQL',
      url: `${portico.transactions}/graphiql`,
      lcpTarget: TARGETS.graphiqlLcpSeconds,
      bytesTargets: false,
      // The operation in its editor, once Monaco has come.
      marks: [{ label: 'editor ready', selector: '.graphiql-query-editor .view-lines' }],
    },
  ];

  // `BENCH_PAGES=company,sign` measures only the pages whose names hold one of the words (and the floor).
  const only = process.env.BENCH_PAGES?.split(',').filter((word) => word !== '');
  if (only !== undefined) {
    pages.splice(
      1,
      pages.length,
      ...pages.slice(1).filter((page) => only.some((word) => page.name.includes(word))),
    );
  }

  // Rounds over all pages in turn, so that the machine's drift touches every page alike.
  const results = new Map<string, Measurement[]>(pages.map((page) => [page.name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const page of pages) {
      const measured = await measure(
        browser,
        page.url,
        page.signedIn === 'console'
          ? consoleSession.storageState
          : page.signedIn
            ? session.storageState
            : undefined,
        page.marks,
      );
      results.get(page.name)?.push(measured);
      const how = measured.drawn ? ', drawn by the server' : '';
      process.stderr.write(
        `run ${String(run + 1)}: ${page.name}: LCP ${measured.lcpMs.toFixed(0)} ms${how}\n`,
      );
    }
  }

  const floorLcp = median(
    (results.get(pages[0]?.name ?? '') ?? []).map((m) => m.lcpMs).filter(Number.isFinite),
  );
  const rows: string[][] = [];
  let met = 0;
  let targets = 0;
  for (const page of pages) {
    const runs = results.get(page.name) ?? [];
    // A load that painted nothing within the wait counts as no measurement, shown as "–".
    const lcp = median(runs.map((m) => m.lcpMs).filter(Number.isFinite));
    const js = median(runs.map((m) => m.jsBytes));
    const css = median(runs.map((m) => m.cssBytes));
    const isFloor = page === pages[0];
    const checks = isFloor
      ? []
      : [
          lcp / 1000 <= page.lcpTarget,
          ...(page.bytesTargets ? [js / 1024 <= TARGETS.jsKiB, css / 1024 <= TARGETS.cssKiB] : []),
        ];
    targets += checks.length;
    met += checks.filter(Boolean).length;
    rows.push([
      page.name,
      runs.map((m) => (Number.isFinite(m.lcpMs) ? (m.lcpMs / 1000).toFixed(2) : '–')).join(', '),
      (lcp / 1000).toFixed(2),
      isFloor ? '' : `${(lcp / floorLcp).toFixed(2)}x`,
      kib(js),
      kib(css),
      isFloor
        ? ''
        : `≤ ${String(page.lcpTarget)} s${page.bytesTargets ? `, ≤ ${String(TARGETS.jsKiB)} / ${String(TARGETS.cssKiB)} KiB` : ''}`,
      isFloor ? '' : verdict(checks.every(Boolean)),
    ]);
  }
  console.log(
    `\nPages on a phone (${String((PHONE.downloadBytesPerSecond * 8) / 1024 / 1024)} Mbps, ${String(PHONE.latencyMs)} ms, CPU ${String(PHONE.cpuSlowdown)}x slower), medians of ${String(RUNS)} loads, cache empty; JS and CSS as transferred (compressed, headers included):`,
  );
  printMarkdownTable(
    ['page', 'LCP runs (s)', 'LCP (s)', 'to floor', 'JS (KiB)', 'CSS (KiB)', 'target', 'verdict'],
    rows,
  );
  console.log(`\n${String(met)} of ${String(targets)} targets met.`);
  // What LCP does not tell of a page that shows its words before it can be used (a transaction's events'
  // buttons, GraphiQL's editor) or draws after them (the workflow): when it does.
  for (const page of pages) {
    for (const { label, selector } of page.marks ?? []) {
      const times = (results.get(page.name) ?? []).map((m) => m.markMs[label] ?? Number.NaN);
      const seconds = times.map((ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '–')).join(', ');
      const middle = median(times.filter(Number.isFinite));
      console.log(`${page.name}: ${label} (${selector}) after ${(middle / 1000).toFixed(2)} s (${seconds}).`);
    }
  }
} finally {
  await browser?.close();
  await floor?.stop();
  await portico?.stop();
  await rm(dataDir, { recursive: true, force: true });
}
