import type { DocumentTypeDecoration } from './document-types.ts';
import { PorticoError } from '../errors.ts';
import * as operations from '../generated/transactions.ts';
import { checkTransactionsKey, type Environment } from '../keys.ts';
import { httpsUrlOf, send, type TransportOptions } from '../transport.ts';
import { dataOf } from './graphql-errors.ts';
import { fetchSignedFile, type SignedFile } from './signed-file.ts';
import type { TypedDocumentString } from './typed-document-string.ts';

/** How a {@link TransactionsClient} reaches the API. */
export interface TransactionsClientOptions extends TransportOptions {
  /** The GraphQL endpoint, e.g. `https://api.example.com/beta`: an https URL (Portico refuses plain HTTP). */
  baseUrl: string;
  /** `sk_test_…` (staging) or `sk_live_…` (production). Kept private: no error, log or inspection shows it. */
  apiKey: string;
  /** The deployment's environment: a key of the other one is refused before anything is sent. @default the key's */
  environment?: Environment;
}

/** What one call may add. */
export interface CallOptions {
  /** Aborts the call, its retries and waits included. */
  signal?: AbortSignal;
}

/** What one mutation call may add. */
export interface MutationOptions extends CallOptions {
  /**
   * Sent as the `Idempotency-Key` header: the same key and input within 24 hours do the work once. A mutation with
   * a key is sent again after a network error or a 503. `createTransaction` and `triggerTransactionEvent` make one
   * (a UUID) when none is given.
   */
  idempotencyKey?: string;
}

/** The variables argument of {@link TransactionsClient.request}: optional when the operation has no required one. */
export type RequestArguments<TVariables> =
  Record<string, never> extends TVariables
    ? [variables?: TVariables, options?: MutationOptions]
    : [variables: TVariables, options?: MutationOptions];

/** What a file download may be asked from: a TransactionFile's or TransactionSignatureFile's id, or a selection. */
export type FileSource = string | { signedUrl: string } | { file: { signedUrl: string } };

interface Send {
  repeatable: boolean;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** The source text of a typed document: a TypedDocumentString, or a TypedDocumentNode that kept its `loc`. */
function sourceOf(document: object): string {
  if (document instanceof String) return document.toString();
  const body = (document as { loc?: { source?: { body?: unknown } } }).loc?.source?.body;
  if (typeof body === 'string') return body;
  throw new PorticoError(
    'The document carries no source text: generate it with documentMode "string", or keep its loc (noLocation: false).',
  );
}

/** Whether a document's source defines a mutation (comments and strings aside). */
function definesMutation(source: string): boolean {
  const bare = source.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, ' ');
  return /(?:^|\})\s*mutation\b/.test(bare);
}

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The Transactions API (GraphQL at `/beta`): one method per root field and mutation of the schema, each with a
 * selection that suits most programs, and {@link request} for a selection of your own. Reads, and mutations with an
 * Idempotency-Key, are sent again after a network error or a 503; every call waits out a 429's `Retry-After`.
 * Errors are `PorticoGraphQLError` with the server's `code`.
 *
 * @example
 * const client = new TransactionsClient({ baseUrl: 'https://api.example.com/beta', apiKey: process.env.PORTICO_KEY });
 * const { transactionId } = await client.createTransaction({ templateId, senderEntityId, noticeName, noticeEmail });
 * await client.triggerTransactionEvent({ transactionId, eventKey: 'approve' });
 * const transaction = await client.transaction(transactionId);
 * console.log(transaction?.state, transaction?.availableEvents);
 */
export class TransactionsClient {
  readonly #apiKey: string;
  readonly #endpoint: string;
  readonly #transport: TransportOptions;
  /** The environment of the key, which the deployment must be. */
  readonly environment: Environment;

  constructor(options: TransactionsClientOptions) {
    const { baseUrl, apiKey, environment, ...transport } = options;
    this.environment = checkTransactionsKey(apiKey, environment);
    const url = httpsUrlOf(baseUrl, 'The Transactions baseUrl');
    this.#apiKey = apiKey;
    this.#endpoint = url.href.replace(/\/+$/, '');
    this.#transport = transport;
  }

  /** The GraphQL endpoint the client sends to. */
  get baseUrl(): string {
    return this.#endpoint;
  }

  toString(): string {
    return `TransactionsClient(${this.#endpoint}, ${this.environment})`;
  }

  toJSON(): { baseUrl: string; environment: Environment } {
    return { baseUrl: this.#endpoint, environment: this.environment };
  }

  async #send(source: string, variables: unknown, how: Send): Promise<unknown> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
    };
    if (how.idempotencyKey !== undefined) headers['idempotency-key'] = how.idempotencyKey;
    const response = await send(
      this.#endpoint,
      { method: 'POST', headers, body: JSON.stringify({ query: source, variables: variables ?? {} }) },
      { repeatable: how.repeatable, signal: how.signal },
      this.#transport,
    );
    return dataOf(response);
  }

  /**
   * Runs any operation typed by GraphQL Code Generator (a TypedDocumentString of `documentMode: 'string'`, or a
   * TypedDocumentNode that kept its source), e.g. one you generated against `GET /beta/schema.graphql`. A query is
   * sent again after a network error or a 503; a mutation only with an `idempotencyKey`.
   *
   * @example
   * const States = new TypedDocumentString<{ transaction: { state: string } | null }, { id: string }>(
   *   'query ($id: uuid!) { transaction(id: $id) { state } }',
   * );
   * const { transaction } = await client.request(States, { id });
   */
  async request<TResult, TVariables>(
    document: DocumentTypeDecoration<TResult, TVariables>,
    ...[variables, options = {}]: RequestArguments<TVariables>
  ): Promise<TResult> {
    const source = sourceOf(document);
    const repeatable = options.idempotencyKey !== undefined || !definesMutation(source);
    return (await this.#send(source, variables, { ...options, repeatable })) as TResult;
  }

  #read<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
    options: CallOptions,
  ): Promise<TResult> {
    return this.#send(document.toString(), variables, {
      repeatable: true,
      signal: options.signal,
    }) as Promise<TResult>;
  }

  #mutate<TResult, TVariables>(
    document: TypedDocumentString<TResult, TVariables>,
    variables: TVariables,
    options: MutationOptions,
  ): Promise<TResult> {
    return this.#send(document.toString(), variables, {
      repeatable: options.idempotencyKey !== undefined,
      idempotencyKey: options.idempotencyKey,
      signal: options.signal,
    }) as Promise<TResult>;
  }

  /** The organization of the key, with its templates, entities and webhook endpoints: where an integration starts. */
  async viewer(options: CallOptions = {}): Promise<operations.OrganizationFragment> {
    return (await this.#read(operations.ViewerDocument, {}, options)).viewer;
  }

  /** One page of the organization's transactions, newest first unless `orderBy` says otherwise. */
  async transactions(
    page: operations.TransactionsQueryVariables = {},
    options: CallOptions = {},
  ): Promise<operations.TransactionsQuery['viewer']['transactions']> {
    return (await this.#read(operations.TransactionsDocument, page, options)).viewer.transactions;
  }

  /**
   * Every transaction of the organization, a page at a time as the loop asks for them.
   *
   * @example
   * for await (const transaction of client.allTransactions()) console.log(transaction.id, transaction.state);
   */
  async *allTransactions(
    page: Omit<operations.TransactionsQueryVariables, 'after'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<operations.TransactionsQuery['viewer']['transactions']['nodes'][number]> {
    let after: string | null = null;
    for (;;) {
      const connection = await this.transactions({ ...page, after }, options);
      yield* connection.nodes;
      if (!connection.pageInfo.hasNextPage || connection.pageInfo.endCursor === null) return;
      after = connection.pageInfo.endCursor;
    }
  }

  /** Your organization if `id` is its id, else null. */
  async organization(id: string, options: CallOptions = {}): Promise<operations.OrganizationFragment | null> {
    return (await this.#read(operations.OrganizationDocument, { id }, options)).organization;
  }

  /** An entity of your organization, or null. */
  async entity(id: string, options: CallOptions = {}): Promise<operations.EntityFragment | null> {
    return (await this.#read(operations.EntityDocument, { id }, options)).entity;
  }

  /** A template with its definition and workflow, or null. */
  async template(id: string, options: CallOptions = {}): Promise<operations.TemplateFragment | null> {
    return (await this.#read(operations.TemplateDocument, { id }, options)).template;
  }

  /**
   * A transaction, or null: the spec's reference fields (recipients with their entity, process revisions with their
   * items) and its state, the events it can take now, its template, processes, uploaded and signed files.
   */
  async transaction(id: string, options: CallOptions = {}): Promise<operations.TransactionFragment | null> {
    return (await this.#read(operations.TransactionDocument, { id }, options)).transaction;
  }

  /** A webhook endpoint, or null. */
  async webhookEndpoint(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.WebhookEndpointFragment | null> {
    return (await this.#read(operations.WebhookEndpointDocument, { id }, options)).webhookEndpoint;
  }

  /** A webhook delivery with its attempt log, or null. */
  async webhookDelivery(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.WebhookDeliveryFragment | null> {
    return (await this.#read(operations.WebhookDeliveryDocument, { id }, options)).webhookDelivery;
  }

  /** One item (form data) of a transaction, or null. */
  async transactionItem(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.TransactionItemFragment | null> {
    return (await this.#read(operations.TransactionItemDocument, { id }, options)).transactionItem;
  }

  /** A file a recipient uploaded, or null. */
  async transactionFile(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.TransactionFileFragment | null> {
    return (await this.#read(operations.TransactionFileDocument, { id }, options)).transactionFile;
  }

  /** A signed document, or null. */
  async transactionSignatureFile(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.TransactionSignatureFileFragment | null> {
    return (await this.#read(operations.TransactionSignatureFileDocument, { id }, options))
      .transactionSignatureFile;
  }

  /** A recipient of a transaction with its entity, or null. */
  async transactionRecipient(
    id: string,
    options: CallOptions = {},
  ): Promise<operations.TransactionRecipientFragment | null> {
    return (await this.#read(operations.TransactionRecipientDocument, { id }, options)).transactionRecipient;
  }

  /** A stored file; an unknown id throws `PorticoGraphQLError` with code NOT_FOUND. */
  async file(id: string, options: CallOptions = {}): Promise<operations.FileFragment> {
    return (await this.#read(operations.FileDocument, { id }, options)).file;
  }

  /**
   * Creates a transaction. It always carries an Idempotency-Key (`options.idempotencyKey`, else a new UUID), so a
   * retry after a network error or a 503 creates it once.
   */
  async createTransaction(
    input: operations.CreateTransactionInput,
    options: MutationOptions = {},
  ): Promise<operations.CreateTransactionMutation['createTransaction']> {
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return (
      await this.#mutate(operations.CreateTransactionDocument, { input }, { ...options, idempotencyKey })
    ).createTransaction;
  }

  /**
   * Moves a transaction along an event of its workflow; refused with INVALID_EVENT or REVISION_INCOMPLETE. It carries
   * an Idempotency-Key (given or new), so a retry runs the event once. A dry run (`dryRun: true`) changes nothing:
   * it is sent again freely, without a key (the server neither stores nor replays one).
   */
  async triggerTransactionEvent(
    input: operations.TriggerTransactionEventInput,
    options: MutationOptions = {},
  ): Promise<operations.TriggerTransactionEventMutation['triggerTransactionEvent']> {
    const document = operations.TriggerTransactionEventDocument;
    if (input.dryRun === true) {
      return (await this.#read(document, { input }, options)).triggerTransactionEvent;
    }
    const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
    return (await this.#mutate(document, { input }, { ...options, idempotencyKey })).triggerTransactionEvent;
  }

  /** Signs a document as the sender (e.g. a countersignature), by typed name with consent. */
  async signTransactionDocument(
    input: operations.SignTransactionDocumentInput,
    options: MutationOptions = {},
  ): Promise<operations.SignTransactionDocumentMutation['signTransactionDocument']> {
    return (await this.#mutate(operations.SignTransactionDocumentDocument, { input }, options))
      .signTransactionDocument;
  }

  /** Replaces a transaction's transmit token; the new one is returned once. */
  async resetTransmitToken(
    input: operations.ResetTransmitTokenInput,
    options: MutationOptions = {},
  ): Promise<operations.ResetTransmitTokenMutation['resetTransmitToken']> {
    return (await this.#mutate(operations.ResetTransmitTokenDocument, { input }, options)).resetTransmitToken;
  }

  /** A signed link to a TransactionFile or TransactionSignatureFile; see {@link downloadFile} to read it. */
  async genTransactionFileLink(
    input: operations.GenTransactionFileLinkInput,
    options: MutationOptions = {},
  ): Promise<operations.GenTransactionFileLinkMutation['genTransactionFileLink']> {
    return (await this.#mutate(operations.GenTransactionFileLinkDocument, { input }, options))
      .genTransactionFileLink;
  }

  /** A signed link to a transaction's evidence bundle (a zip). */
  async genEvidenceBundleLink(
    input: operations.GenEvidenceBundleLinkInput,
    options: MutationOptions = {},
  ): Promise<operations.GenEvidenceBundleLinkMutation['genEvidenceBundleLink']> {
    return (await this.#mutate(operations.GenEvidenceBundleLinkDocument, { input }, options))
      .genEvidenceBundleLink;
  }

  /** Creates an entity of your organization (e.g. another fund to send from). */
  async createEntity(
    input: operations.CreateEntityInput,
    options: MutationOptions = {},
  ): Promise<operations.EntityFragment> {
    return (await this.#mutate(operations.CreateEntityDocument, { input }, options)).createEntity.entity;
  }

  /** Changes an entity: only the fields given. */
  async updateEntity(
    input: operations.UpdateEntityInput,
    options: MutationOptions = {},
  ): Promise<operations.EntityFragment> {
    return (await this.#mutate(operations.UpdateEntityDocument, { input }, options)).updateEntity.entity;
  }

  /** Registers a webhook endpoint; the answer holds its signing secret, shown this once. */
  async createWebhookEndpoint(
    input: operations.CreateWebhookEndpointInput,
    options: MutationOptions = {},
  ): Promise<operations.CreateWebhookEndpointMutation['createWebhookEndpoint']> {
    return (await this.#mutate(operations.CreateWebhookEndpointDocument, { input }, options))
      .createWebhookEndpoint;
  }

  /** Changes an endpoint's URL, description or event types. */
  async updateWebhookEndpoint(
    input: operations.UpdateWebhookEndpointInput,
    options: MutationOptions = {},
  ): Promise<operations.WebhookEndpointFragment> {
    return (await this.#mutate(operations.UpdateWebhookEndpointDocument, { input }, options))
      .updateWebhookEndpoint.webhookEndpoint;
  }

  /** Stops deliveries to an endpoint. */
  async disableWebhookEndpoint(
    id: string,
    options: MutationOptions = {},
  ): Promise<operations.WebhookEndpointFragment> {
    return (await this.#mutate(operations.DisableWebhookEndpointDocument, { input: { id } }, options))
      .disableWebhookEndpoint.webhookEndpoint;
  }

  /** Starts deliveries to an endpoint again. */
  async enableWebhookEndpoint(
    id: string,
    options: MutationOptions = {},
  ): Promise<operations.WebhookEndpointFragment> {
    return (await this.#mutate(operations.EnableWebhookEndpointDocument, { input: { id } }, options))
      .enableWebhookEndpoint.webhookEndpoint;
  }

  /** Deletes an endpoint with its deliveries; returns the deleted endpoint's id. */
  async deleteWebhookEndpoint(id: string, options: MutationOptions = {}): Promise<string> {
    return (await this.#mutate(operations.DeleteWebhookEndpointDocument, { input: { id } }, options))
      .deleteWebhookEndpoint.deletedWebhookEndpointId;
  }

  /** Gives an endpoint a new signing secret, shown this once (the old one keeps signing for 24 hours). */
  async rotateWebhookEndpointSecret(
    id: string,
    options: MutationOptions = {},
  ): Promise<operations.RotateWebhookEndpointSecretMutation['rotateWebhookEndpointSecret']> {
    return (await this.#mutate(operations.RotateWebhookEndpointSecretDocument, { input: { id } }, options))
      .rotateWebhookEndpointSecret;
  }

  /** Sends a delivery again from the start of the retry schedule; returns how many were queued. */
  async resendWebhookDelivery(id: string, options: MutationOptions = {}): Promise<number> {
    return (await this.#mutate(operations.ResendWebhookDeliveryDocument, { input: { id } }, options))
      .resendWebhookDelivery.count;
  }

  /** Sends again every failed delivery of an endpoint since a time; returns how many were queued. */
  async resendFailedWebhookDeliveries(
    input: operations.ResendFailedWebhookDeliveriesInput,
    options: MutationOptions = {},
  ): Promise<number> {
    return (await this.#mutate(operations.ResendFailedWebhookDeliveriesDocument, { input }, options))
      .resendFailedWebhookDeliveries.count;
  }

  /**
   * Reads a file as a stream through a signed link: from the id of a TransactionFile or TransactionSignatureFile
   * (a link is made with `genTransactionFileLink`), or from a `File` (its `signedUrl`) or anything holding one as
   * `file`, as the client's selections return them. The link is its own credential: the key is not sent with it.
   *
   * @example
   * const { stream, filename } = await client.downloadFile(transaction.transactionSignatureFiles[0]);
   * await stream.pipeTo(Writable.toWeb(createWriteStream(filename ?? 'document.pdf')));
   */
  async downloadFile(
    source: FileSource,
    options: CallOptions & { expiresInSeconds?: number } = {},
  ): Promise<SignedFile> {
    let url: string;
    if (typeof source === 'string') {
      const link = await this.genTransactionFileLink(
        { transactionFileId: source, expiresInSeconds: options.expiresInSeconds },
        { ...options, idempotencyKey: newIdempotencyKey() },
      );
      url = link.url;
    } else {
      url = 'file' in source ? source.file.signedUrl : source.signedUrl;
    }
    return fetchSignedFile(url, { ...this.#transport, signal: options.signal });
  }
}
