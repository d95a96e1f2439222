import { Webhook } from 'standardwebhooks';
import { PorticoKeyError } from '../errors.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEvent, type WebhookEventType } from './webhook-events.ts';
import { WebhookEventError, WebhookSignatureError, WebhookTimestampError } from './webhook-errors.ts';

/** The headers of a request as the platform gives them: a Fetch `Headers`, or Node's `request.headers`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** How strict `verifyWebhook` is about time. */
export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now`, either way, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** The receiver's clock. @default new Date() */
  now?: Date;
}

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
const encoder = new TextEncoder();

/** Whether `headers` is a Fetch `Headers` (of any implementation) rather than a record. */
function isFetchHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof (headers as Partial<Headers>).get === 'function';
}

/** The value of header `name` (any case); repeated ones joined by a space, as signatures are. */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  // Duck-typed rather than `instanceof Headers`: a framework may bring its own Fetch implementation's class.
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(' ');
  }
  return undefined;
}

/**
 * Whether two strings are equal, in a time that does not depend on where they differ (so an attacker cannot
 * find a valid signature byte after byte). standardwebhooks keeps its own comparison out of its public API.
 */
function sameInConstantTime(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index += 1) difference |= (left[index] ?? 0) ^ (right[index] ?? 0);
  return difference === 0;
}

/** A `Webhook` of the library for each secret; a malformed secret is a configuration error, named as one. */
function signersOf(secret: string | readonly string[]): Webhook[] {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new PorticoKeyError('verifyWebhook needs at least one secret (whsec_…).');
  return secrets.map((each, index) => {
    try {
      return new Webhook(each);
    } catch {
      throw new PorticoKeyError(
        `Webhook secret ${index + 1} is not a signing secret: one is whsec_ and the base64 of 32 bytes, as createWebhookEndpoint shows it.`,
      );
    }
  });
}

/** The message's event, once its body is known to be authentic. */
function eventOf(body: string): WebhookEvent {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    throw new WebhookEventError('The webhook body is not JSON.');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new WebhookEventError('The webhook body is not a message: {id, type, timestamp, data}.');
  }
  const { type, data } = message as { type?: unknown; data?: unknown };
  if (typeof type !== 'string') throw new WebhookEventError('The webhook message has no type.');
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new WebhookEventError(
      `The webhook event type "${type}" is not one this client knows (${WEBHOOK_EVENT_TYPES.join(', ')}): upgrade @portico/client.`,
      type,
    );
  }
  if (typeof data !== 'object' || data === null) {
    throw new WebhookEventError(`The ${type as WebhookEventType} message has no data.`, type);
  }
  return message as WebhookEvent;
}

/**
 * Verifies a webhook message from Portico and returns its event, typed by `type`. Synchronous: it needs no I/O.
 *
 * Pass the raw body, exactly as it arrived (a string or its bytes: parsing and serializing it again changes the
 * bytes the signature covers), the request's headers, and the endpoint's secret. During a rotation pass both
 * secrets, `[newSecret, oldSecret]`: a message is accepted when any of its signatures (Portico sends two for 24
 * hours after a rotation) matches any of them. The signature is checked first, so an error about the time or the
 * event is only ever about a message that is authentic.
 *
 * @throws {WebhookSignatureError} a `webhook-…` header is missing or malformed, or no signature matches.
 * @throws {WebhookTimestampError} `webhook-timestamp` is more than `toleranceSeconds` before or after `now`.
 * @throws {WebhookEventError} the body is not a JSON message, or its type is not one of `WEBHOOK_EVENT_TYPES`.
 * @throws {PorticoKeyError} a secret is not a `whsec_…` signing secret.
 *
 * @example
 * const event = verifyWebhook(body, request.headers, process.env.PORTICO_WEBHOOK_SECRET);
 * if (event.type === 'transaction.completed') console.log(event.data.completedAt);
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const signers = signersOf(secret);
  const [id, timestampHeader, signatureHeader] = HEADERS.map((name) => headerOf(headers, name));
  if (!id || !timestampHeader || !signatureHeader) {
    const missing = HEADERS.filter((name) => !headerOf(headers, name));
    throw new WebhookSignatureError(`The webhook request has no ${missing.join(', ')} header.`);
  }
  if (!/^\d{1,15}$/.test(timestampHeader.trim())) {
    throw new WebhookSignatureError('The webhook-timestamp header is not a time in Unix seconds.');
  }
  const timestamp = new Date(Number(timestampHeader.trim()) * 1000);
  // The library signs strings; the bytes Portico signed are UTF-8, so decoding them gives the same string.
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);

  const presented = signatureHeader
    .split(' ')
    .filter((each) => each.startsWith('v1,'))
    .map((each) => each.slice('v1,'.length));
  const expected = signers.map((signer) => signer.sign(id, timestamp, text).slice('v1,'.length));
  if (!presented.some((signature) => expected.some((each) => sameInConstantTime(signature, each)))) {
    throw new WebhookSignatureError(
      'No signature of the webhook matches the secret: the body or a header was changed, or the secret is not this endpoint’s.',
    );
  }

  const toleranceMs = (options.toleranceSeconds ?? 300) * 1000;
  const now = options.now ?? new Date();
  const skew = now.getTime() - timestamp.getTime();
  if (skew > toleranceMs) {
    throw new WebhookTimestampError(
      `The webhook was signed at ${timestamp.toISOString()}, more than ${toleranceMs / 1000} s ago: a replay, or a clock out of sync.`,
      timestamp,
    );
  }
  if (-skew > toleranceMs) {
    throw new WebhookTimestampError(
      `The webhook was signed at ${timestamp.toISOString()}, more than ${toleranceMs / 1000} s ahead of this clock: is it in sync?`,
      timestamp,
    );
  }
  return eventOf(text);
}
