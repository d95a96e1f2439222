import type { Queryable } from '../../db/database.ts';

/**
 * GraphQL's read model: the SQL compiler behind every GraphQL read. `RESOURCES` and `RELATIONS` mirror the
 * types and relation fields of schema.graphql (a test holds them to it); `findById` and `listTransactions`
 * compile a query's selection tree into one statement.
 *
 * Each resource, named like its GraphQL type, is one table and the columns it shows, already in the API's shape
 * (camelCase, enums upper-case). Every read takes the caller's organization and filters on it, so an id of
 * another organization finds nothing, exactly like an unknown id.
 */
export const RESOURCES = {
  Organization: {
    table: 'organizations',
    columns: `id, id as "organizationId", handle, name, created_at as "createdAt"`,
    tenantColumn: 'id',
  },
  Entity: {
    table: 'entities',
    columns: `id, sequence, organization_id as "organizationId", name, email, upper(type) as type, settings,
      created_at as "createdAt", updated_at as "updatedAt"`,
  },
  Template: {
    table: 'templates',
    columns: `id, sequence, organization_id as "organizationId", key, version, name, description, definition,
      created_at as "createdAt"`,
  },
  Transaction: {
    table: 'transactions',
    columns: `id, sequence, organization_id as "organizationId", template_id as "templateId",
      sender_entity_id as "senderEntityId", state, completed_at is not null as "isComplete", input_data as "inputData",
      notice_name as "noticeName", notice_email as "noticeEmail", created_at as "createdAt",
      updated_at as "updatedAt", completed_at as "completedAt"`,
  },
  TransactionRecipient: {
    table: 'transaction_recipients',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId", entity_id as "entityId",
      vulcan_key as "vulcanKey", created_at as "createdAt"`,
  },
  TransactionProcess: {
    table: 'transaction_processes',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId", key,
      completed_at is not null as "isComplete", created_at as "createdAt", completed_at as "completedAt"`,
  },
  TransactionProcessRevision: {
    table: 'transaction_process_revisions',
    columns: `id, sequence, organization_id as "organizationId", transaction_process_id as "transactionProcessId",
      transaction_id as "transactionId", number, context, created_at as "createdAt", committed_at as "committedAt"`,
  },
  TransactionItem: {
    table: 'transaction_items',
    columns: `id, sequence, organization_id as "organizationId",
      transaction_process_revision_id as "transactionProcessRevisionId", transaction_id as "transactionId",
      vulcan_key as "vulcanKey", data, completion_percentage as "completionPercentage", created_at as "createdAt"`,
  },
  File: {
    table: 'files',
    columns: `id, sequence, organization_id as "organizationId", mime_type as "mimeType", extension,
      original_filename as "originalFilename", override_filename as "overrideFilename", storage_key as "storageKey",
      created_at as "createdAt", uploaded_at as "uploadedAt"`,
  },
  TransactionFile: {
    table: 'transaction_files',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId", file_id as "fileId",
      transaction_recipient_id as "transactionRecipientId", vulcan_key as "vulcanKey", created_at as "createdAt"`,
  },
  TransactionSignatureContainer: {
    table: 'transaction_signature_containers',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId",
      transaction_process_id as "transactionProcessId", document_key as "documentKey", upper(state) as state,
      created_at as "createdAt", completed_at as "completedAt"`,
  },
  TransactionSignature: {
    table: 'transaction_signatures',
    columns: `id, sequence, organization_id as "organizationId",
      transaction_signature_container_id as "transactionSignatureContainerId",
      transaction_recipient_id as "transactionRecipientId", upper(state) as state, signed_name as "signedName",
      signed_at as "signedAt", created_at as "createdAt"`,
  },
  TransactionSignatureFile: {
    table: 'transaction_signature_files',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId",
      transaction_signature_container_id as "transactionSignatureContainerId", file_id as "fileId",
      created_at as "createdAt"`,
  },
  TransactionEvent: {
    table: 'transaction_events',
    columns: `id, sequence, organization_id as "organizationId", transaction_id as "transactionId", event_key as "eventKey",
      source_state as "sourceStateKey", target_state as "targetStateKey", upper(actor_type) as "actorType",
      actor_id as "actorId", created_at as "createdAt"`,
  },
  WebhookEndpoint: {
    table: 'webhook_endpoints',
    // Never the secrets. Event types as the GraphQL enum spells them (transaction.completed → TRANSACTION_COMPLETED).
    columns: `id, sequence, organization_id as "organizationId", url, description,
      array(select upper(replace(t, '.', '_')) from unnest(event_types) t) as "eventTypes",
      disabled_at is null as enabled, disabled_at as "disabledAt", disabled_reason as "disabledReason",
      failing_since as "failingSince", created_at as "createdAt", updated_at as "updatedAt"`,
  },
  WebhookDelivery: {
    table: 'webhook_deliveries',
    columns: `id, sequence, organization_id as "organizationId", endpoint_id as "endpointId",
      event_id as "eventId", message_id as "messageId", upper(replace(event_type, '.', '_')) as "eventType",
      body::json as payload, upper(status) as status, attempts, next_attempt_at as "nextAttemptAt",
      created_at as "createdAt", last_attempt_at as "lastAttemptAt", delivered_at as "deliveredAt"`,
  },
  WebhookAttempt: {
    table: 'webhook_attempts',
    columns: `id, sequence, organization_id as "organizationId", delivery_id as "deliveryId",
      attempted_at as "attemptedAt", attempted_at as "createdAt", duration_ms as "durationMs",
      status_code as "statusCode", response_body as "responseBody", error`,
  },
} as const satisfies Record<string, { table: string; columns: string; tenantColumn?: string }>;

/** A resource of the read model, named like its GraphQL type. */
export type ResourceName = keyof typeof RESOURCES;

/**
 * How resources hang together. `many`: the child rows whose `column` holds the parent's id, oldest first (by
 * creation time, then insertion order).
 * `one`: the row the parent's `foreignKey` points to. `first`: the oldest child row whose `column` holds the
 * parent's id, or null.
 */
export type Relation =
  | { kind: 'many'; resource: ResourceName; column: string }
  | { kind: 'first'; resource: ResourceName; column: string }
  | { kind: 'one'; resource: ResourceName; foreignKey: string };

const many = (resource: ResourceName, column: string): Relation => ({ kind: 'many', resource, column });
const one = (resource: ResourceName, foreignKey: string): Relation => ({ kind: 'one', resource, foreignKey });

/** The relations of each resource, by the name of the field that shows them. */
export const RELATIONS: Partial<Record<ResourceName, Record<string, Relation>>> = {
  Organization: {
    templates: many('Template', 'organization_id'),
    entities: many('Entity', 'organization_id'),
    webhookEndpoints: many('WebhookEndpoint', 'organization_id'),
  },
  WebhookEndpoint: {
    deliveries: many('WebhookDelivery', 'endpoint_id'),
  },
  WebhookDelivery: {
    endpoint: one('WebhookEndpoint', 'endpoint_id'),
    attemptLog: many('WebhookAttempt', 'delivery_id'),
  },
  Transaction: {
    template: one('Template', 'template_id'),
    organization: one('Organization', 'organization_id'),
    senderEntity: one('Entity', 'sender_entity_id'),
    transactionRecipients: many('TransactionRecipient', 'transaction_id'),
    transactionProcesses: many('TransactionProcess', 'transaction_id'),
    transactionProcessRevisions: many('TransactionProcessRevision', 'transaction_id'),
    transactionItems: many('TransactionItem', 'transaction_id'),
    transactionFiles: many('TransactionFile', 'transaction_id'),
    transactionSignatureContainers: many('TransactionSignatureContainer', 'transaction_id'),
    transactionSignatureFiles: many('TransactionSignatureFile', 'transaction_id'),
    events: many('TransactionEvent', 'transaction_id'),
  },
  TransactionRecipient: { entity: one('Entity', 'entity_id') },
  TransactionProcess: {
    transactionProcessRevisions: many('TransactionProcessRevision', 'transaction_process_id'),
    transactionSignatureContainers: many('TransactionSignatureContainer', 'transaction_process_id'),
  },
  TransactionProcessRevision: {
    transactionItems: many('TransactionItem', 'transaction_process_revision_id'),
  },
  TransactionFile: {
    file: one('File', 'file_id'),
    transactionRecipient: one('TransactionRecipient', 'transaction_recipient_id'),
  },
  TransactionSignatureContainer: {
    transactionSignatures: many('TransactionSignature', 'transaction_signature_container_id'),
    transactionSignatureFile: {
      kind: 'first',
      resource: 'TransactionSignatureFile',
      column: 'transaction_signature_container_id',
    },
  },
  TransactionSignature: { transactionRecipient: one('TransactionRecipient', 'transaction_recipient_id') },
  TransactionSignatureFile: {
    file: one('File', 'file_id'),
    transactionSignatureContainer: one('TransactionSignatureContainer', 'transaction_signature_container_id'),
  },
};

/** The relations to load with a row, and theirs in turn: `{ transactionRecipients: { entity: {} } }`. */
export interface Tree {
  [field: string]: Tree;
}

/** Every row read carries its id, its organization and its creation time, and the relations loaded with it. */
export interface Row {
  id: string;
  organizationId: string;
  createdAt: Date | string;
  [column: string]: unknown;
}

/** Where a relation loaded with a row sits in it: rows nest their related rows (or null, or a list). */
export function relatedKey(field: string): string {
  return `$${field}`;
}

function tenantColumn(resource: ResourceName): string {
  const spec = RESOURCES[resource];
  return 'tenantColumn' in spec ? spec.tenantColumn : 'organization_id';
}

/**
 * The select list of a resource with its tree of relations as nested JSON: one statement reads a row and
 * everything the tree asks for. Column lists are unqualified and so bind to the innermost table; `alias`
 * names this level's table for the subqueries below it.
 */
function selectList(resource: ResourceName, tree: Tree, alias: string, depth: number): string {
  const parts: string[] = [RESOURCES[resource].columns];
  const parentTenant = `${alias}.${tenantColumn(resource)}`;
  for (const [field, subtree] of Object.entries(tree)) {
    const relation = RELATIONS[resource]?.[field];
    if (!relation) continue;
    const child = RESOURCES[relation.resource];
    const childAlias = `t${depth + 1}`;
    const inner = `select ${selectList(relation.resource, subtree, childAlias, depth + 1)} from ${child.table} ${childAlias}
      where ${childAlias}.${tenantColumn(relation.resource)} = ${parentTenant} and `;
    const key = relatedKey(field);
    if (relation.kind === 'one') {
      parts.push(
        `(select row_to_json(r) from (${inner} ${childAlias}.id = ${alias}.${relation.foreignKey}) r) as "${key}"`,
      );
    } else if (relation.kind === 'first') {
      parts.push(`(select row_to_json(r) from (${inner} ${childAlias}.${relation.column} = ${alias}.id
        order by ${childAlias}.created_at, ${childAlias}.sequence limit 1) r) as "${key}"`);
    } else {
      parts.push(`(select coalesce(json_agg(r order by r."createdAt", r.sequence), '[]'::json) from (${inner}
        ${childAlias}.${relation.column} = ${alias}.id) r) as "${key}"`);
    }
  }
  return parts.join(',\n    ');
}

/**
 * The row with this id if it belongs to the organization, with the relations `tree` asks for nested in it
 * (see {@link relatedKey}), in one statement.
 *
 * @example
 * const transaction = await findById(db, 'Transaction', { id, organizationId }, { transactionRecipients: { entity: {} } });
 * transaction?.[relatedKey('transactionRecipients')]; // [{ id, vulcanKey, …, $entity: { id, name, … } }, …]
 */
export async function findById(
  db: Queryable,
  resource: ResourceName,
  options: { id: string; organizationId: string },
  tree: Tree = {},
): Promise<Row | undefined> {
  const [row] = await db.query<Row>(
    `select ${selectList(resource, tree, 't0', 0)} from ${RESOURCES[resource].table} t0
     where t0.id = $1 and t0.${tenantColumn(resource)} = $2`,
    [options.id, options.organizationId],
  );
  return row;
}

/** The order of a list by creation time, as the GraphQL enum spells it. */
export type CreatedAtOrder = 'CREATED_AT_ASC' | 'CREATED_AT_DESC';

/**
 * A page of an organization's transactions, by creation time then insertion order, after the transaction `after`, each with
 * the relations `tree` asks for.
 */
export async function listTransactions(
  db: Queryable,
  options: { organizationId: string; first: number; after?: string | undefined; orderBy: CreatedAtOrder },
  tree: Tree = {},
): Promise<{ rows: Row[]; hasNextPage: boolean }> {
  const descending = options.orderBy === 'CREATED_AT_DESC';
  const direction = descending ? 'desc' : 'asc';
  const comparison = descending ? '<' : '>';
  const params: unknown[] = [options.organizationId, options.first + 1];
  let seek = '';
  if (options.after !== undefined) {
    params.push(options.after);
    // Seek from the cursor's own row: exact to the microsecond, and a cursor naming another
    // organization's transaction finds no row and so no page.
    seek = `and (t0.created_at, t0.sequence) ${comparison} (
      select created_at, sequence from transactions where id = $3 and organization_id = $1)`;
  }
  const rows = await db.query<Row>(
    `select ${selectList('Transaction', tree, 't0', 0)} from transactions t0
     where t0.organization_id = $1 ${seek}
     order by t0.created_at ${direction}, t0.sequence ${direction} limit $2`,
    params,
  );
  return { rows: rows.slice(0, options.first), hasNextPage: rows.length > options.first };
}

/** How many transactions the organization has (`TransactionConnection.totalCount`). */
export async function countTransactions(db: Queryable, organizationId: string): Promise<number> {
  const [row] = await db.query<{ count: string }>(
    'select count(*) as count from transactions where organization_id = $1',
    [organizationId],
  );
  return Number(row?.count ?? 0);
}

/**
 * The file behind a transaction file of the organization, whichever kind it is (a `TransactionFile` or a
 * `TransactionSignatureFile`: `genTransactionFileLink` takes the id of either), or undefined.
 */
export async function findFileOfTransactionFile(
  db: Queryable,
  options: { id: string; organizationId: string },
): Promise<Row | undefined> {
  const holder =
    (await findById(db, 'TransactionFile', options)) ??
    (await findById(db, 'TransactionSignatureFile', options));
  return holder
    ? findById(db, 'File', { id: holder.fileId as string, organizationId: options.organizationId })
    : undefined;
}
