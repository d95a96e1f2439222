import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database, PoolUse } from '../db/database.ts';
import type { Mailer } from '../mail/mailer.ts';
import { BoundHistogram } from './bound-histogram.ts';

/**
 * What Portico reports to Prometheus: one {@link Metrics} per process, made by {@link createMetrics} with a
 * registry of its own (never prom-client's global one), so that several apps made in one process (tests, the
 * benchmarks) each count their own. `serve` and `worker` make one when `PORTICO_METRICS_PORT` or
 * `PORTICO_METRICS_TOKEN` is set, and hand it to what they start: the apps (request series, rate limits, sign-in
 * failures, console streams, through `app.metrics`, see request-metrics.ts), the webhook worker, the mailer and
 * the database. Every series is named `portico_…` with its unit, and every label is bounded: route templates
 * (`/v1/external/companies/:id`), never paths or ids. docs/operations.md ("Metrics") lists them.
 */

/** Seconds: from a fast by-id read (about a millisecond) to the 30 s a whole request may take. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds a webhook endpoint takes to answer, up to the longest timeout (300 s). */
const WEBHOOK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60, 300];
/** Seconds to get a connection of the pool: nothing when one is idle, up to the 5 s it gives up after. */
const POOL_WAIT_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5];

/** How many distinct GraphQL operation names are reported; later ones are `other`. */
export const MOST_OPERATION_NAMES = 100;

/** What a webhook attempt came to: a 2xx, a failure to be tried again, or a failure for good. */
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed';

/** Values read when Prometheus scrapes, each with one cheap indexed query (see process-metrics.ts). */
export interface ScrapeReaders {
  /** Seconds since the oldest outbox event not yet fanned out to deliveries was written; 0 when none waits. */
  outboxLagSeconds: () => Promise<number>;
  /** Seconds the longest-waiting due webhook delivery has waited past its due time; 0 when none is due. */
  webhookOverdueSeconds: () => Promise<number>;
  /** Recipient mails due and not yet sent. */
  mailQueueMessages: () => Promise<number>;
}

/** One process's registry and the series its parts report to. */
export interface Metrics {
  readonly registry: Registry;
  /**
   * Every HTTP answer, by service, method, route template, status and GraphQL operation: observed through
   * observers bound once per label set (request-metrics.ts), as it is on the path of every answer.
   */
  readonly requestDuration: BoundHistogram<'service' | 'method' | 'route' | 'status' | 'operation'>;
  /**
   * GraphQL reads answered before Mercurius, by how: `direct` (one planned statement, direct-reads.ts) or
   * `compiled` (the query's graphql-jit code, compiled-reads.ts); Mercurius answered the rest of `/beta`'s.
   */
  readonly graphqlReads: Counter<'path'>;
  /** Requests refused by a rate limit, by service and by what they counted against. */
  readonly rateLimitRefusals: Counter<'service' | 'bucket'>;
  /** Sign-ins of people's pages refused, by surface and why. */
  readonly signInFailures: Counter<'surface' | 'reason'>;
  /** Open server-sent event streams of the organization console. */
  readonly consoleLiveConnections: Gauge;
  /** Webhook attempts by outcome, and how long each took. */
  readonly webhookAttempts: Counter<'outcome'>;
  readonly webhookAttemptDuration: Histogram<'outcome'>;
  /** Mail handed to the SMTP server or written to the mail folder, and mail that failed. */
  readonly mailMessages: Counter<'outcome'>;
  /**
   * The label a GraphQL operation name is reported under: the name itself among the first
   * {@link MOST_OPERATION_NAMES} distinct ones, `other` after them (and for anything not shaped like a name), so
   * that clients cannot grow the series without bound.
   */
  operationLabel(name: string): string;
  /** Reports the database's connections (a gauge read at scrape time) and how long getting one takes. */
  observeDatabase(db: Database): void;
  /** Reports values read from the database at scrape time. */
  readAtScrape(readers: ScrapeReaders): void;
  /** The registry in Prometheus' text format. */
  text(): Promise<string>;
  readonly contentType: string;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * A registry of its own with Portico's series and prom-client's default process metrics (CPU, memory, event-loop
 * delay, garbage collection), all prefixed `portico_`.
 *
 * @example
 * const metrics = createMetrics();
 * const app = await buildPortfolioApp({ db, metrics: { metrics } });
 * await metrics.text(); // "# HELP portico_http_request_duration_seconds …"
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'portico_' });

  const names = new Set<string>();
  const operationLabel = (name: string): string => {
    if (names.has(name)) return name;
    if (names.size >= MOST_OPERATION_NAMES || !GRAPHQL_NAME.test(name)) return 'other';
    names.add(name);
    return name;
  };

  const gaugeRead = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers,
      // A database that does not answer leaves the value out of this scrape rather than failing it whole.
      async collect() {
        try {
          this.set(await read());
        } catch {
          this.reset();
        }
      },
    });

  return {
    registry,
    requestDuration: new BoundHistogram({
      name: 'portico_http_request_duration_seconds',
      help: 'Time from a request to its answer, by service, method, route template, status and GraphQL operation',
      labelNames: ['service', 'method', 'route', 'status', 'operation'],
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    graphqlReads: new Counter({
      name: 'portico_graphql_reads_total',
      help: 'GraphQL reads answered before Mercurius, by path (direct: one planned statement; compiled: graphql-jit)',
      labelNames: ['path'],
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: 'portico_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate limit, by service and bucket (key, address, failed_authentication)',
      labelNames: ['service', 'bucket'],
      registers,
    }),
    signInFailures: new Counter({
      name: 'portico_sign_in_failures_total',
      help: "Refused sign-ins of people's pages, by surface and reason (credentials, limited)",
      labelNames: ['surface', 'reason'],
      registers,
    }),
    consoleLiveConnections: new Gauge({
      name: 'portico_console_live_connections',
      help: 'Open live-update streams (server-sent events) of the organization console on this process',
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'portico_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retrying, failed)',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'portico_webhook_attempt_duration_seconds',
      help: 'Time a webhook endpoint took to answer an attempt (or to fail it), by outcome',
      labelNames: ['outcome'],
      buckets: WEBHOOK_BUCKETS,
      registers,
    }),
    mailMessages: new Counter({
      name: 'portico_mail_messages_total',
      help: 'Outgoing mail by outcome: sent (to the SMTP server or the mail folder) or failed',
      labelNames: ['outcome'],
      registers,
    }),
    operationLabel,
    observeDatabase(db) {
      const poolUse = db.poolUse?.bind(db);
      if (!poolUse) return;
      const gauge = (name: string, help: string, pick: (use: PoolUse) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(pick(poolUse()));
          },
        });
      gauge('portico_db_pool_connections', 'Open connections to the database (PGlite: 1)', (s) => s.total);
      gauge('portico_db_pool_idle_connections', 'Open connections not in use', (s) => s.idle);
      gauge(
        'portico_db_pool_waiting_queries',
        'Queries and transactions waiting for a connection (PGlite: queued behind the one running)',
        (s) => s.waiting,
      );
      // Observed for every statement's connection, so bound once rather than looked up at each.
      const observeWait = new BoundHistogram({
        name: 'portico_db_pool_wait_seconds',
        help: 'Time to get a connection of the pool (PostgreSQL)',
        buckets: POOL_WAIT_BUCKETS,
        registers,
      }).bind({});
      db.onConnectionWait?.(observeWait);
    },
    readAtScrape(readers) {
      gaugeRead(
        'portico_outbox_lag_seconds',
        'Age of the oldest outbox event not yet fanned out to webhook deliveries (0 when none waits)',
        readers.outboxLagSeconds,
      );
      gaugeRead(
        'portico_webhook_overdue_seconds',
        'How long the longest-waiting due webhook delivery has waited past its due time (0 when none)',
        readers.webhookOverdueSeconds,
      );
      gaugeRead(
        'portico_mail_queue_messages',
        'Recipient mails due and not yet sent (invitations, reminders, notices)',
        readers.mailQueueMessages,
      );
    },
    text: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/**
 * The mailer, counting what it sends and what fails in `portico_mail_messages_total`.
 *
 * @example
 * const mailer = meteredMailer(createMailer(config, logger), metrics);
 */
export function meteredMailer(mailer: Mailer, metrics: Metrics): Mailer {
  const sent = metrics.mailMessages.labels({ outcome: 'sent' });
  const failed = metrics.mailMessages.labels({ outcome: 'failed' });
  return {
    async send(message) {
      try {
        const result = await mailer.send(message);
        sent.inc();
        return result;
      } catch (error) {
        failed.inc();
        throw error;
      }
    },
    close: () => {
      mailer.close();
    },
  };
}
