export { PorticoError, PorticoKeyError, PorticoNetworkError } from './errors.ts';
export { checkPortfolioKey, checkTransactionsKey, type Environment } from './keys.ts';
export type { TransportOptions } from './transport.ts';
export type { ErrorCode } from './generated/error-codes.ts';
export { PorticoApiError } from './api-error.ts';
export { PageWalk, type Page } from './portfolio/page-walk.ts';
export {
  CompaniesResource,
  PortfolioClient,
  type PortfolioClientOptions,
} from './portfolio/portfolio-client.ts';
export type {
  Company,
  CompanyInvestment,
  CompanyInvestmentListOptions,
  CompanyListOptions,
  CompanyUpdate,
  CompanyUpdateListOptions,
  Fund,
  ListOptions,
} from './portfolio/records.ts';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhooks/verify-webhook.ts';
export {
  WebhookEventError,
  WebhookSignatureError,
  WebhookTimestampError,
} from './webhooks/webhook-errors.ts';
export {
  WEBHOOK_EVENT_TYPES,
  type TransactionCompletedEvent,
  type TransactionStateChangedEvent,
  type TransactionVoidedEvent,
  type WebhookEvent,
  type WebhookEventType,
} from './webhooks/webhook-events.ts';
export {
  TransactionsClient,
  type CallOptions,
  type FileSource,
  type MutationOptions,
  type RequestArguments,
  type TransactionsClientOptions,
} from './transactions/transactions-client.ts';
export { PorticoGraphQLError, type GraphQLErrorEntry } from './transactions/graphql-errors.ts';
export type { SignedFile } from './transactions/signed-file.ts';
export type { JsonValue } from './transactions/json-value.ts';
export { TypedDocumentString } from './transactions/typed-document-string.ts';
export type { DocumentTypeDecoration, ResultOf, VariablesOf } from './transactions/document-types.ts';
export * as TransactionsOperations from './generated/transactions.ts';
