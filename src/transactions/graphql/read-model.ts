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

/** Every row read carries its id, the columns its read names, and the relations loaded with it. */
export interface Row {
  id: string;
  [column: string]: unknown;
}

/** Where a relation loaded with a row sits in it: rows nest their related rows (or null, or a list). */
export function relatedKey(field: string): string {
  return `$${field}`;
}

/**
 * The fields a read shows of a resource: those it names, in the resource's own order (so that two selections of
 * the same fields write the same statement), or every one.
 */
function columnsOf(resource: ResourceName, columns: readonly string[] | undefined): string[] {
  const all = Object.keys(RESOURCES[resource].columns);
  if (columns === undefined) return all;
  const named = new Set(columns);
  return all.filter((field) => named.has(field));
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
 * The subquery that reads a relation of the row aliased `parent.alias`, from the related table aliased
 * `childAlias`: the related row's `select` (one JSON array of its values), the oldest such row's for `first`, or
 * those of every related row in creation order as one JSON array for `many` (`[]` when there is none). The
 * related rows are the parent's organization's only.
 */
export function relationSubquery(
  parent: { alias: string; resource: ResourceName },
  relation: Relation,
  childAlias: string,
  select: string,
): string {
  const child = RESOURCES[relation.resource];
  const from = `from ${child.table} ${childAlias}
      where ${sameTenant(`${childAlias}.${tenantColumn(relation.resource)}`, `${parent.alias}.${tenantColumn(parent.resource)}`)} and`;
  const order = `${childAlias}.${child.columns.createdAt}, ${childAlias}.sequence`;
  switch (relation.kind) {
    case 'one':
      return `(select ${select} ${from} ${childAlias}.id = ${parent.alias}.${relation.foreignKey})`;
    case 'first':
      return `(select ${select} ${from} ${childAlias}.${relation.column} = ${parent.alias}.id
        order by ${order} limit 1)`;
    case 'many':
      return `(select coalesce(json_agg(${select} order by ${order}), '[]'::json) ${from}
        ${childAlias}.${relation.column} = ${parent.alias}.id)`;
  }
}

/**
 * How a related row, read as a JSON array (see {@link selectList}), becomes a row: its fields in the array's
 * order, then its relations, each under its {@link relatedKey}.
 */
interface RowShape {
  fields: readonly string[];
  relations: readonly { key: string; many: boolean; shape: RowShape }[];
}

/** A statement's select list and the shape of what it reads. */
interface SelectList {
  sql: string;
  shape: RowShape;
}

/**
 * The select list of a resource with its tree of relations: one statement reads a row and everything the tree
 * asks for. The row's own columns are named as their fields; each related row is a JSON array of its values by
 * position (`json_build_array`), and each list of them a JSON array of those in creation order, which
 * {@link rowsOf} gives their keys: PostgreSQL writes and the server parses no key per value. Column lists are
 * unqualified and so bind to the innermost table; `alias` names this level's table for the subqueries below it.
 */
function selectList(resource: ResourceName, tree: Tree, alias: string, depth: number): SelectList {
  const own = RESOURCES[resource].columns as Record<string, string>;
  const fields = columnsOf(resource, tree.columns);
  const expressions = fields.map((field) => (depth === 0 ? `${own[field]} as "${field}"` : own[field]));
  const relations: RowShape['relations'][number][] = [];
  for (const [field, subtree] of Object.entries(tree.relations)) {
    const relation = RELATIONS[resource]?.[field];
    if (!relation) continue;
    const childAlias = `t${depth + 1}`;
    const inner = selectList(relation.resource, subtree, childAlias, depth + 1);
    const key = relatedKey(field);
    const subquery = relationSubquery({ alias, resource }, relation, childAlias, inner.sql);
    expressions.push(depth === 0 ? `${subquery} as "${key}"` : subquery);
    relations.push({ key, many: relation.kind === 'many', shape: inner.shape });
  }
  return {
    sql: depth === 0 ? expressions.join(',\n    ') : `json_build_array(${expressions.join(', ')})`,
    shape: { fields, relations },
  };
}

/** A related row read as a JSON array, given its keys (and its own related rows theirs). */
function relatedRow(values: readonly unknown[], shape: RowShape): Row {
  const row: Record<string, unknown> = {};
  const { fields, relations } = shape;
  for (let index = 0; index < fields.length; index++) row[fields[index] as string] = values[index];
  for (let index = 0; index < relations.length; index++) {
    const relation = relations[index] as RowShape['relations'][number];
    row[relation.key] = related(values[fields.length + index], relation);
  }
  return row as Row;
}

function related(value: unknown, relation: RowShape['relations'][number]): unknown {
  if (value === null || value === undefined) return null;
  return relation.many
    ? (value as unknown[][]).map((values) => relatedRow(values, relation.shape))
    : relatedRow(value as unknown[], relation.shape);
}

/** The rows a statement of {@link selectList} read, each with its related rows given their keys. */
function rowsOf(rows: Row[], shape: RowShape): Row[] {
  if (shape.relations.length === 0) return rows;
  for (const row of rows) {
    for (const relation of shape.relations) row[relation.key] = related(row[relation.key], relation);
  }
  return rows;
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
  const { sql, shape } = statementOf(
    resource,
    tree,
    resource,
    (list) => `select ${list} from ${RESOURCES[resource].table} t0
     where t0.id = $1 and ${sameTenant(`t0.${tenantColumn(resource)}`, '$2')}`,
  );
  const [row] = rowsOf(await db.query<Row>(sql, [options.id, options.organizationId]), shape);
  return row;
}

/**
 * Statements already written, by the tree they read, then by what else their text depends on (the resource read
 * by id; a page's order and seek): a query's trees are kept (see `treeOf`), and so the statement's text is the
 * very same string each time, which the prepared statements' map finds without reading it through.
 */
const statements = new WeakMap<Tree, Map<string, SelectList>>();

/** The statement `key` that reads `tree` of `resource`, written once by `write` around its select list. */
function statementOf(
  resource: ResourceName,
  tree: Tree,
  key: string,
  write: (selectList: string) => string,
): SelectList {
  let written = statements.get(tree);
  if (written === undefined) {
    written = new Map();
    statements.set(tree, written);
  }
  let statement = written.get(key);
  if (statement === undefined) {
    const list = selectList(resource, tree, 't0', 0);
    statement = { sql: write(list.sql), shape: list.shape };
    written.set(key, statement);
  }
  return statement;
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
  const after = options.after !== undefined;
  const direction = options.orderBy === 'CREATED_AT_DESC' ? 'desc' : 'asc';
  // Seek from the cursor's own row: exact to the microsecond, and a cursor naming another organization's
  // transaction finds no row and so no page.
  const { sql, shape } = statementOf('Transaction', tree, `page ${direction} ${String(after)}`, (list) => {
    const seek = after
      ? `and (t0.created_at, t0.sequence) ${direction === 'desc' ? '<' : '>'} (
      select created_at, sequence from transactions where id = $3 and organization_id = $1)`
      : '';
    return `select ${list} from transactions t0
       where t0.organization_id = $1 ${seek}
       order by t0.created_at ${direction}, t0.sequence ${direction} limit $2`;
  });
  const params = [options.organizationId, options.first + 1, ...(after ? [options.after] : [])];
  const rows = rowsOf(await db.query<Row>(sql, params), shape);
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
