import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { DASHBOARD_API_PATH } from '../../src/portfolio/dashboard/dashboard.ts';
import { startProcessMetrics, type ProcessMetrics } from '../../src/process-metrics.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import { startConfiguredWebhookWorker } from '../../src/worker.ts';
import { Browser, PASSWORD, stubDashboardBuild } from '../support/data/dashboard.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { createPortfolioInstance, type PortfolioInstanceFixture } from '../support/data/portfolio.ts';
import { organizationStory, type OrganizationStory } from '../support/data/stories.ts';
import { graphql, REFERENCE_QUERY, testDatabaseAndFiles } from '../support/data/transactions.ts';
import { startWebhookReceiver } from '../support/peers/webhook-receiver.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
const silent = pino({ level: 'silent' });

interface World {
  observed: ProcessMetrics;
  transactions: FastifyInstance;
  portfolio: FastifyInstance;
  organization: OrganizationStory;
  instance: PortfolioInstanceFixture;
  db: Awaited<ReturnType<typeof testDatabaseAndFiles>>['db'];
}

/**
 * One process's metrics, as `serve` makes them (a port of their own, the token on the service ports), and both
 * services' apps reporting to them; the Portfolio app with its dashboard and a per-address rate limit of 3.
 */
const world = madeBeforeAll('the metrics world', async (closeAfterAll): Promise<World> => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const observed = await startProcessMetrics(
    { metricsPort: 0, metricsHost: '127.0.0.1', metricsToken: TOKEN },
    db,
  );
  if (!observed) throw new Error('metrics were asked for');
  closeAfterAll(() => observed.close());
  const settings = { metrics: observed.metrics, token: TOKEN };
  const mailDir = await mkdtemp(join(tmpdir(), 'portico-metrics-mail-'));
  closeAfterAll(() => rm(mailDir, { recursive: true, force: true }));
  const mailer = observed.metered(
    createMailer({ mailFrom: 'Portico <no-reply@test>', dataDir: mailDir }, silent),
  );
  const web = await stubDashboardBuild();
  closeAfterAll(web.cleanup);
  const transactions = await buildTransactionsApp({ db, files, environment: 'staging', metrics: settings });
  closeAfterAll(() => transactions.close());
  const portfolio = await buildPortfolioApp({
    db,
    trustProxy: true,
    metrics: settings,
    rateLimit: { perKey: 1000, perAddress: 3 },
    dashboard: { mail: { mailer, portfolioUrl: 'https://portfolio.test' }, distDir: web.distDir },
  });
  closeAfterAll(() => portfolio.close());
  return {
    observed,
    transactions,
    portfolio,
    // One transaction, just created: a cheap story (nothing signed), with a key and an id to read.
    organization: await organizationStory(db, files, { transactions: ['created'] }),
    instance: await createPortfolioInstance(db),
    db,
  };
});

/** What Prometheus would read from the metrics port. */
async function scrape(): Promise<{ status: number; type: string | null; text: string }> {
  const url = world.observed.url;
  if (url === undefined) throw new Error('no metrics port');
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one series (name and labels as they appear in the text), or undefined when it is absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Waits until `condition` holds, looking again every 20 ms for up to 10 s. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('metrics on a port of their own', () => {
  it('serve Prometheus text with each answer by route template, status and GraphQL operation', async () => {
    const { portfolio, transactions, instance, organization } = world;
    const unknownCompany = randomUUID();
    const company = await portfolio.inject({
      url: `/v1/external/company/${unknownCompany}/updates`,
      headers: { authorization: instance.apiKey },
    });
    const named = await graphql(
      transactions,
      organization.apiKey,
      `query Reference${REFERENCE_QUERY.slice(6)}`,
      {
        id: organization.transactionId,
      },
    );
    expect(named.status).toBe(200);
    const unnamed = await graphql(transactions, organization.apiKey, REFERENCE_QUERY, {
      id: organization.transactionId,
    });
    expect(unnamed.status).toBe(200);
    // Paths that match no route, each different: one series for all of them, none named after a path.
    for (const path of ['/nothing', `/nothing/${randomUUID()}`, `/wp-admin/${randomUUID()}.php`]) {
      expect((await portfolio.inject({ url: path, remoteAddress: '198.51.100.1' })).statusCode).toBe(404);
    }

    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const count = (labels: string) => valueOf(text, `portico_http_request_duration_seconds_count{${labels}}`);
    expect(
      count(
        `service="portfolio",method="GET",route="/v1/external/company/:id/updates",status="${company.statusCode}",operation=""`,
      ),
    ).toBe(1);
    expect(
      count('service="transactions",method="POST",route="/beta",status="200",operation="Reference"'),
    ).toBe(1);
    expect(
      count('service="transactions",method="POST",route="/beta",status="200",operation="anonymous"'),
    ).toBe(1);
    expect(count('service="portfolio",method="GET",route="unmatched",status="404",operation=""')).toBe(3);
    expect(text).not.toContain(unknownCompany);
    expect(text).not.toContain('/nothing');
    expect(text).not.toContain('wp-admin');

    // Process, database and queue series are there too.
    expect(valueOf(text, 'portico_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'portico_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'portico_db_pool_waiting_queries')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'portico_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'portico_webhook_overdue_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'portico_mail_queue_messages')).toBeGreaterThanOrEqual(0);

    expect((await fetch(world.observed.url?.replace(/metrics$/, 'other') ?? '')).status).toBe(404);
  });

  it('report only the first 100 GraphQL operation names, and the rest as other', () => {
    const { metrics } = world.observed;
    for (let n = 0; n < 150; n += 1) metrics.operationLabel(`Spam${String(n)}`);
    expect(metrics.operationLabel('Spam149')).toBe('other');
    expect(metrics.operationLabel('Reference')).toBe('Reference');
    expect(metrics.operationLabel('not a name!')).toBe('other');
  });
});

describe('GET /metrics on the service ports', () => {
  it('answers with the token and reads like a path that does not exist without it or with another', async () => {
    const { transactions } = world;
    const nowhere = await transactions.inject({ url: '/nowhere', remoteAddress: '198.51.100.2' });
    const asked = (authorization?: string) =>
      transactions.inject({
        url: '/metrics',
        remoteAddress: '198.51.100.2',
        headers: authorization === undefined ? {} : { authorization },
      });
    for (const refused of [await asked(), await asked(`Bearer ${TOKEN}x`), await asked(`Basic ${TOKEN}`)]) {
      expect(refused.statusCode).toBe(404);
      expect(refused.json().error.code).toBe(nowhere.json().error.code);
      expect(refused.body).not.toContain('portico_');
    }
    const answered = await asked(`Bearer ${TOKEN}`);
    expect(answered.statusCode).toBe(200);
    expect(answered.headers['content-type']).toMatch(/^text\/plain/);
    expect(answered.body).toContain('# TYPE portico_http_request_duration_seconds histogram');
  });

  it('is absent from an app given metrics without a token', async () => {
    const app = await buildPortfolioApp({ db: world.db, metrics: { metrics: world.observed.metrics } });
    try {
      const response = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('counters of what went wrong or was refused', () => {
  it('count a rate-limit refusal by service and bucket', async () => {
    const refusals = () =>
      world.observed.metrics.rateLimitRefusals.get().then((metric) => {
        const value = metric.values.find(
          (each) => each.labels.service === 'portfolio' && each.labels.bucket === 'address',
        );
        return value?.value ?? 0;
      });
    const before = await refusals();
    const statuses = [];
    for (let n = 0; n < 4; n += 1) {
      const response = await world.portfolio.inject({
        url: '/v1/external/openapi.json',
        remoteAddress: '203.0.113.9',
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await refusals()).toBe(before + 1);
  });

  it('count a failed sign-in of the dashboard', async () => {
    const failures = () =>
      world.observed.metrics.signInFailures.get().then((metric) => {
        const value = metric.values.find(
          (each) => each.labels.surface === 'dashboard' && each.labels.reason === 'credentials',
        );
        return value?.value ?? 0;
      });
    const before = await failures();
    const browser = new Browser(world.portfolio);
    const response = await browser.signIn({ email: 'nobody@example.com', password: PASSWORD });
    expect(response.status).toBe(401);
    expect(await failures()).toBe(before + 1);
    expect(browser.surface.apiPath).toBe(DASHBOARD_API_PATH);
  });

  it('count mail that the SMTP server does not take', async () => {
    const failed = () =>
      world.observed.metrics.mailMessages.get().then((metric) => {
        const value = metric.values.find((each) => each.labels.outcome === 'failed');
        return value?.value ?? 0;
      });
    const before = await failed();
    // Nothing listens on port 1 of loopback: the connection is refused at once.
    const mailer = world.observed.metered(
      createMailer(
        { smtpUrl: 'smtp://127.0.0.1:1', mailFrom: 'Portico <no-reply@test>', dataDir: tmpdir() },
        silent,
      ),
    );
    try {
      await expect(
        mailer.send({ to: 'ada@example.com', subject: 'Hello', text: 'Hello', html: '<p>Hello</p>' }),
      ).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      mailer.close();
    }
    expect(await failed()).toBe(before + 1);
  });

  it('count a webhook delivery by outcome, with its duration', async () => {
    const receiver = await startWebhookReceiver();
    const { organizationId, transactionId } = world.organization;
    await createEndpoint(world.db, {
      organizationId,
      url: receiver.url,
      eventTypes: ['transaction.completed'],
      allowInsecure: true,
    });
    // As a completion writes it; fanned out to the endpoint once a worker runs.
    await world.db.query(
      `insert into outbox_events (organization_id, type, transaction_id, payload)
       values ($1, 'transaction.completed', $2, '{}')`,
      [organizationId, transactionId],
    );
    const worker = startConfiguredWebhookWorker(
      world.db,
      { webhooksAllowInsecure: true, webhookTimeout: 5, webhookRetrySchedule: [1] },
      silent,
      world.observed.metrics,
    );
    try {
      await until(async () => {
        const text = await world.observed.metrics.text();
        return (valueOf(text, 'portico_webhook_attempts_total{outcome="delivered"}') ?? 0) >= 1;
      }, 'a delivered webhook to be counted');
      const text = await world.observed.metrics.text();
      expect(receiver.bodies.length).toBeGreaterThanOrEqual(1);
      expect(
        valueOf(text, 'portico_webhook_attempt_duration_seconds_count{outcome="delivered"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(text, 'portico_outbox_lag_seconds')).toBe(0);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
