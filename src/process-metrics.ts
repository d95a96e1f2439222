import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Mailer } from './mail/mailer.ts';
import type { Metrics } from './observability/metrics.ts';

/** The metrics of a running `serve` or `worker` process, when they are asked for. */
export interface ProcessMetrics {
  metrics: Metrics;
  /** Where the metrics port answers, e.g. `http://127.0.0.1:9464/metrics`; undefined without one. */
  url: string | undefined;
  /** The mailer, counting what it sends and what fails. */
  metered(mailer: Mailer): Mailer;
  close(): Promise<void>;
}

/**
 * The process's metrics (observability/metrics.ts) when `PORTICO_METRICS_PORT` or `PORTICO_METRICS_TOKEN` is set,
 * else undefined: the database's connections, the values read at scrape time (outbox lag, overdue webhook
 * deliveries, the recipient mail queue) and, with a port, its listener. prom-client and the readers load only
 * then, so a process without metrics neither loads nor counts anything.
 */
export async function startProcessMetrics(
  config: Pick<Config, 'metricsPort' | 'metricsHost' | 'metricsToken'>,
  db: Database,
): Promise<ProcessMetrics | undefined> {
  if (config.metricsPort === undefined && config.metricsToken === undefined) return undefined;
  const [
    { createMetrics, meteredMailer },
    { startMetricsServer },
    { outboxLagSeconds },
    { overdueSeconds },
    { countDueNotices },
  ] = await Promise.all([
    import('./observability/metrics.ts'),
    import('./observability/metrics-server.ts'),
    import('./webhooks/outbox.ts'),
    import('./webhooks/delivery.ts'),
    import('./transactions/recipients/notice-queue.ts'),
  ]);
  const metrics = createMetrics();
  metrics.observeDatabase(db);
  metrics.readAtScrape({
    outboxLagSeconds: () => outboxLagSeconds(db),
    webhookOverdueSeconds: () => overdueSeconds(db),
    mailQueueMessages: () => countDueNotices(db),
  });
  const server =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(metrics, { host: config.metricsHost, port: config.metricsPort });
  return {
    metrics,
    url: server?.url,
    metered: (mailer) => meteredMailer(mailer, metrics),
    close: async () => {
      await server?.close();
    },
  };
}
