import { PorticoKeyError } from './errors.ts';

/** A deployment of the Transactions service: its keys start with `sk_test_` (staging) or `sk_live_` (production). */
export type Environment = 'staging' | 'production';

const TRANSACTIONS_KEY = /^sk_(test|live)_[0-9A-Za-z]{38}$/;
const PORTFOLIO_KEY = /^pfk_[0-9A-Za-z]{38}$/;
const PREFIX: Record<Environment, string> = { staging: 'sk_test_', production: 'sk_live_' };

/** What a key starts with, enough to say what it is and never enough to use it. */
function prefixOf(key: string): string {
  const match = /^[a-z]+_(?:[a-z]+_)?/.exec(key);
  return match ? `${match[0]}…` : 'a key of no known kind';
}

/**
 * Refuses, before anything is sent, a key the Transactions service would refuse for its kind or environment.
 *
 * @example
 * checkTransactionsKey('sk_live_…', 'staging'); // throws: a production key, for a staging deployment
 */
export function checkTransactionsKey(key: string, environment: Environment | undefined): Environment {
  if (key.startsWith('pfk_')) {
    throw new PorticoKeyError(
      'This is a Portfolio key (pfk_…); the Transactions API takes a key starting with sk_test_ or sk_live_.',
    );
  }
  const match = TRANSACTIONS_KEY.exec(key);
  if (!match) {
    throw new PorticoKeyError(
      `The key (${prefixOf(key)}) is not a Transactions key: one starts with sk_test_ or sk_live_ and has 38 characters after it.`,
    );
  }
  const keyEnvironment: Environment = match[1] === 'live' ? 'production' : 'staging';
  if (environment !== undefined && environment !== keyEnvironment) {
    throw new PorticoKeyError(
      `This is a ${keyEnvironment} key (${PREFIX[keyEnvironment]}…) and the client is set for ${environment}: use a key starting with ${PREFIX[environment]}.`,
    );
  }
  return keyEnvironment;
}

/** Refuses, before anything is sent, a key the Portfolio service would refuse for its kind. */
export function checkPortfolioKey(key: string): void {
  if (key.startsWith('sk_test_') || key.startsWith('sk_live_')) {
    throw new PorticoKeyError(
      `This is a Transactions key (${prefixOf(key)}); the Portfolio API takes a key starting with pfk_.`,
    );
  }
  if (!PORTFOLIO_KEY.test(key)) {
    throw new PorticoKeyError(
      `The key (${prefixOf(key)}) is not a Portfolio key: one starts with pfk_ and has 38 characters after it.`,
    );
  }
}
