// The signed-in pages the server draws (src/http/drawing/): a console transaction's page comes with its words in
// the HTML, drawn by the same app the browser runs (the built front end's drawing module, in a worker thread), on
// the answers of the page's own routes read for the person who asked; anyone else gets the page undrawn.
import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readerOf } from '../../../src/http/drawing/drawn-pages.ts';
import { createPageDrawer } from '../../../src/http/drawing/page-drawing.ts';
import { withDrawing } from '../../../src/http/web-pages.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import type { TransactionDetail } from '../../../src/transactions/console/contract.ts';
import {
  api,
  browser,
  organizationWith,
  signedIn,
  transactionWithTeam,
  TRANSACTIONS_URL,
} from '../../support/data/console-api.ts';
import { buildPortfolioApp } from '../../../src/portfolio/app.ts';
import {
  createDashboardPerson,
  instanceApi,
  PORTFOLIO_URL,
  signedInBrowser,
  smtpWithMailer,
  type Browser,
} from '../../support/data/dashboard.ts';
import { createTestPortfolio } from '../../support/data/portfolio.ts';
import { createTestDatabase } from '../../support/db/database.ts';
import { createTestFileStore } from '../../support/data/transactions.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('drawn pages', async (closeAfterAll) => {
  const testDb = await createTestDatabase();
  closeAfterAll(() => testDb.close());
  const store = await createTestFileStore();
  closeAfterAll(store.cleanup);
  const { mailer } = await smtpWithMailer(closeAfterAll);
  // However slow the machine, the page waits for its drawing: these tests are about what is drawn.
  const pageDrawer = createPageDrawer({ waitMs: 60_000 });
  closeAfterAll(() => pageDrawer.close());
  const app = await buildTransactionsApp({
    db: testDb.db,
    files: store.files,
    environment: 'staging',
    trustProxy: true,
    console: { mailer, transactionsUrl: () => TRANSACTIONS_URL, pageDrawer },
  });
  closeAfterAll(() => app.close());
  return { db: testDb.db, files: store.files, app };
});

/** The answers a drawn page carries for its first reads, by address; undefined when the page was not drawn. */
function drawnAnswers(html: string): Record<string, unknown> | undefined {
  const sent = /<script type="application\/json" id="console-answers">([\s\S]*?)<\/script>/.exec(html)?.[1];
  return sent === undefined ? undefined : (JSON.parse(sent) as Record<string, unknown>);
}

/** A transaction's page as `page` gets it: its HTML, and whether it came drawn. */
async function transactionPage(page: Browser, id: string, cookie?: string) {
  const response = await page.request('GET', `/console/transactions/${id}`, undefined, {
    headers: cookie === undefined ? {} : { cookie },
  });
  expect(response.status).toBe(200);
  return { html: response.text, drawn: response.text.includes('<div id="console" data-drawn>'), response };
}

describe('pages the server draws', () => {
  it("draws a transaction's page for a person of its organization: its header in the HTML, the answers it was drawn with, its style sheets linked, and no cache but theirs", async () => {
    const { story, people } = await transactionWithTeam(world, 'sent');
    const viewer = await signedIn(world, people.viewer);
    const { html, drawn, response } = await transactionPage(viewer, story.transactionId);
    expect(drawn).toBe(true);
    expect(response.headers['cache-control']).toBe('private, no-cache');
    expect(response.headers.vary).toBe('cookie, accept-encoding');
    // The header's words, as the app writes them: the template's title, the sender.
    const detail = (await viewer.get(api(`/transactions/${story.transactionId}`))).body as {
      transaction: TransactionDetail;
    };
    expect(html).toContain(`>${detail.transaction.sender.name}<`);
    expect(html).toContain('Jump to');
    // The answers are the routes' own, for the person who asked, by the addresses the page reads them at.
    const answers = drawnAnswers(html);
    const reads = ['', '/workflow', '/review'].map((part) =>
      api(`/transactions/${story.transactionId}${part}`),
    );
    expect(Object.keys(answers ?? {}).sort()).toEqual([...reads].sort());
    for (const url of reads) expect(answers?.[url]).toEqual((await viewer.get(url)).body);
    // Not the session's answer: its CSRF token stays out of the HTML.
    expect(html).not.toContain(viewer.csrfToken ?? 'no token');
    // The page's own style sheet is linked from the head, so the drawn page does not move when it comes.
    const head = html.slice(0, html.indexOf('</head>'));
    expect(head).toMatch(
      /<link rel="stylesheet" crossorigin href="\/console\/assets\/transaction-[\w-]+\.css">/,
    );
  });

  it('sends the page undrawn to someone not signed in, to a person of another organization, and for a transaction that does not exist', async () => {
    const { story, people } = await transactionWithTeam(world, 'sent');
    const detail = (
      await (await signedIn(world, people.viewer)).get(api(`/transactions/${story.transactionId}`))
    ).body as { transaction: TransactionDetail };
    const senderName = detail.transaction.sender.name;

    const stranger = await transactionPage(browser(world), story.transactionId);
    expect(stranger.drawn).toBe(false);
    expect(stranger.response.headers['cache-control']).toBe('no-cache');

    const elsewhere = await organizationWith(world, ['admin'], 'drawn');
    const outsider = await signedIn(world, elsewhere.people.admin);
    const theirs = await transactionPage(outsider, story.transactionId);
    expect(theirs.drawn).toBe(false);
    expect(theirs.html).not.toContain(senderName);
    expect(drawnAnswers(theirs.html)).toBeUndefined();

    const nowhere = await transactionPage(await signedIn(world, people.admin), randomUUID());
    expect(nowhere.drawn).toBe(false);
  });

  it('sends a drawn page compressed as the browser accepts it: brotli, else gzip, else as it is', async () => {
    const { story, people } = await transactionWithTeam(world, 'sent');
    const viewer = await signedIn(world, people.viewer);
    const url = `/console/transactions/${story.transactionId}`;
    const load = (acceptEncoding: string) =>
      viewer.request('GET', url, undefined, { headers: { 'accept-encoding': acceptEncoding } });
    const plain = await load('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toContain('data-drawn');
    const html = plain.text;
    const br = await load('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('cookie, accept-encoding');
    const brotli = br.bytes ?? Buffer.alloc(0);
    expect(brotliDecompressSync(brotli).toString('utf8')).toBe(html);
    expect(brotli.length).toBeLessThan(html.length / 3);
    const gzipped = await load('br;q=0, gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.bytes ?? Buffer.alloc(0)).toString('utf8')).toBe(html);
  });

  it("writes the page's times in the language and time zone the reader's browser told, and in UTC, in English, without it", async () => {
    const { story, people } = await transactionWithTeam(world, 'sent');
    const admin = await signedIn(world, people.admin);
    const { transaction } = (await admin.get(api(`/transactions/${story.transactionId}`))).body as {
      transaction: TransactionDetail;
    };
    const written = (locale: string, timeZone: string) =>
      new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone,
      }).format(new Date(transaction.createdAt));
    const reader = `portico_reader=${encodeURIComponent('locale=de-DE&zone=Asia/Tokyo&scheme=dark')}`;
    const told = await transactionPage(admin, story.transactionId, reader);
    expect(told.html).toContain(written('de-DE', 'Asia/Tokyo'));
    expect(told.html).toContain('class="radix-themes dark"');
    const untold = await transactionPage(admin, story.transactionId);
    expect(untold.html).toContain(written('en', 'UTC'));
    expect(untold.html).toContain('class="radix-themes light"');
  });
});

describe("the dashboard's pages the server draws", () => {
  const portfolio = madeBeforeAll('drawn dashboard pages', async (closeAfterAll) => {
    const testDb = await createTestDatabase();
    closeAfterAll(() => testDb.close());
    const { mailer } = await smtpWithMailer(closeAfterAll);
    const pageDrawer = createPageDrawer({ waitMs: 60_000 });
    closeAfterAll(() => pageDrawer.close());
    const app = await buildPortfolioApp({
      db: testDb.db,
      trustProxy: true,
      apiKeyCacheMs: 0,
      dashboard: { mail: { mailer, portfolioUrl: PORTFOLIO_URL }, pageDrawer },
    });
    closeAfterAll(() => app.close());
    const ours = await createTestPortfolio(testDb.db, { companies: 3, funds: 2 });
    const theirs = await createTestPortfolio(testDb.db, { companies: 1, funds: 1 });
    const person = (instanceId: string) => createDashboardPerson(testDb.db, { instanceId, role: 'member' });
    return {
      app,
      ours,
      theirs,
      ourViewer: await person(ours.instanceId),
      theirViewer: await person(theirs.instanceId),
    };
  });

  it("draws a company's page for a person of its instance, with the company's answer, and not for a person of another instance", async () => {
    const { app, ours, ourViewer, theirViewer } = portfolio;
    const address = `/dashboard/${ours.slug}/companies/${ours.companyId}`;
    const viewer = await signedInBrowser(app, ourViewer);
    const page = await viewer.get(address);
    expect(page.text).toContain('<div id="dashboard" data-drawn>');
    const read = instanceApi(ours.slug, `/companies/${ours.companyId}`);
    const company = (await viewer.get(read)).body as { company: { legalName: string } };
    expect(page.text).toContain(`>${company.company.legalName}</h1>`);
    const sent = /<script type="application\/json" id="dashboard-answers">([\s\S]*?)<\/script>/.exec(
      page.text,
    )?.[1];
    expect(JSON.parse(sent ?? '{}')).toEqual({ [read]: company });
    // A chart's room is drawn, not its plot: the browser draws the plot after the first paint.
    expect(page.text).toContain('class="trend-chart-plot"');
    expect(page.text).not.toContain('class="trend-plot"');

    const outsider = await (await signedInBrowser(app, theirViewer)).get(address);
    expect(outsider.text).not.toContain('data-drawn');
    expect(outsider.text).not.toContain(company.company.legalName);
  });
});

describe('a surface drawn for the first time since the thread started', () => {
  it("waits for its first page's drawing longer than for the pages after it, so that the first is drawn too", async () => {
    const closers: (() => unknown)[] = [];
    const testDb = await createTestDatabase();
    const { mailer } = await smtpWithMailer((close) => closers.push(close));
    // No patience at all for a warm thread: only the first page's own patience can let it be drawn.
    const pageDrawer = createPageDrawer({ waitMs: 0, firstWaitMs: 60_000 });
    const app = await buildPortfolioApp({
      db: testDb.db,
      trustProxy: true,
      apiKeyCacheMs: 0,
      dashboard: { mail: { mailer, portfolioUrl: PORTFOLIO_URL }, pageDrawer },
    });
    try {
      const ours = await createTestPortfolio(testDb.db, { companies: 1, funds: 1 });
      const viewer = await signedInBrowser(
        app,
        await createDashboardPerson(testDb.db, { instanceId: ours.instanceId, role: 'member' }),
      );
      const page = await viewer.get(`/dashboard/${ours.slug}/companies/${ours.companyId}`);
      expect(page.text).toContain('<div id="dashboard" data-drawn>');
    } finally {
      await app.close();
      await pageDrawer.close();
      for (const close of closers) await close();
      await testDb.close();
    }
  });
});

describe('the reader cookie', () => {
  it('takes a language, time zone and appearance that check out, and leaves out any that does not', () => {
    expect(
      readerOf({ portico_reader: 'locale=fr-CA&zone=America%2FToronto&scheme=dark' }, 'de-DE,de;q=0.9'),
    ).toEqual({ locale: 'fr-CA', timeZone: 'America/Toronto', scheme: 'dark' });
    expect(
      readerOf({ portico_reader: 'locale=<script>&zone=Mars%2FOlympus&scheme=purple' }, 'de-DE,de;q=0.9'),
    ).toEqual({ locale: 'de-DE', timeZone: undefined, scheme: 'light' });
    expect(readerOf({ portico_reader: `locale=${'x'.repeat(5000)}` }, undefined)).toEqual({
      locale: 'en',
      timeZone: undefined,
      scheme: 'light',
    });
  });
});

describe('a drawn page', () => {
  it('carries answers whose text cannot end their script element', () => {
    const page =
      '<html><head><script type="module" async src="/console/assets/index.js"></script></head><body><div id="console"><noscript>JS</noscript></div></body></html>';
    const hostile = { '/console/api/transactions/x': { name: '</script><script>alert(1)</script><!--' } };
    const html = withDrawing(page, 'console', { html: '<p>drawn</p>', answers: hostile, head: [] });
    expect(html).not.toContain('<script>alert(1)');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(drawnAnswers(html)).toEqual(hostile);
    expect(html).toContain('<div id="console" data-drawn><p>drawn</p></div>');
    expect(html).not.toContain('<noscript>');
  });
});
