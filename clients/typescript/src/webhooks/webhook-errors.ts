import { PorticoError } from '../errors.ts';

/**
 * The message is not from the endpoint's secret: a `webhook-…` header is missing or malformed, or no signature
 * matches (the body or a header was changed on the way, or the secret is not this endpoint's). Answer 400.
 */
export class WebhookSignatureError extends PorticoError {
  override name = 'WebhookSignatureError';
}

/**
 * The signature matches, but `webhook-timestamp` is further from the receiver's clock than the tolerance: a
 * replay of a captured message, or a clock out of sync. Answer 400; a real attempt is signed afresh when retried.
 */
export class WebhookTimestampError extends PorticoError {
  override name = 'WebhookTimestampError';
  /** When the attempt was signed, per its `webhook-timestamp`. */
  readonly timestamp: Date;

  constructor(message: string, timestamp: Date) {
    super(message);
    this.timestamp = timestamp;
  }
}

/**
 * The message is authentic and on time, but not an event this client knows: its body is not a JSON message, or
 * its `type` is one this version does not list (a newer Portico). Answer 2xx to stop the retries, or 400 to
 * have it retried after upgrading this package.
 */
export class WebhookEventError extends PorticoError {
  override name = 'WebhookEventError';
  /** The message's `type`, when it had one. */
  readonly type: string | undefined;

  constructor(message: string, type?: string) {
    super(message);
    this.type = type;
  }
}
