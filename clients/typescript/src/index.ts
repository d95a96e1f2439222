export { PorticoError, PorticoKeyError, PorticoNetworkError } from './errors.ts';
export { checkPortfolioKey, checkTransactionsKey, type Environment } from './keys.ts';
export type { TransportOptions } from './transport.ts';
