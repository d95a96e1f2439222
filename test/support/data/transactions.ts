import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Environment } from '../../../src/config.ts';
import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { createLocalFileStore } from '../../../src/files/local-file-store.ts';
import { buildTransactionsApp } from '../../../src/transactions/app.ts';
import { createTestDatabase, type TestDatabase } from '../db/database.ts';
import type { CloseAfterAll } from '../made-before-all.ts';

/** A file store in a temporary directory, removed by `cleanup`. */
export async function createTestFileStore(): Promise<{
  files: FileStore;
  dir: string;
  cleanup: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-files-'));
  return { files: createLocalFileStore(dir), dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A unique organization handle, so tests sharing a database never collide. */
export function uniqueHandle(prefix = 'org'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** The Transactions app on `db`, not listening; call it with `inject()`. */
export function transactionsApp(
  db: Database,
  files: FileStore,
  environment: Environment = 'staging',
): Promise<FastifyInstance> {
  return buildTransactionsApp({ db, files, environment });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
export interface GraphQLResponse<Data = Record<string, any>> {
  status: number;
  headers: Record<string, unknown>;
  body: {
    data?: Data | null;
    errors?: { message: string; path?: string[]; extensions: Record<string, unknown> }[];
  };
}

/** POSTs a GraphQL request to `/beta` with `Authorization: Bearer <key>` (no header when key is undefined). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
export async function graphql<Data = Record<string, any>>(
  app: FastifyInstance,
  key: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<Data>> {
  const response = await app.inject({
    method: 'POST',
    url: '/beta',
    headers: key === undefined ? headers : { ...headers, authorization: `Bearer ${key}` },
    payload: { query, variables },
  });
  return { status: response.statusCode, headers: response.headers, body: response.json() };
}

/**
 * A createTransaction input for an organization's example template that the domain accepts: a new investor with a
 * unique address and complete subscription data. `overrides` replace whole fields (`inputData` included).
 */
export function transactionInput(
  organization: { templateId: string; senderEntityId: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    templateId: organization.templateId,
    senderEntityId: organization.senderEntityId,
    noticeName: 'Ada Lovelace',
    noticeEmail: `ada.${randomUUID().slice(0, 8)}@example.com`,
    inputData: {
      subscription_amount: { amount: { currency: 'USD', amount: 100_000_000 } },
      tax_forms: { taxResidency: 'GB' },
    },
    ...overrides,
  };
}

/** The spec's reference query (part 4). */
export const REFERENCE_QUERY = `query ($id: uuid!) {
  transaction(id: $id) {
    id
    transactionRecipients { id vulcanKey entity { id name email settings type } }
    transactionProcessRevisions {
      id transactionProcessId createdAt committedAt context
      transactionItems { id completionPercentage createdAt data vulcanKey }
    }
  }
}`;

/**
 * The reference query's selection as a client may spell it, spread from a fragment under `@include`: the same
 * bytes, and read in one statement of the same plan.
 */
export const FRAGMENT_REFERENCE_QUERY = `query ($id: uuid!) {
  transaction(id: $id) { ...Reference @include(if: true) }
}
fragment Reference on Transaction {
  id
  transactionRecipients { id vulcanKey entity { id name email settings type } }
  transactionProcessRevisions {
    id transactionProcessId createdAt committedAt context
    transactionItems { id completionPercentage createdAt data vulcanKey }
  }
}`;

/** The spec's createTransaction mutation, selecting its whole payload. */
export const CREATE_TRANSACTION = `mutation ($input: CreateTransactionInput!) {
  createTransaction(input: $input) { transactionId transmitToken }
}`;

/** The spec's triggerTransactionEvent mutation, selecting its whole payload. */
export const TRIGGER_TRANSACTION_EVENT = `mutation ($input: TriggerTransactionEventInput!) {
  triggerTransactionEvent(input: $input) { sourceStateKey targetStateKey }
}`;

/**
 * Triggers `eventKey` on a transaction through the spec's mutation, with `key` (and any extra headers), and the
 * message the event takes, if any.
 */
export function triggerEvent(
  app: FastifyInstance,
  key: string,
  input: { transactionId: string; eventKey: string; message?: string },
  headers: Record<string, string> = {},
): Promise<GraphQLResponse> {
  return graphql(app, key, TRIGGER_TRANSACTION_EVENT, { input }, headers);
}

/**
 * The recipient agrees to use electronic records and signatures through their link (`POST /recipient/<token>/esign`),
 * as the portal asks before their first signature; it must succeed.
 */
export async function acceptDisclosure(
  app: FastifyInstance,
  token: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const response = await app.inject({
    method: 'POST',
    url: `/recipient/${token}/esign`,
    headers,
    payload: { act: 'consented' },
  });
  if (response.statusCode !== 200) throw new Error(response.body);
}

/**
 * The sponsor's side of a submitted subscription through the API: approve, then countersign the agreement as
 * `signedName`; each mutation must succeed. Returns the signed PDF, as stored.
 */
export async function approveAndCountersign(
  suite: { app: FastifyInstance; db: Database; files: FileStore },
  key: string,
  transactionId: string,
  signedName: string,
): Promise<Buffer> {
  for (const [query, input] of [
    [TRIGGER_TRANSACTION_EVENT, { eventKey: 'approve' }],
    [
      `mutation ($input: SignTransactionDocumentInput!) { signTransactionDocument(input: $input) { state } }`,
      { documentKey: 'subscription_agreement', signedName, consent: true },
    ],
  ] as const) {
    const { body } = await graphql(suite.app, key, query, { input: { transactionId, ...input } });
    if (body.errors) throw new Error(JSON.stringify(body.errors));
  }
  const [file] = await suite.db.query<{ storageKey: string }>(
    `select f.storage_key as "storageKey" from transaction_signature_files sf join files f on f.id = sf.file_id
     where sf.transaction_id = $1`,
    [transactionId],
  );
  const opened = await suite.files.open(file?.storageKey ?? '');
  const chunks: Buffer[] = [];
  for await (const chunk of opened?.stream ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A database and a file store of the test file's own, closed and removed after its tests. */
export async function testDatabaseAndFiles(
  closeAfterAll: CloseAfterAll,
): Promise<{ testDb: TestDatabase; db: Database; files: FileStore }> {
  const testDb = await createTestDatabase();
  closeAfterAll(() => testDb.close());
  const store = await createTestFileStore();
  closeAfterAll(store.cleanup);
  return { testDb, db: testDb.db, files: store.files };
}
