import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { loadInstanceSecret } from '../files/file-links.ts';
import { open, seal } from '../keys/sealed-box.ts';

/** The events an endpoint can ask for: the types of the outbox. */
export const EVENT_TYPES = ['transaction.completed', 'transaction.state_changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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

/**
 * Checks an endpoint URL: https only, unless `allowInsecure` (development and tests), which also admits plain
 * http. Where the name points is checked again when connecting.
 */
export function checkEndpointUrl(url: string, options: { allowInsecure: boolean }): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('BAD_USER_INPUT', `"${url}" is not a URL`, { field: 'url' });
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

/** Registers an endpoint; its secret is returned once, here. */
export async function createEndpoint(
  db: Queryable,
  options: {
    organizationId: string;
    url: string;
    description?: string | undefined;
    eventTypes: readonly EventType[];
    allowInsecure: boolean;
  },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = checkEndpointUrl(options.url, options).toString();
  if (options.eventTypes.length === 0) {
    throw new AppError('BAD_USER_INPUT', 'An endpoint must want at least one event type.', {
      field: 'eventTypes',
    });
  }
  const secret = generateWebhookSecret();
  const [endpoint] = await db.query<WebhookEndpoint>(
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
  if (!endpoint) throw new Error('insert returned no row');
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
  if (!endpoint) throw new AppError('NOT_FOUND', `No webhook endpoint ${options.endpointId}.`);
  return { endpoint, secret };
}
