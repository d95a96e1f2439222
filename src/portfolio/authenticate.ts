import type { Queryable } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { checkPortfolioKey, PORTFOLIO_KEY_PREFIX } from '../keys/api-key.ts';
import type { ApiKeyCache } from '../keys/api-key-cache.ts';
import { portfolioKeys, type PortfolioKeyRecord } from './instances.ts';

/** Who is calling the Portfolio API: the customer instance and key behind the request. */
export interface PortfolioCaller {
  instanceId: string;
  apiKeyId: string;
}

const EXPECTED = `"Authorization: ${PORTFOLIO_KEY_PREFIX}…", the key itself with no scheme word in front`;

/** Words that come before a credential in an Authorization header (lower-case), which a message may repeat. */
const SCHEME_WORDS = new Set(['basic', 'bearer', 'digest', 'token', 'apikey', 'api-key', 'key']);

function unauthenticated(message: string): AppError {
  return new AppError('UNAUTHENTICATED', message);
}

/**
 * Resolves `Authorization: pfk_…` (the raw key, as the spec has it) to its customer instance, or throws
 * UNAUTHENTICATED saying what is wrong, never which keys exist. A key sent the way the Transactions API
 * takes its keys (`Bearer …`) or a Transactions key gets a message that says how to send a Portfolio key.
 */
export async function authenticatePortfolio(
  options: {
    db: Queryable;
    cache?: ApiKeyCache<PortfolioKeyRecord> | undefined;
    /** The hash of a key, when the request already has it (see presented-key.ts). */
    hashOf?: ((key: string) => Buffer) | undefined;
  },
  header: string | undefined,
): Promise<PortfolioCaller> {
  const value = header?.trim() ?? '';
  if (value === '') throw unauthenticated(`Missing API key. Send it as ${EXPECTED}.`);
  const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
  if (scheme !== undefined) {
    // Only a word known to be a scheme is named: whatever else comes first may be the key itself.
    const known = SCHEME_WORDS.has(scheme.toLowerCase());
    throw unauthenticated(
      `Send the API key ${known ? `without "${scheme}"` : 'alone, without a scheme word or anything else'}: ` +
        `${EXPECTED}. (The Transactions API is the one that takes "Bearer".)`,
    );
  }
  if (/^sk_(test|live)_/.test(value)) {
    throw unauthenticated(
      `This is a Transactions API key. The Portfolio API takes the keys of a customer instance, which start with ${PORTFOLIO_KEY_PREFIX}.`,
    );
  }
  const form = checkPortfolioKey(value);
  if (form === 'malformed') {
    throw unauthenticated(
      `Invalid API key: Portfolio keys look like ${PORTFOLIO_KEY_PREFIX} followed by 38 letters and digits.`,
    );
  }
  if (form === 'checksum') {
    throw unauthenticated(
      'Invalid API key: its checksum does not match (is it complete and copied exactly?).',
    );
  }
  const record = await portfolioKeys.find(options.db, value, options.cache, options.hashOf?.(value));
  if (!record) throw unauthenticated('Invalid API key.');
  if (record.revokedAt !== null) throw unauthenticated('This API key has been revoked.');
  return { instanceId: record.instanceId, apiKeyId: record.id };
}
