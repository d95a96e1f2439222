import type { Logger } from 'pino';
import type { AttemptResult, NextStep } from './delivery-outcome.ts';

/** A delivery attempted, as its log line tells it. */
export interface AttemptedDelivery {
  url: string;
  messageId: string;
  organizationId: string;
  /** The transaction of its event, and the request that made the change (null when none did). */
  transactionId: string | null;
  requestId: string | null;
  result: AttemptResult;
  step: NextStep;
}

/**
 * Logs an attempt: one that got no 2xx at warn, `webhook delivery failed`, with the endpoint (its URL without
 * query, fragment or user, which may hold secrets), the status (or the error, for no answer), the attempt's
 * number, what comes next, and the message, transaction and request it delivers for; a delivered one at debug.
 */
export function logAttempt(logger: Pick<Logger, 'warn' | 'debug'>, attempt: AttemptedDelivery): void {
  const { result, step } = attempt;
  const fields = {
    endpoint: withoutSecrets(attempt.url),
    status: result.statusCode,
    durationMs: result.durationMs,
    attempt: step.attempts,
    messageId: attempt.messageId,
    transactionId: attempt.transactionId ?? undefined,
    requestId: attempt.requestId ?? undefined,
    organizationId: attempt.organizationId,
  };
  if (step.status === 'delivered') {
    logger.debug(fields, 'webhook delivered');
    return;
  }
  logger.warn(
    {
      ...fields,
      error: result.error,
      next: step.status === 'pending' ? step.nextAttemptAt : 'failed',
      disabled: step.disableReason ?? undefined,
    },
    'webhook delivery failed',
  );
}

/** An endpoint's URL as logs may show it: scheme, host, port and path only. */
function withoutSecrets(url: string): string {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname}`;
  } catch {
    return '(not a URL)';
  }
}
