import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { startWebhookWorker } from './webhooks/delivery.ts';

/**
 * Starts the webhook worker with the deployment's delivery settings: the one start-up that `portico serve`
 * (in-process) and `portico worker` (a process of its own) share, so both deliver alike.
 */
export function startConfiguredWebhookWorker(
  db: Database,
  config: Pick<Config, 'webhooksAllowInsecure' | 'webhookTimeout' | 'webhookRetrySchedule'>,
  logger: Logger,
): { stop(): Promise<void> } {
  return startWebhookWorker(db, {
    allowInsecure: config.webhooksAllowInsecure,
    timeoutMs: config.webhookTimeout * 1000,
    delaysMs: config.webhookRetrySchedule.map((seconds) => seconds * 1000),
    logger: logger.child({ service: 'webhooks' }),
    onError: (error) => {
      logger.error({ err: error }, 'webhook worker step failed');
    },
  });
}
