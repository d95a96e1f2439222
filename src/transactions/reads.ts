import type { Queryable } from '../db/database.ts';

/**
 * The read side of the Transactions domain. Each resource is one table and the columns it shows, already in
 * the API's shape (camelCase, enums upper-case). Every read takes the caller's organization and filters on it,
 * so an id of another organization finds nothing, exactly like an unknown id.
 */
export const RESOURCES = {
  organization: {
    table: 'organizations',
    columns: `id, id as "organizationId", handle, name, created_at as "createdAt"`,
    tenantColumn: 'id',
  },
  entity: {
    table: 'entities',
    columns: `id, organization_id as "organizationId", name, email, upper(type) as type, settings,
      created_at as "createdAt", updated_at as "updatedAt"`,
  },
  template: {
    table: 'templates',
    columns: `id, organization_id as "organizationId", key, version, name, description, definition,
      created_at as "createdAt"`,
  },
  transaction: {
    table: 'transactions',
    columns: `id, organization_id as "organizationId", template_id as "templateId",
      sender_entity_id as "senderEntityId", state, completed_at is not null as "isComplete", input_data as "inputData",
      notice_name as "noticeName", notice_email as "noticeEmail", created_at as "createdAt",
      updated_at as "updatedAt", completed_at as "completedAt"`,
  },
  recipient: {
    table: 'transaction_recipients',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId", entity_id as "entityId",
      vulcan_key as "vulcanKey", created_at as "createdAt"`,
  },
  process: {
    table: 'transaction_processes',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId", key,
      completed_at is not null as "isComplete", created_at as "createdAt", completed_at as "completedAt"`,
  },
  revision: {
    table: 'transaction_process_revisions',
    columns: `id, organization_id as "organizationId", transaction_process_id as "transactionProcessId",
      transaction_id as "transactionId", number, context, created_at as "createdAt", committed_at as "committedAt"`,
  },
  item: {
    table: 'transaction_items',
    columns: `id, organization_id as "organizationId",
      transaction_process_revision_id as "transactionProcessRevisionId", transaction_id as "transactionId",
      vulcan_key as "vulcanKey", data, completion_percentage as "completionPercentage", created_at as "createdAt"`,
  },
  file: {
    table: 'files',
    columns: `id, organization_id as "organizationId", mime_type as "mimeType", extension,
      original_filename as "originalFilename", override_filename as "overrideFilename", storage_key as "storageKey",
      created_at as "createdAt", uploaded_at as "uploadedAt"`,
  },
  transactionFile: {
    table: 'transaction_files',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId", file_id as "fileId",
      transaction_recipient_id as "transactionRecipientId", vulcan_key as "vulcanKey", created_at as "createdAt"`,
  },
  signatureContainer: {
    table: 'transaction_signature_containers',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId",
      transaction_process_id as "transactionProcessId", document_key as "documentKey", upper(state) as state,
      created_at as "createdAt", completed_at as "completedAt"`,
  },
  signature: {
    table: 'transaction_signatures',
    columns: `id, organization_id as "organizationId",
      transaction_signature_container_id as "transactionSignatureContainerId",
      transaction_recipient_id as "transactionRecipientId", upper(state) as state, signed_name as "signedName",
      signed_at as "signedAt", created_at as "createdAt"`,
  },
  signatureFile: {
    table: 'transaction_signature_files',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId",
      transaction_signature_container_id as "transactionSignatureContainerId", file_id as "fileId",
      created_at as "createdAt"`,
  },
  event: {
    table: 'transaction_events',
    columns: `id, organization_id as "organizationId", transaction_id as "transactionId", event_key as "eventKey",
      source_state as "sourceStateKey", target_state as "targetStateKey", upper(actor_type) as "actorType",
      actor_id as "actorId", created_at as "createdAt"`,
  },
} as const satisfies Record<string, { table: string; columns: string; tenantColumn?: string }>;

export type ResourceName = keyof typeof RESOURCES;

/** Every row read carries its id, its organization and its creation time. */
export interface Row {
  id: string;
  organizationId: string;
  createdAt: Date;
  [column: string]: unknown;
}

function tenantColumn(resource: ResourceName): string {
  const spec = RESOURCES[resource];
  return 'tenantColumn' in spec ? spec.tenantColumn : 'organization_id';
}

/** The rows with these ids that belong to the organization, by id. */
export async function findByIds(
  db: Queryable,
  resource: ResourceName,
  options: { ids: readonly string[]; organizationId: string },
): Promise<Map<string, Row>> {
  const { table, columns } = RESOURCES[resource];
  if (options.ids.length === 0) return new Map();
  const rows = await db.query<Row>(
    `select ${columns} from ${table} where id = any($1::uuid[]) and ${tenantColumn(resource)} = $2`,
    [options.ids, options.organizationId],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The row with this id if it belongs to the organization. */
export async function findById(
  db: Queryable,
  resource: ResourceName,
  options: { id: string; organizationId: string },
): Promise<Row | undefined> {
  return (await findByIds(db, resource, { ids: [options.id], organizationId: options.organizationId })).get(
    options.id,
  );
}

/**
 * The rows whose `parentColumn` is one of `parentIds`, grouped by parent, each group oldest first
 * (creation time, then id). One query for any number of parents.
 */
export async function listByParents(
  db: Queryable,
  resource: ResourceName,
  parentColumn: string,
  options: { parentIds: readonly string[]; organizationId: string },
): Promise<Map<string, Row[]>> {
  const { table, columns } = RESOURCES[resource];
  const groups = new Map<string, Row[]>(options.parentIds.map((id) => [id, []]));
  if (options.parentIds.length === 0) return groups;
  const rows = await db.query<Row & { parentId: string }>(
    `select ${columns}, ${parentColumn} as "parentId" from ${table}
     where ${parentColumn} = any($1::uuid[]) and ${tenantColumn(resource)} = $2
     order by created_at, id`,
    [options.parentIds, options.organizationId],
  );
  for (const { parentId, ...row } of rows) groups.get(parentId)?.push(row);
  return groups;
}

export type CreatedAtOrder = 'CREATED_AT_ASC' | 'CREATED_AT_DESC';

/** A page of an organization's transactions, by creation time then id, after the transaction `after`. */
export async function listTransactions(
  db: Queryable,
  options: { organizationId: string; first: number; after?: string | undefined; orderBy: CreatedAtOrder },
): Promise<{ rows: Row[]; hasNextPage: boolean }> {
  const { columns } = RESOURCES.transaction;
  const descending = options.orderBy === 'CREATED_AT_DESC';
  const direction = descending ? 'desc' : 'asc';
  const comparison = descending ? '<' : '>';
  const params: unknown[] = [options.organizationId, options.first + 1];
  let seek = '';
  if (options.after !== undefined) {
    params.push(options.after);
    // Seek from the cursor's own row: exact to the microsecond, and a cursor naming another
    // organization's transaction finds no row and so no page.
    seek = `and (created_at, id) ${comparison} (
      select created_at, id from transactions where id = $3 and organization_id = $1)`;
  }
  const rows = await db.query<Row>(
    `select ${columns} from transactions where organization_id = $1 ${seek}
     order by created_at ${direction}, id ${direction} limit $2`,
    params,
  );
  return { rows: rows.slice(0, options.first), hasNextPage: rows.length > options.first };
}

export async function countTransactions(db: Queryable, organizationId: string): Promise<number> {
  const [row] = await db.query<{ count: string }>(
    'select count(*) as count from transactions where organization_id = $1',
    [organizationId],
  );
  return Number(row?.count ?? 0);
}
