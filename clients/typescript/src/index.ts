export { PorticoError, PorticoKeyError, PorticoNetworkError } from './errors.ts';
export { checkPortfolioKey, checkTransactionsKey, type Environment } from './keys.ts';
export type { TransportOptions } from './transport.ts';
export type { ErrorCode } from './generated/error-codes.ts';
export {
  TransactionsClient,
  type CallOptions,
  type FileSource,
  type MutationOptions,
  type RequestArguments,
  type TransactionsClientOptions,
} from './transactions/transactions-client.ts';
export {
  PorticoGraphQLError,
  PorticoHttpError,
  type GraphQLErrorEntry,
} from './transactions/graphql-errors.ts';
export type { SignedFile } from './transactions/signed-file.ts';
export type { JsonValue } from './transactions/json-value.ts';
export { TypedDocumentString } from './transactions/typed-document-string.ts';
export type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
export * as TransactionsOperations from './generated/transactions.ts';
