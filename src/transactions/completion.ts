import type { Queryable, Transaction } from '../db/database.ts';
import { writeOutbox } from '../webhooks/outbox.ts';
import { queueSignedCopy } from './recipients/notice-queue.ts';
import type { Subject } from './subject.ts';
import { itemRules } from './templates/item-data.ts';
import type { ProcessDefinition, TemplateDefinition } from './templates/schema.ts';
import {
  allProcessesComplete,
  type MissingParts,
  type SubmissionFacts,
  type WorkflowFacts,
} from './workflow.ts';

/**
 * Completion: when a process and a transaction are complete, and the one fact the workflow's guards ask about
 * it (`all_processes_complete`, computed by `allProcessesComplete` in workflow.ts). Every place that needs the
 * facts (applying an event, submitting a revision, a dry run) reads them here, so they cannot disagree.
 */

/**
 * What the workflow's guards know of a transaction, read in the caller's database transaction: each process
 * that exists with whether it is complete, whether the transaction is, and, when its template has recipient's
 * events, what each submitted process's latest revision still lacks ({@link submissionsOf}).
 */
export async function workflowFactsOf(
  tx: Queryable,
  transaction: { id: string; definition: TemplateDefinition },
): Promise<WorkflowFacts> {
  const [row] = await tx.query<{ complete: boolean; processes: { key: string; isComplete: boolean }[] }>(
    `select t.completed_at is not null as complete,
       coalesce((select jsonb_agg(jsonb_build_object('key', p.key, 'isComplete', p.completed_at is not null)
                                  order by p.created_at, p.sequence)
                 from transaction_processes p where p.transaction_id = t.id), '[]') as processes
     from transactions t where t.id = $1`,
    [transaction.id],
  );
  return {
    processes: row?.processes ?? [],
    transactionComplete: row?.complete === true,
    submissions: await submissionsOf(tx, transaction),
  };
}

/**
 * The processes of a transaction that a recipient submits (those with a `submitEvent`), as their latest
 * revisions stand: whether each was submitted, and which required answers, consents, uploads and recipient
 * signatures it still lacks. A template without recipient's events reads nothing.
 */
export async function submissionsOf(
  tx: Queryable,
  transaction: { id: string; definition: TemplateDefinition },
): Promise<SubmissionFacts[]> {
  const { definition } = transaction;
  const submitted = definition.processes.filter((process) => process.submitEvent !== undefined);
  if (submitted.length === 0) return [];
  const rows = await tx.query<{
    key: string;
    submitted: boolean;
    incomplete: { key: string; data: unknown }[];
    signed: { document: string; role: string }[];
  }>(
    `select p.key, r.committed_at is not null as submitted,
       coalesce((select jsonb_agg(jsonb_build_object('key', i.vulcan_key, 'data', i.data))
                 from transaction_items i
                 where i.transaction_process_revision_id = r.id and i.completion_percentage < 100), '[]') as incomplete,
       coalesce((select jsonb_agg(jsonb_build_object('document', c.document_key, 'role', rc.vulcan_key))
                 from transaction_signature_containers c
                 join transaction_signatures s on s.transaction_signature_container_id = c.id and s.state = 'signed'
                 join transaction_recipients rc on rc.id = s.transaction_recipient_id
                 where c.transaction_process_id = p.id and c.state <> 'voided' and c.created_at >= r.created_at),
                '[]') as signed
     from transaction_processes p
     join lateral (
       select id, committed_at, created_at from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on true
     where p.transaction_id = $1 and p.key = any($2::text[])
     order by p.created_at, p.sequence`,
    [transaction.id, submitted.map((process) => process.key)],
  );
  const senderRoles = new Set(
    definition.recipientRoles.filter((role) => role.sender === true).map((role) => role.key),
  );
  return rows.flatMap((row) => {
    const process = submitted.find((candidate) => candidate.key === row.key);
    if (process?.submitEvent === undefined) return [];
    return [
      {
        process: row.key,
        event: process.submitEvent,
        submitted: row.submitted,
        missing: missingParts(process, row.incomplete, row.signed, senderRoles),
      },
    ];
  });
}

/**
 * What a revision of `process` lacks: the required answers, consents and uploads of its incomplete items (their
 * data as stored), and the signatures of recipient roles on its documents (the sender signs after the review).
 */
function missingParts(
  process: ProcessDefinition,
  incomplete: readonly { key: string; data: unknown }[],
  signed: readonly { document: string; role: string }[],
  senderRoles: ReadonlySet<string>,
): MissingParts {
  const missing: MissingParts = { answers: 0, consents: 0, uploads: 0, signatures: 0, where: [] };
  for (const item of process.items) {
    const stored = incomplete.find((candidate) => candidate.key === item.vulcanKey);
    if (!stored) continue;
    const rules = itemRules(item);
    const lacking = rules.missing(stored.data);
    if (lacking.length === 0) continue;
    for (const field of lacking) {
      if (rules.consents.includes(field)) missing.consents += 1;
      else if (item.uploads?.[field] !== undefined) missing.uploads += 1;
      else missing.answers += 1;
    }
    missing.where.push(item.title ?? item.vulcanKey);
  }
  for (const document of process.documents ?? []) {
    const unsigned = document.signedBy.filter(
      (role) =>
        !senderRoles.has(role) &&
        !signed.some((signature) => signature.document === document.key && signature.role === role),
    );
    if (unsigned.length === 0) continue;
    missing.signatures += unsigned.length;
    missing.where.push(document.title ?? document.key);
  }
  return missing;
}

/**
 * Brings completion up to date after a change: a process is complete when its latest revision is committed,
 * every item of it is at 100% and every document of the process is signed since that revision; a transaction
 * once it has processes and all of them are. Completing a transaction writes its `transaction.completed`
 * outbox row and queues the recipient's mail with the link to their signed copy (recipients/notice-queue.ts).
 */
export async function refreshCompletion(
  tx: Transaction,
  subject: Subject,
  requestId?: string,
): Promise<void> {
  const processes = await tx.query<{
    id: string;
    key: string;
    wasComplete: boolean;
    done: boolean;
    signed: string[];
  }>(
    `select p.id, p.key, p.completed_at is not null as "wasComplete",
       coalesce(r.committed_at is not null and not exists (
         select 1 from transaction_items i where i.transaction_process_revision_id = r.id and i.completion_percentage < 100
       ), false) as done,
       array(select c.document_key from transaction_signature_containers c
             where c.transaction_process_id = p.id and c.state = 'completed' and c.created_at >= r.created_at) as signed
     from transaction_processes p
     left join lateral (
       select id, committed_at, created_at from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on true
     where p.transaction_id = $1`,
    [subject.id],
  );
  const now: { isComplete: boolean }[] = [];
  for (const process of processes) {
    const documents = subject.definition.processes.find((p) => p.key === process.key)?.documents ?? [];
    const complete = process.done && documents.every((document) => process.signed.includes(document.key));
    now.push({ isComplete: complete });
    if (complete === process.wasComplete) continue;
    await tx.query(
      `update transaction_processes set completed_at = case when $2 then clock_timestamp() end where id = $1`,
      [process.id, complete],
    );
  }
  // A transaction with no process yet has nothing to complete.
  if (processes.length === 0 || !allProcessesComplete(now)) return;
  const [completed] = await tx.query<{ state: string; completedAt: Date }>(
    `update transactions set completed_at = clock_timestamp(), updated_at = clock_timestamp()
     where id = $1 and completed_at is null returning state, completed_at as "completedAt"`,
    [subject.id],
  );
  if (completed) {
    await writeOutbox(tx, {
      transaction: subject,
      type: 'transaction.completed',
      facts: { state: completed.state, completedAt: completed.completedAt },
      requestId,
    });
    await queueSignedCopy(tx, { transactionId: subject.id, requestId });
  }
}
