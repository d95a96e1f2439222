import type { Logger } from 'pino';

/**
 * Resolves on the first SIGINT or SIGTERM, logging `message` with the signal: how a long-running command
 * (`serve`, `worker`) learns to stop and close what it holds.
 */
export function untilStopSignal(logger: Logger, message: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, message);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
