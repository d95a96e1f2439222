import type { Queryable, Transaction } from '../db/database.ts';
import { writeOutbox } from '../webhooks/outbox.ts';
import { queueCertificate } from './evidence/certificate-queue.ts';
import { queueSignedCopy } from './recipients/notice-queue.ts';
import type { Subject } from './subject.ts';
import { submissionsOf } from './submissions.ts';
import type { TemplateDefinition } from './templates/schema.ts';
import { allProcessesComplete, type WorkflowFacts } from './workflow.ts';

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
 * Brings completion up to date after a change: a process is complete when its latest revision is committed,
 * every item of it is at 100% and every document of the process is signed since that revision, or when that
 * revision was submitted on paper (the signed paper form stands for its answers and signatures); a transaction
 * once it has processes and all of them are. Completing a transaction writes its `transaction.completed`
 * outbox row, queues the recipient's mail with the link to their signed copy (recipients/notice-queue.ts) and
 * its certificate of completion (evidence/certificate-queue.ts).
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
    onPaper: boolean;
    signed: string[];
  }>(
    `select p.id, p.key, p.completed_at is not null as "wasComplete",
       coalesce(r.committed_at is not null and not exists (
         select 1 from transaction_items i where i.transaction_process_revision_id = r.id and i.completion_percentage < 100
       ), false) as done,
       coalesce(r.committed_at is not null and r.paper_file_id is not null, false) as "onPaper",
       array(select c.document_key from transaction_signature_containers c
             where c.transaction_process_id = p.id and c.state = 'completed' and c.created_at >= r.created_at) as signed
     from transaction_processes p
     left join lateral (
       select id, committed_at, created_at, paper_file_id from transaction_process_revisions
       where transaction_process_id = p.id order by number desc limit 1
     ) r on true
     where p.transaction_id = $1`,
    [subject.id],
  );
  const now: { isComplete: boolean }[] = [];
  for (const process of processes) {
    const documents = subject.definition.processes.find((p) => p.key === process.key)?.documents ?? [];
    const complete =
      process.onPaper ||
      (process.done && documents.every((document) => process.signed.includes(document.key)));
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
    await queueCertificate(tx, subject);
  }
}
