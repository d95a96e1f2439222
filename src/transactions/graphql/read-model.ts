// Kept as one file: the map of every GraphQL type to its table, columns and relations, read whole by the
// selection compiler and held to schema.graphql by one test.
import type { Queryable } from '../../db/database.ts';

/**
 * GraphQL's read model: the SQL compiler behind every GraphQL read. `RESOURCES` and `RELATIONS` mirror the
 * types and relation fields of schema.graphql (a test holds them to it); `findById` and `listTransactions`
 * compile a query's selection tree into one statement.
 *
 * Each resource, named like its GraphQL type, is one table and the columns it shows, by field name, each an SQL
 * expression (unqualified: it binds to the resource's own table) already in the API's shape (enums upper-case). Every read takes the caller's organization and filters on it, so an id of
 * another organization finds nothing, exactly like an unknown id.
 */
export const RESOURCES = {
  Organization: {
    table: 'organizations',
    columns: {
      id: 'id',
      organizationId: 'id',
      handle: 'handle',
      name: 'name',
      createdAt: 'created_at',
    },
    tenantColumn: 'id',
  },
  Entity: {
    table: 'entities',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      name: 'name',
      email: 'email',
      type: 'upper(type)',
      settings: 'settings',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  Template: {
    table: 'templates',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      key: 'key',
      version: 'version',
      name: 'name',
      description: 'description',
      definition: 'definition',
      createdAt: 'created_at',
    },
  },
  Transaction: {
    table: 'transactions',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      templateId: 'template_id',
      senderEntityId: 'sender_entity_id',
      state: 'state',
      isComplete: 'completed_at is not null',
      inputData: 'input_data',
      noticeName: 'notice_name',
      noticeEmail: 'notice_email',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
      completedAt: 'completed_at',
      voidedAt: 'voided_at',
      voidReason: 'void_reason',
      // `id` binds to the transaction's row: the head's table has no column of that name.
      historyHead:
        "(select encode(h.head, 'hex') from transaction_history_heads h where h.transaction_id = id)",
    },
  },
  TransactionRecipient: {
    table: 'transaction_recipients',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      entityId: 'entity_id',
      vulcanKey: 'vulcan_key',
      createdAt: 'created_at',
    },
  },
  TransactionProcess: {
    table: 'transaction_processes',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      key: 'key',
      isComplete: 'completed_at is not null',
      createdAt: 'created_at',
      completedAt: 'completed_at',
    },
  },
  TransactionProcessRevision: {
    table: 'transaction_process_revisions',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionProcessId: 'transaction_process_id',
      transactionId: 'transaction_id',
      number: 'number',
      context: 'context',
      createdAt: 'created_at',
      committedAt: 'committed_at',
    },
  },
  TransactionItem: {
    table: 'transaction_items',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionProcessRevisionId: 'transaction_process_revision_id',
      transactionId: 'transaction_id',
      vulcanKey: 'vulcan_key',
      data: 'data',
      completionPercentage: 'completion_percentage',
      createdAt: 'created_at',
    },
  },
  File: {
    table: 'files',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      mimeType: 'mime_type',
      extension: 'extension',
      originalFilename: 'original_filename',
      overrideFilename: 'override_filename',
      storageKey: 'storage_key',
      createdAt: 'created_at',
      uploadedAt: 'uploaded_at',
    },
  },
  TransactionFile: {
    table: 'transaction_files',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      fileId: 'file_id',
      transactionRecipientId: 'transaction_recipient_id',
      vulcanKey: 'vulcan_key',
      createdAt: 'created_at',
    },
  },
  TransactionSignatureContainer: {
    table: 'transaction_signature_containers',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      transactionProcessId: 'transaction_process_id',
      documentKey: 'document_key',
      state: 'upper(state)',
      createdAt: 'created_at',
      completedAt: 'completed_at',
    },
  },
  TransactionSignature: {
    table: 'transaction_signatures',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionSignatureContainerId: 'transaction_signature_container_id',
      transactionRecipientId: 'transaction_recipient_id',
      state: 'upper(state)',
      signedName: 'signed_name',
      signedAt: 'signed_at',
      createdAt: 'created_at',
    },
  },
  TransactionSignatureFile: {
    table: 'transaction_signature_files',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      transactionSignatureContainerId: 'transaction_signature_container_id',
      fileId: 'file_id',
      createdAt: 'created_at',
    },
  },
  TransactionEvent: {
    table: 'transaction_events',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      transactionId: 'transaction_id',
      eventKey: 'event_key',
      sourceStateKey: 'source_state',
      targetStateKey: 'target_state',
      actorType: 'upper(actor_type)',
      actorId: 'actor_id',
      message: 'message',
      createdAt: 'created_at',
    },
  },
  WebhookEndpoint: {
    table: 'webhook_endpoints',
    // Never the secrets. Event types as the GraphQL enum spells them (transaction.completed → TRANSACTION_COMPLETED).
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      url: 'url',
      description: 'description',
      eventTypes: "array(select upper(replace(t, '.', '_')) from unnest(event_types) t)",
      enabled: 'disabled_at is null',
      disabledAt: 'disabled_at',
      disabledReason: 'disabled_reason',
      failingSince: 'failing_since',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
    },
  },
  WebhookDelivery: {
    table: 'webhook_deliveries',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      endpointId: 'endpoint_id',
      eventId: 'event_id',
      messageId: 'message_id',
      eventType: "upper(replace(event_type, '.', '_'))",
      payload: 'body::json',
      status: 'upper(status)',
      attempts: 'attempts',
      nextAttemptAt: 'next_attempt_at',
      createdAt: 'created_at',
      lastAttemptAt: 'last_attempt_at',
      deliveredAt: 'delivered_at',
    },
  },
  WebhookAttempt: {
    table: 'webhook_attempts',
    columns: {
      id: 'id',
      sequence: 'sequence',
      organizationId: 'organization_id',
      deliveryId: 'delivery_id',
      attemptedAt: 'attempted_at',
      createdAt: 'attempted_at',
      durationMs: 'duration_ms',
      statusCode: 'status_code',
      responseBody: 'response_body',
      error: 'error',
    },
  },
} as const satisfies Record<
  string,
  { table: string; columns: Record<string, string>; tenantColumn?: string }
>;

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

/**
 * What a read loads of a resource: the columns it shows, by field name (every column when absent), and the
 * relations to load with each row, each read the same way: `{ columns: ['id', 'state'], relations: {
 * transactionRecipients: { relations: { entity: { relations: {} } } } } }`.
 */
export interface Tree {
  columns?: readonly string[];
  relations: Readonly<Record<string, Tree>>;
}

/** A read of every column and no relation. */
export const EVERY_COLUMN: Tree = { relations: {} };

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

/** A column of a resource, named as its field: `organization_id as "organizationId"`. */
function namedColumn(resource: ResourceName, field: string): string {
  return `${(RESOURCES[resource].columns as Record<string, string>)[field]} as "${field}"`;
}

/** Every column of each resource, named as its field: `id as "id", organization_id as "organizationId", …`. */
const COLUMN_LISTS = Object.fromEntries(
  Object.keys(RESOURCES).map((resource) => [
    resource,
    Object.keys(RESOURCES[resource as ResourceName].columns)
      .map((field) => namedColumn(resource as ResourceName, field))
      .join(', '),
  ]),
) as Record<ResourceName, string>;

/**
 * The columns a read shows of a resource: those it names, in the resource's own order (so that two selections of
 * the same fields write the same statement), or every column.
 */
function columnList(resource: ResourceName, columns: readonly string[] | undefined): string {
  if (columns === undefined) return COLUMN_LISTS[resource];
  const named = new Set(columns);
  return Object.keys(RESOURCES[resource].columns)
    .filter((field) => named.has(field))
    .map((field) => namedColumn(resource, field))
    .join(', ');
}

/** The column that holds a resource's organization. */
export function tenantColumn(resource: ResourceName): string {
  const spec = RESOURCES[resource];
  return 'tenantColumn' in spec ? spec.tenantColumn : 'organization_id';
}

/**
 * The tenant check of a read by key: the row at `column` belongs to `organization`. Written `is not distinct
 * from` rather than `=` (the same for these non-null columns) so that it stays a filter on the rows the key finds
 * and never becomes the way to find them: PostgreSQL cannot take it as an index condition. With `=`, on tables
 * not yet analyzed (a new or small organization's), the planner would read every row of the organization
 * through its `organization_id` index and keep those of the parent, at every level of a nested read; the key is
 * always the more selective condition, and the check costs a comparison per row found.
 */
export function sameTenant(column: string, organization: string): string {
  return `${column} is not distinct from ${organization}`;
}

/**
 * The select list of a resource with its tree of relations as nested JSON: one statement reads a row and
 * everything the tree asks for. Column lists are unqualified and so bind to the innermost table; `alias`
 * names this level's table for the subqueries below it.
 */
function selectList(resource: ResourceName, tree: Tree, alias: string, depth: number): string {
  const parts: string[] = [columnList(resource, tree.columns)];
  const parentTenant = `${alias}.${tenantColumn(resource)}`;
  for (const [field, subtree] of Object.entries(tree.relations)) {
    const relation = RELATIONS[resource]?.[field];
    if (!relation) continue;
    const child = RESOURCES[relation.resource];
    const childAlias = `t${depth + 1}`;
    const inner = `select ${selectList(relation.resource, subtree, childAlias, depth + 1)} from ${child.table} ${childAlias}
      where ${sameTenant(`${childAlias}.${tenantColumn(relation.resource)}`, parentTenant)} and `;
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
 * The row with this id if it belongs to the organization, with the columns `tree` names and the relations it
 * asks for nested in it (see {@link relatedKey}), in one statement.
 *
 * @example
 * const transaction = await findById(db, 'Transaction', { id, organizationId }, {
 *   relations: { transactionRecipients: { columns: ['id', 'vulcanKey'], relations: { entity: EVERY_COLUMN } } },
 * });
 * transaction?.[relatedKey('transactionRecipients')]; // [{ id, vulcanKey, $entity: { id, name, … } }, …]
 */
export async function findById(
  db: Queryable,
  resource: ResourceName,
  options: { id: string; organizationId: string },
  tree: Tree = EVERY_COLUMN,
): Promise<Row | undefined> {
  const [row] = await db.query<Row>(findByIdStatement(resource, tree), [options.id, options.organizationId]);
  return row;
}

/**
 * Statements already written, by the tree they read: a query's trees are kept (see `treeOf`), and so the
 * statement's text is the very same string each time, which the prepared statements' map finds without
 * reading it through.
 */
const findByIdStatements = new WeakMap<Tree, Partial<Record<ResourceName, string>>>();

function findByIdStatement(resource: ResourceName, tree: Tree): string {
  let written = findByIdStatements.get(tree);
  if (written === undefined) {
    written = {};
    findByIdStatements.set(tree, written);
  }
  return (written[resource] ??=
    `select ${selectList(resource, tree, 't0', 0)} from ${RESOURCES[resource].table} t0
     where t0.id = $1 and ${sameTenant(`t0.${tenantColumn(resource)}`, '$2')}`);
}

/** The order of a list by creation time, as the GraphQL enum spells it. */
export type CreatedAtOrder = 'CREATED_AT_ASC' | 'CREATED_AT_DESC';

/**
 * A page of an organization's transactions, by creation time then insertion order, after the transaction `after`, each with
 * the columns and relations `tree` asks for.
 */
export async function listTransactions(
  db: Queryable,
  options: { organizationId: string; first: number; after?: string | undefined; orderBy: CreatedAtOrder },
  tree: Tree = EVERY_COLUMN,
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
