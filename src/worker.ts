import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Metrics, WebhookOutcome } from './observability/metrics.ts';
import { startWebhookWorker } from './webhooks/delivery.ts';

/** A delivery's status after an attempt, as `portico_webhook_attempts_total` names its outcome. */
const OUTCOME = { delivered: 'delivered', pending: 'retrying', failed: 'failed' } as const satisfies Record<
  string,
  WebhookOutcome
>;

/**
 * Starts the webhook worker with the deployment's delivery settings: the one start-up that `portico serve`
 * (in-process) and `portico worker` (a process of its own) share, so both deliver alike.
 */
export function startConfiguredWebhookWorker(
  db: Database,
  config: Pick<Config, 'webhooksAllowInsecure' | 'webhookTimeout' | 'webhookRetrySchedule'>,
  logger: Logger,
  metrics?: Metrics,
): { stop(): Promise<void> } {
  return startWebhookWorker(db, {
    allowInsecure: config.webhooksAllowInsecure,
    timeoutMs: config.webhookTimeout * 1000,
    delaysMs: config.webhookRetrySchedule.map((seconds) => seconds * 1000),
    logger: logger.child({ service: 'webhooks' }),
    ...(metrics
      ? {
          onAttempt: (result, step) => {
            const outcome = OUTCOME[step.status];
            metrics.webhookAttempts.inc({ outcome });
            metrics.webhookAttemptDuration.observe({ outcome }, result.durationMs / 1000);
          },
        }
      : {}),
    onError: (error) => {
      logger.error({ err: error }, 'webhook worker step failed');
    },
  });
}
