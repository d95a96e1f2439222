import type { Transaction } from '../db/database.ts';
import { itemRules } from './templates/item-data.ts';
import type { Subject } from './subject.ts';
import type { TemplateDefinition, WorkflowAction } from './templates/schema.ts';

/**
 * Revisions: a process holds its items in numbered revisions. The workflow's actions create processes (their
 * first revision, prefilled from the transaction's inputData), open new revisions (carrying the latest data
 * forward, voiding the signatures made on the old one) and add sender recipients.
 */

function itemsOf(definition: TemplateDefinition, processKey: string) {
  return definition.processes.find((process) => process.key === processKey)?.items ?? [];
}

/** The items of a new revision of a process, as the statements below take them: data and completion. */
function itemRows(
  subject: Subject,
  processKey: string,
  dataFor: (vulcanKey: string) => { data: unknown; consents?: unknown } | undefined,
): string {
  const items = itemsOf(subject.definition, processKey).map((item) => {
    const carried = dataFor(item.vulcanKey);
    const data = carried?.data ?? {};
    return {
      vulcanKey: item.vulcanKey,
      data,
      consents: carried?.consents ?? {},
      completion: itemRules(item).completion(data),
    };
  });
  return JSON.stringify(items);
}

/**
 * The part of a statement that inserts revision `$4` of the process `process` (a CTE of it, with an `id`) and
 * its items (`$6`, from {@link itemRows}) in the template's order (their sequence follows it).
 */
const REVISION_WITH_ITEMS = `
  revision as (
    insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number, context)
    select $1, process.id, $3, $4, $5 from process returning id),
  items as (
    insert into transaction_items
      (organization_id, transaction_process_revision_id, transaction_id, vulcan_key, data, consents, completion_percentage)
    select $1, revision.id, $3, item->>'vulcanKey', item->'data', item->'consents', (item->>'completion')::int
    from revision, jsonb_array_elements($6::jsonb) with ordinality as items(item, position) order by position)`;

/** Opens revision `number` of an existing process with one item per template item, in one statement. */
async function openRevision(
  tx: Transaction,
  subject: Subject,
  process: { id: string; key: string },
  number: number,
  context: Record<string, unknown>,
  dataFor: (vulcanKey: string) => { data: unknown; consents: unknown } | undefined,
): Promise<void> {
  await tx.query(`with process as (select $2::uuid as id), ${REVISION_WITH_ITEMS} select 1`, [
    subject.organizationId,
    process.id,
    subject.id,
    number,
    context,
    itemRows(subject, process.key, dataFor),
  ]);
}

/**
 * Creates a process with its first revision (prefilled from the transaction's inputData) unless the process
 * exists, in one statement; whether it created it.
 */
async function createProcess(
  tx: Transaction,
  subject: Subject,
  key: string,
  reason: string,
): Promise<boolean> {
  const rows = await tx.query(
    `with process as (
       insert into transaction_processes (organization_id, transaction_id, key) values ($1, $3, $2)
       on conflict (transaction_id, key) do nothing returning id),
     ${REVISION_WITH_ITEMS}
     select id from process`,
    [
      subject.organizationId,
      key,
      subject.id,
      1,
      { reason },
      // inputData never gives a consent (create-transaction.ts refuses one): only the recipient does.
      itemRows(subject, key, (k) => ({ data: subject.inputData[k] })),
    ],
  );
  return rows.length > 0;
}

/** Opens the next revision of an existing process: the latest data carried forward, its signatures voided. */
async function openNextRevision(
  tx: Transaction,
  subject: Subject,
  process: { id: string; key: string },
  reason: string,
): Promise<void> {
  // New items carrying the latest data forward; earlier revisions stay as they were.
  // Consents go with the data they confirmed, keeping the time they were given.
  const latest = await tx.query<{ number: number; vulcanKey: string; data: unknown; consents: unknown }>(
    `select r.number, i.vulcan_key as "vulcanKey", i.data, i.consents
     from transaction_process_revisions r left join transaction_items i on i.transaction_process_revision_id = r.id
     where r.transaction_process_id = $1 and r.number = (
       select max(number) from transaction_process_revisions where transaction_process_id = $1)`,
    [process.id],
  );
  const data = new Map(latest.map((row) => [row.vulcanKey, row]));
  await openRevision(tx, subject, process, (latest[0]?.number ?? 0) + 1, { reason }, (k) => data.get(k));
  await tx.query(
    `update transaction_signature_containers set state = 'voided' where transaction_process_id = $1 and state <> 'voided'`,
    [process.id],
  );
  await tx.query('update transaction_processes set completed_at = null where id = $1', [process.id]);
}

/**
 * Carries out one action of a state being entered (`reason` is the event that entered it): `addRecipient`
 * gives the sender entity a role; `createProcess` creates a process with its first revision unless it exists;
 * `openRevision` does the same for a new process, or opens the next revision of an existing one. Says whether
 * it sent a revision back to the recipient (opened the next revision of an existing process): a request for
 * changes.
 */
export async function applyWorkflowAction(
  tx: Transaction,
  subject: Subject,
  action: WorkflowAction,
  reason: string,
): Promise<{ sentBack: boolean }> {
  if ('addRecipient' in action) {
    // Template checks allow addRecipient for sender roles only: the sender entity takes the role.
    await tx.query(
      `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
       values ($1, $2, $3, $4) on conflict do nothing`,
      [subject.organizationId, subject.id, subject.senderEntityId, action.addRecipient],
    );
    return { sentBack: false };
  }
  const key = 'createProcess' in action ? action.createProcess : action.openRevision;
  if ((await createProcess(tx, subject, key, reason)) || 'createProcess' in action)
    return { sentBack: false };
  const [existing] = await tx.query<{ id: string }>(
    'select id from transaction_processes where transaction_id = $1 and key = $2',
    [subject.id, key],
  );
  if (!existing) throw new Error(`process ${key} vanished`);
  await openNextRevision(tx, subject, { id: existing.id, key }, reason);
  return { sentBack: true };
}
