import type { Transaction } from '../db/database.ts';
import { insertReturningId } from '../db/insert-returning-id.ts';
import { itemRules } from './item-data.ts';
import type { Subject } from './subject.ts';
import type { TemplateDefinition, WorkflowAction } from './template-schema.ts';

/**
 * Revisions: a process holds its items in numbered revisions. The workflow's actions create processes (their
 * first revision, prefilled from the transaction's inputData), open new revisions (carrying the latest data
 * forward, voiding the signatures made on the old one) and add sender recipients.
 */

function itemsOf(definition: TemplateDefinition, processKey: string) {
  return definition.processes.find((process) => process.key === processKey)?.items ?? [];
}

/** Opens revision `number` of a process with one item per template item, computing each item's completion. */
async function openRevision(
  tx: Transaction,
  subject: Subject,
  process: { id: string; key: string },
  number: number,
  context: Record<string, unknown>,
  dataFor: (vulcanKey: string) => unknown,
): Promise<void> {
  const revisionId = await insertReturningId(
    tx,
    `insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number, context)
     values ($1, $2, $3, $4, $5)`,
    [subject.organizationId, process.id, subject.id, number, context],
  );
  // One statement for all the items, in the template's order (their sequence follows it).
  const items = itemsOf(subject.definition, process.key).map((item) => {
    const data = dataFor(item.vulcanKey) ?? {};
    return { vulcanKey: item.vulcanKey, data, completion: itemRules(item.schema).completion(data) };
  });
  await tx.query(
    `insert into transaction_items
       (organization_id, transaction_process_revision_id, transaction_id, vulcan_key, data, completion_percentage)
     select $1, $2, $3, item->>'vulcanKey', item->'data', (item->>'completion')::int
     from jsonb_array_elements($4::jsonb) with ordinality as items(item, position) order by position`,
    [subject.organizationId, revisionId, subject.id, JSON.stringify(items)],
  );
}

/** Opens the next revision of an existing process: the latest data carried forward, its signatures voided. */
async function openNextRevision(
  tx: Transaction,
  subject: Subject,
  process: { id: string; key: string },
  reason: string,
): Promise<void> {
  // New items carrying the latest data forward; earlier revisions stay as they were.
  const latest = await tx.query<{ number: number; vulcanKey: string; data: unknown }>(
    `select r.number, i.vulcan_key as "vulcanKey", i.data
     from transaction_process_revisions r left join transaction_items i on i.transaction_process_revision_id = r.id
     where r.transaction_process_id = $1 and r.number = (
       select max(number) from transaction_process_revisions where transaction_process_id = $1)`,
    [process.id],
  );
  const data = new Map(latest.map((row) => [row.vulcanKey, row.data]));
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
 * `openRevision` does the same for a new process, or opens the next revision of an existing one.
 */
export async function applyWorkflowAction(
  tx: Transaction,
  subject: Subject,
  action: WorkflowAction,
  reason: string,
): Promise<void> {
  if ('addRecipient' in action) {
    // Template checks allow addRecipient for sender roles only: the sender entity takes the role.
    await tx.query(
      `insert into transaction_recipients (organization_id, transaction_id, entity_id, vulcan_key)
       values ($1, $2, $3, $4) on conflict do nothing`,
      [subject.organizationId, subject.id, subject.senderEntityId, action.addRecipient],
    );
    return;
  }
  const key = 'createProcess' in action ? action.createProcess : action.openRevision;
  const [created] = await tx.query<{ id: string }>(
    `insert into transaction_processes (organization_id, transaction_id, key) values ($1, $2, $3)
     on conflict (transaction_id, key) do nothing returning id`,
    [subject.organizationId, subject.id, key],
  );
  if (created) {
    await openRevision(
      tx,
      subject,
      { id: created.id, key },
      1,
      { reason },
      (vulcanKey) => subject.inputData[vulcanKey],
    );
    return;
  }
  if ('createProcess' in action) return;
  const [existing] = await tx.query<{ id: string }>(
    'select id from transaction_processes where transaction_id = $1 and key = $2',
    [subject.id, key],
  );
  if (!existing) throw new Error(`process ${key} vanished`);
  await openNextRevision(tx, subject, { id: existing.id, key }, reason);
}
