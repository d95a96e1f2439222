import type { FastifyRequest } from 'fastify';
import type { Environment } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { parseApiKey } from '../keys/api-key.ts';
import { apiKeys, type ApiKeyRecord } from '../keys/api-key-store.ts';
import type { ApiKeyCache } from '../keys/api-key-cache.ts';
import { presentedKeyHash } from '../http/presented-key.ts';

/** Who is calling the Transactions API: the organization and key behind the request. */
export interface Caller {
  organizationId: string;
  apiKeyId: string;
  environment: Environment;
}

const ENVIRONMENT_NAMES: Record<Environment, string> = {
  staging: 'staging (sk_test_)',
  production: 'production (sk_live_)',
};

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

/**
 * Resolves `Authorization: Bearer sk_…` to its organization, or throws UNAUTHENTICATED saying what is wrong
 * (never which keys exist). Form and checksum are checked before any lookup; a key of the other environment
 * is refused by its prefix.
 */
export async function authenticate(
  options: { db: Queryable; environment: Environment; cache?: ApiKeyCache<ApiKeyRecord> | undefined },
  request: FastifyRequest,
): Promise<Caller> {
  const { db, environment } = options;
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    throw unauthenticated('Missing API key. Send it as the header "Authorization: Bearer sk_…".');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw unauthenticated('The Authorization header must be "Bearer <API key>".');
  }
  const parsed = parseApiKey(match[1]);
  if (!parsed.ok) {
    throw unauthenticated(
      parsed.reason === 'checksum'
        ? 'Invalid API key: its checksum does not match (is it complete and copied exactly?).'
        : 'Invalid API key: keys look like sk_test_… or sk_live_… followed by 38 letters and digits.',
    );
  }
  if (parsed.environment !== environment) {
    throw unauthenticated(
      `This is a ${ENVIRONMENT_NAMES[parsed.environment]} key, and this deployment serves ${ENVIRONMENT_NAMES[environment]}. Request a key for ${environment}.`,
    );
  }
  const record = await apiKeys.find(db, parsed.key, options.cache, presentedKeyHash(request, parsed.key));
  if (!record || record.environment !== environment) throw unauthenticated('Invalid API key.');
  if (record.revokedAt !== null) throw unauthenticated('This API key has been revoked.');
  return { organizationId: record.organizationId, apiKeyId: record.id, environment };
}
