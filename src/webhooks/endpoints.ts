import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { oneRow } from '../db/one-row.ts';
import { AppError, isNot, noEventTypes, notFound, tooLong } from '../errors.ts';
import { loadInstanceSecret } from '../db/instance-secrets.ts';
import { open, seal } from '../keys/sealed-box.ts';
import { checkDestination, type LookupAll } from './address-safety.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  eventTypes: EventType[];
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
}

const COLUMNS = `id, organization_id as "organizationId", url, description, event_types as "eventTypes",
  disabled_at as "disabledAt", disabled_reason as "disabledReason", created_at as "createdAt"`;

/** A signing secret as Standard Webhooks has it: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key that seals endpoint secrets in the database: the deployment's own, shared by every node. */
export async function secretsKey(db: Queryable): Promise<Buffer> {
  return loadInstanceSecret(db, 'webhook_secrets');
}

/** Opens a sealed secret. */
export function openSecret(sealed: Uint8Array, key: Buffer): string {
  return open(Buffer.from(sealed), key) as string;
}

/** The longest webhook URL and description an endpoint may have. */
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;

/** A description as stored: at most {@link MAX_DESCRIPTION_LENGTH} characters. */
function checkDescription<Value extends string | null | undefined>(description: Value): Value {
  if (typeof description === 'string' && description.length > MAX_DESCRIPTION_LENGTH) {
    throw tooLong("A webhook endpoint's description", MAX_DESCRIPTION_LENGTH, { field: 'description' });
  }
  return description;
}

/**
 * Checks an endpoint URL's form: https only, unless `allowInsecure` (development and tests), which also admits
 * plain http. `checkEndpoint` checks where it points as well.
 */
export function checkEndpointUrl(url: string, options: { allowInsecure: boolean }): URL {
  if (url.length > MAX_URL_LENGTH) {
    throw tooLong('A webhook URL', MAX_URL_LENGTH, { field: 'url' });
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw isNot(url, 'a URL', { field: 'url' });
  }
  const schemes = options.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) {
    throw new AppError('BAD_USER_INPUT', 'A webhook URL must use https.', { field: 'url' });
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new AppError('BAD_USER_INPUT', 'A webhook URL must not hold credentials.', { field: 'url' });
  }
  return parsed;
}

/**
 * Checks an endpoint URL before it is saved: its form, and every address its host resolves to (no private,
 * loopback, link-local or metadata address unless `allowInsecure`). Delivery checks the addresses again when
 * it connects, against DNS rebinding.
 */
async function checkEndpoint(
  url: string,
  options: { allowInsecure: boolean; lookup?: LookupAll | undefined },
): Promise<string> {
  const parsed = checkEndpointUrl(url, options);
  await checkDestination(parsed, {
    allowPrivate: options.allowInsecure,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  return parsed.toString();
}

/** Registers an endpoint; its secret is returned once, here. */
export async function createEndpoint(
  db: Queryable,
  options: {
    organizationId: string;
    url: string;
    description?: string | undefined;
    eventTypes: readonly EventType[];
    allowInsecure: boolean;
    /** How host names resolve (tests). @default node:dns */
    lookup?: LookupAll | undefined;
  },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  checkDescription(options.description);
  const url = await checkEndpoint(options.url, options);
  if (options.eventTypes.length === 0) throw noEventTypes();
  const secret = generateWebhookSecret();
  const endpoint = await oneRow<WebhookEndpoint>(
    db,
    `insert into webhook_endpoints (organization_id, url, description, event_types, secret)
     values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [
      options.organizationId,
      url,
      options.description ?? null,
      [...new Set(options.eventTypes)],
      seal(secret, await secretsKey(db)),
    ],
  );
  return { endpoint, secret };
}

/**
 * Gives an endpoint a new secret, returned once; the previous one keeps signing for 24 hours, so receivers can
 * switch without losing a message.
 */
export async function rotateEndpointSecret(
  db: Queryable,
  options: { organizationId: string; endpointId: string; now?: Date },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = generateWebhookSecret();
  const expires = new Date((options.now ?? new Date()).getTime() + ROTATION_OVERLAP_MS);
  const [endpoint] = await db.query<WebhookEndpoint>(
    `update webhook_endpoints set previous_secret = secret, previous_secret_expires_at = $3, secret = $4,
       updated_at = clock_timestamp()
     where organization_id = $1 and id = $2 returning ${COLUMNS}`,
    [options.organizationId, options.endpointId, expires, seal(secret, await secretsKey(db))],
  );
  if (!endpoint) throw notFound('webhook endpoint', options.endpointId);
  return { endpoint, secret };
}

/** The event types as GraphQL names them: `TRANSACTION_COMPLETED`. */
const EVENT_TYPE_NAMES = EVENT_TYPES.map((type) => type.toUpperCase().replace('.', '_'));

/** `TRANSACTION_COMPLETED` (GraphQL) → `transaction.completed` (outbox); anything else is refused. */
export function eventTypeOf(name: string): EventType {
  const type = name.toLowerCase().replace('_', '.');
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw isNot(name, 'an event type', { field: 'eventTypes' }, EVENT_TYPE_NAMES);
  }
  return type as EventType;
}

/** Changes an endpoint's URL, description or event types; undefined leaves a field as it is. */
export async function updateEndpoint(
  db: Queryable,
  options: {
    organizationId: string;
    endpointId: string;
    url?: string | undefined;
    description?: string | null | undefined;
    eventTypes?: readonly EventType[] | undefined;
    allowInsecure: boolean;
    lookup?: LookupAll | undefined;
  },
): Promise<WebhookEndpoint> {
  checkDescription(options.description);
  const url = options.url === undefined ? null : await checkEndpoint(options.url, options);
  if (options.eventTypes?.length === 0) throw noEventTypes();
  const [endpoint] = await db.query<WebhookEndpoint>(
    `update webhook_endpoints set url = coalesce($3, url),
       description = case when $4::boolean then $5 else description end,
       event_types = coalesce($6, event_types), updated_at = clock_timestamp()
     where organization_id = $1 and id = $2 returning ${COLUMNS}`,
    [
      options.organizationId,
      options.endpointId,
      url,
      options.description !== undefined,
      options.description ?? null,
      options.eventTypes ? [...new Set(options.eventTypes)] : null,
    ],
  );
  if (!endpoint) throw notFound('webhook endpoint', options.endpointId);
  return endpoint;
}

/** Disables an endpoint (with the reason) or enables it again. */
export async function setEndpointEnabled(
  db: Queryable,
  options: { organizationId: string; endpointId: string; enabled: boolean; reason?: string },
): Promise<WebhookEndpoint> {
  const [endpoint] = await db.query<WebhookEndpoint>(
    `update webhook_endpoints set
       disabled_at = case when $3 then null else coalesce(disabled_at, clock_timestamp()) end,
       disabled_reason = case when $3 then null else coalesce($4, disabled_reason) end,
       failing_since = case when $3 then null else failing_since end,
       updated_at = clock_timestamp()
     where organization_id = $1 and id = $2 returning ${COLUMNS}`,
    [options.organizationId, options.endpointId, options.enabled, options.reason ?? null],
  );
  if (!endpoint) throw notFound('webhook endpoint', options.endpointId);
  return endpoint;
}

/** Deletes an endpoint with its deliveries and attempts. */
export async function deleteEndpoint(
  db: Queryable,
  options: { organizationId: string; endpointId: string },
): Promise<void> {
  const rows = await db.query(
    'delete from webhook_endpoints where organization_id = $1 and id = $2 returning id',
    [options.organizationId, options.endpointId],
  );
  if (rows.length === 0) throw notFound('webhook endpoint', options.endpointId);
}

/**
 * Queues deliveries to be sent again from the start of the retry schedule, with their webhook-id unchanged:
 * one delivery, or every failed delivery of an endpoint created at or after `since`.
 * @returns how many were queued
 */
export async function resendDeliveries(
  db: Queryable,
  options: { organizationId: string } & ({ deliveryId: string } | { endpointId: string; since: Date }),
): Promise<number> {
  const rows =
    'deliveryId' in options
      ? await db.query(
          `update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = clock_timestamp(),
             claimed_until = null, delivered_at = null
           where organization_id = $1 and id = $2 returning id`,
          [options.organizationId, options.deliveryId],
        )
      : await db.query(
          `update webhook_deliveries set status = 'pending', attempts = 0, next_attempt_at = clock_timestamp(),
             claimed_until = null
           where organization_id = $1 and endpoint_id = $2 and status = 'failed' and created_at >= $3 returning id`,
          [options.organizationId, options.endpointId, options.since],
        );
  if ('deliveryId' in options && rows.length === 0) {
    throw notFound('webhook delivery', options.deliveryId);
  }
  return rows.length;
}

/** An endpoint as an operator's list shows it: with the counts of its pending and failed deliveries. */
export interface ListedEndpoint extends Omit<WebhookEndpoint, 'organizationId'> {
  failingSince: Date | null;
  failed: number;
  pending: number;
}

/** An organization's endpoints in the order they were created, each with its delivery counts. */
export function listEndpoints(db: Queryable, options: { organizationId: string }): Promise<ListedEndpoint[]> {
  return db.query<ListedEndpoint>(
    `select id, url, description, event_types as "eventTypes", disabled_at as "disabledAt",
       disabled_reason as "disabledReason", failing_since as "failingSince", created_at as "createdAt",
       (select count(*)::int from webhook_deliveries d where d.endpoint_id = e.id and d.status = 'failed') as failed,
       (select count(*)::int from webhook_deliveries d where d.endpoint_id = e.id and d.status = 'pending') as pending
     from webhook_endpoints e where organization_id = $1 order by created_at, sequence`,
    [options.organizationId],
  );
}
