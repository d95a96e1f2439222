import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { DESKTOP, listenForBrowser, PHONE, useChromium } from '../support/browser/browser.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { organizationStory } from '../support/data/stories.ts';
import { testTls } from '../support/peers/tls-listener.ts';
import { testDatabaseAndFiles } from '../support/data/transactions.ts';

const HEADERS_EDITOR = '.monaco-editor[data-uri$="-request-headers.json"]';
const RESULT = 'section[aria-label="Result Window"]';
const TABS = '[id^="graphiql-session-tab-"]';

describe('GraphiQL at /graphiql in Chromium, served by Portico over HTTPS', () => {
  const chromium = useChromium('graphiql');
  /** The Transactions service over HTTPS, and an organization with a key and nothing else: the page reads the viewer. */
  const world = madeBeforeAll('the service', async (closeAfterAll) => {
    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    const organization = await organizationStory(db, files, { transactions: [] });
    const app = await buildTransactionsApp({ db, files, environment: 'staging', tls: await testTls() });
    return { organization, origin: await listenForBrowser(app, closeAfterAll) };
  });

  /** A page in a fresh browser context (its own localStorage) on Portico's /graphiql. */
  async function visit(viewport: { width: number; height: number }): Promise<Page> {
    const page = await chromium.newPage(world.origin, { viewport });
    await page.goto(`${world.origin}/graphiql`);
    await ready(page);
    return page;
  }

  /** Waits until Monaco has drawn the operation (the default one mentions `viewer`). */
  async function ready(page: Page): Promise<void> {
    await page.locator('.graphiql-query-editor .view-lines').filter({ hasText: 'viewer' }).waitFor();
  }

  /**
   * The text an editor shows, line after line: Monaco places its line elements by their `top` offset, in no
   * particular document order, and draws spaces as no-break spaces.
   */
  async function editorText(page: Page, editor: string): Promise<string> {
    const lines: { top: number; text: string }[] = [];
    for (const line of await page.locator(`${editor} .view-line`).all()) {
      const style = (await line.getAttribute('style')) ?? '';
      lines.push({
        top: Number(/top:\s*(-?\d+)/.exec(style)?.[1] ?? 0),
        text: (await line.textContent()) ?? '',
      });
    }
    return lines
      .sort((a, b) => a.top - b.top)
      .map((line) => line.text)
      .join('')
      .replaceAll('\u00a0', ' ');
  }

  /** Pastes the key over the placeholder YOUR_API_KEY, as the page's instructions say. */
  async function pasteApiKey(page: Page, key: string): Promise<void> {
    await page.locator(`${HEADERS_EDITOR} .view-line`, { hasText: 'YOUR_API_KEY' }).click();
    // To the end of the line, back over the closing quote, then select the word to the left.
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Control+Shift+ArrowLeft');
    await page.keyboard.insertText(key);
  }

  async function runAndWaitForViewer(page: Page): Promise<void> {
    await page.locator('button.graphiql-execute-button').click();
    await expect.poll(() => editorText(page, RESULT)).toContain('"name": "Test Capital"');
  }

  /**
   * Monaco's workers came from Portico (that nothing was asked of any other origin and the CSP refused nothing,
   * the Chromium fixture checks of every page). Monaco starts its GraphQL worker when it first needs it, which on
   * a busy machine can be after the answer is on screen: the request is awaited, not expected at once.
   */
  async function expectSelfContained(page: Page): Promise<void> {
    const requested = () =>
      chromium.requested(page).some((url) => /\/graphiql\/assets\/graphql\.worker-[\w-]+\.js$/.test(url));
    await expect.poll(requested, { timeout: 10_000 }).toBe(true);
  }

  it('runs the default query with the key pasted into the headers editor, and keeps the key across reloads', async () => {
    const page = await visit(DESKTOP);
    expect(await editorText(page, HEADERS_EDITOR)).toBe('{  "Authorization": "Bearer YOUR_API_KEY"}');

    await pasteApiKey(page, world.organization.apiKey);
    expect(await editorText(page, HEADERS_EDITOR)).toBe(
      `{  "Authorization": "Bearer ${world.organization.apiKey}"}`,
    );
    // GraphiQL writes the headers and its tabs to localStorage about half a second after the last change (and
    // a run started before that would write the tabs it started with when it ends).
    for (const key of ['graphiql:headers', 'graphiql:tabState']) {
      await expect
        .poll(() => page.evaluate(`localStorage.getItem('${key}')`), { message: key })
        .toContain(world.organization.apiKey);
    }
    await runAndWaitForViewer(page);
    expect(await editorText(page, RESULT)).toContain(`"id": "${world.organization.organizationId}"`);
    await chromium.screenshot(page, 'desktop', { accessibility: false });

    for (let reload = 1; reload <= 2; reload += 1) {
      await page.reload();
      await ready(page);
      expect(await editorText(page, HEADERS_EDITOR), `reload ${reload}`).toContain(world.organization.apiKey);
      expect(await page.locator(TABS).count(), `reload ${reload}`).toBe(1);
    }
    await runAndWaitForViewer(page);

    await expectSelfContained(page);
    await page.context().close();
  });

  it('shows the operation as text at once, while the editor loads, and the editor in its place once ready', async () => {
    const page = await chromium.newPage(world.origin, { viewport: DESKTOP });
    // GraphiQL's module held back until the operation's text has been seen.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/graphiql\/assets\/app-[\w-]+\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(`${world.origin}/graphiql`);
    const loading = page.locator('#graphiql-loading');
    await expect.poll(() => loading.getByRole('status').textContent()).toBe('Loading the editor…');
    expect(await loading.getByLabel('Operation').textContent()).toContain('query Viewer {');
    await chromium.screenshot(page, 'loading');
    release();
    await ready(page);
    await expect.poll(() => loading.count()).toBe(0);
    await page.context().close();
  });

  it('says so when the editor cannot load, and leaves the operation readable', async () => {
    const page = await chromium.newPage(world.origin, { viewport: DESKTOP });
    await page.route(/\/graphiql\/assets\/app-[\w-]+\.js$/, (route) => route.abort());
    await page.goto(`${world.origin}/graphiql`);
    const loading = page.locator('#graphiql-loading');
    await expect
      .poll(() => loading.getByRole('status').textContent())
      .toBe('The editor could not load. Reload the page to try again.');
    expect(await loading.getByLabel('Operation').textContent()).toContain('query Viewer {');
    await page.context().close();
  });

  it('opens on the same single tab after a reload when nothing was edited', async () => {
    const page = await visit(DESKTOP);
    await page.reload();
    await ready(page);
    expect(await page.locator(TABS).count()).toBe(1);
    expect(await editorText(page, HEADERS_EDITOR)).toContain('YOUR_API_KEY');
    await page.context().close();
  });

  it('shows the schema in the Docs pane once the key is pasted: the root types, then Query and its fields', async () => {
    const page = await visit(DESKTOP);
    await pasteApiKey(page, world.organization.apiKey);
    await page.locator('button[aria-label="Show Documentation Explorer"]').click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByText('Root Types').waitFor();
    // The schema's own description, then `query: Query` and `mutation: Mutation`.
    await docs.getByText('The Transactions API', { exact: false }).waitFor();
    expect(await docs.locator('.graphiql-doc-explorer-root-type').allTextContents()).toEqual([
      'query',
      'mutation',
    ]);

    await docs.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).click();
    await docs.locator('.graphiql-doc-explorer-title', { hasText: /^Query$/ }).waitFor();
    const fields = await docs.locator('.graphiql-doc-explorer-field-name').allTextContents();
    expect(fields).toEqual(expect.arrayContaining(['viewer', 'transaction', 'template', 'entity']));
    // The refusal of the schema fetch made before the key was pasted no longer shows as the response.
    expect(await editorText(page, RESULT)).not.toContain('UNAUTHENTICATED');
    await chromium.screenshot(page, 'docs-desktop', { accessibility: false });

    await expectSelfContained(page);
    await page.context().close();
  });

  it('stacks the response under the editors on a phone-sized screen', async () => {
    const page = await visit(PHONE);
    await pasteApiKey(page, world.organization.apiKey);
    // The answer wraps on a phone (the wrapped parts of an id are indented), but the name fits.
    await runAndWaitForViewer(page);
    const editors = await page.locator('.graphiql-editors').boundingBox();
    const response = await page.locator(RESULT).boundingBox();
    if (!editors || !response) throw new Error('the editors and the response are on screen');
    expect(response.y).toBeGreaterThanOrEqual(editors.y + editors.height);
    expect(response.width).toBeGreaterThan(PHONE.width / 2);
    await chromium.screenshot(page, 'phone', { accessibility: false });

    await expectSelfContained(page);
    await page.context().close();
  });
});
