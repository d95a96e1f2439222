/// <reference lib="dom" />
// (page.evaluate's callbacks run in the page)
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as PorticoClient from '../../clients/typescript/src/index.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import {
  launchChromium,
  listenForBrowser,
  recordedContext,
  type RecordedContext,
} from '../support/browser/browser.ts';
import { ROOT } from '../support/cli.ts';
import { createTestPortfolio } from '../support/data/portfolio.ts';
import { createTransactionsTenant } from '../support/data/tenants.ts';
import { testDatabaseAndFiles } from '../support/data/transactions.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { testTls } from '../support/peers/tls-listener.ts';

// An integrator's browser app using `@portico/client`: a page of its own origin, which both services allow
// (PORTICO_CORS_ORIGINS), loads the client bundled for browsers by esbuild and calls both APIs from Chromium.

declare global {
  interface Window {
    portico: typeof PorticoClient;
  }
}

const SECRET = `whsec_${Buffer.from('a browser app verifies webhooks!').toString('base64')}`;

const world = madeBeforeAll(
  'an app of another origin, and both services allowing it',
  async (closeAfterAll) => {
    const tls = await testTls();
    const bundle = await build({
      stdin: {
        contents: `import * as portico from '@portico/client'; window.portico = portico;`,
        resolveDir: ROOT,
      },
      alias: { '@portico/client': join(ROOT, 'clients/typescript/src/index.ts') },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
    });
    const script = bundle.outputFiles[0]?.text ?? '';
    const html =
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>An integrator’s app</title>' +
      '<script type="module" src="/client.js"></script></head><body><main><h1>Portfolio</h1></main></body></html>';
    const appServer = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      const isScript = request.url === '/client.js';
      response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8' });
      response.end(isScript ? script : html);
    });
    await new Promise<void>((resolve) => {
      appServer.listen(0, '127.0.0.1', resolve);
    });
    closeAfterAll(
      () =>
        new Promise<void>((resolve) => {
          appServer.close(() => {
            resolve();
          });
        }),
    );
    const appOrigin = `https://localhost:${String((appServer.address() as AddressInfo).port)}`;

    const { db, files } = await testDatabaseAndFiles(closeAfterAll);
    const tenant = await createTransactionsTenant(db, files);
    const portfolio = await createTestPortfolio(db, { companies: 7 });
    const corsOrigins = [appOrigin];
    const transactions = await buildTransactionsApp({ db, files, environment: 'staging', tls, corsOrigins });
    const portfolioApp = await buildPortfolioApp({ db, tls, corsOrigins });
    return {
      appOrigin,
      tenant,
      portfolio,
      transactionsUrl: `${await listenForBrowser(transactions, closeAfterAll)}/beta`,
      portfolioUrl: `${await listenForBrowser(portfolioApp, closeAfterAll)}/v1/external`,
    };
  },
);

let browser: Browser;
let browsing: RecordedContext;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium(null);
  browsing = await recordedContext(browser);
  page = await browsing.newPage();
  await page.goto(world.appOrigin);
  await page.waitForFunction(() => 'portico' in window);
});

afterAll(async () => {
  expect(browsing.problems).toEqual([]);
  await browser.close();
});

describe('the TypeScript client in a browser', () => {
  it('reads a transaction, creates one with an Idempotency-Key and walks every Portfolio page', async () => {
    const { tenant, portfolio, transactionsUrl, portfolioUrl } = world;
    const seen = await page.evaluate(
      async (given) => {
        const { TransactionsClient, PortfolioClient } = window.portico;
        const transactions = new TransactionsClient({ baseUrl: given.transactionsUrl, apiKey: given.key });
        const transaction = await transactions.transaction(given.transactionId);
        const created = await transactions.createTransaction({
          templateId: given.templateId,
          senderEntityId: given.senderEntityId,
          noticeName: 'Ada Lovelace',
          noticeEmail: 'ada@example.com',
        });
        const portfolioClient = new PortfolioClient({
          baseUrl: given.portfolioUrl,
          apiKey: given.portfolioKey,
        });
        const names: string[] = [];
        for await (const company of portfolioClient.companies.list({ limit: 2 }))
          names.push(company.legalName);
        return {
          state: transaction?.state,
          recipients: transaction?.transactionRecipients.length,
          created: (await transactions.transaction(created.transactionId))?.id,
          names,
        };
      },
      {
        transactionsUrl,
        portfolioUrl,
        key: tenant.apiKey,
        portfolioKey: portfolio.apiKey,
        transactionId: tenant.ids.transaction,
        templateId: tenant.ids.template,
        senderEntityId: tenant.ids.senderEntity,
      },
    );
    expect(seen.state).toBe('completed');
    expect(seen.recipients).toBeGreaterThan(0);
    expect(seen.created).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.names).toEqual(portfolio.legalNames);
  });

  it('verifies a Portico webhook and refuses a tampered one', async () => {
    const id = 'msg_0353a87b9cc845cfa81e63c440d5931d';
    const now = new Date();
    const body = JSON.stringify({
      id,
      type: 'transaction.voided',
      timestamp: now.toISOString(),
      data: { transactionId: world.tenant.ids.transaction, state: 'voided', reason: 'Closed.' },
    });
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign(id, now, body),
    };
    const outcomes = await page.evaluate(
      ({ body, headers, secret }) => {
        const { verifyWebhook } = window.portico;
        const outcome = (text: string) => {
          try {
            return verifyWebhook(new TextEncoder().encode(text), new Headers(headers), secret).type;
          } catch (error) {
            return (error as Error).name;
          }
        };
        return [outcome(body), outcome(body.replace('Closed.', 'Closed!'))];
      },
      { body, headers, secret: SECRET },
    );
    expect(outcomes).toEqual(['transaction.voided', 'WebhookSignatureError']);
  });

  it('refuses a key of the other service before anything is sent', async () => {
    const before = browsing.requested.length;
    const refusal = await page.evaluate(
      ({ transactionsUrl, portfolioKey }) => {
        try {
          new window.portico.TransactionsClient({ baseUrl: transactionsUrl, apiKey: portfolioKey });
          return 'sent';
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      },
      { transactionsUrl: world.transactionsUrl, portfolioKey: world.portfolio.apiKey },
    );
    expect(refusal).toMatch(/^PorticoKeyError: This is a Portfolio key \(pfk_…\)/);
    expect(refusal).not.toContain(world.portfolio.apiKey);
    expect(browsing.requested.length).toBe(before);
  });
});
