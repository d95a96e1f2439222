/**
 * Whether the recipient of a transaction (a row of `transactions`, alias `t`) has something to submit: the
 * transaction is neither complete nor voided, and the latest revision of one of its processes is not committed
 * (a process with no revision asks nothing). Whether its state is final is for the caller to add, from the
 * template it has read (`finalStates`): the state's `final` lives in the template's definition, which this
 * fragment does not read.
 *
 * It is what the console's queue calls `stalled` before the recipient's silence (console/queue/queue.ts), what
 * lets a reminder go (notice-sender.ts), and what "Remind now" asks (console/transaction/actions.ts). Each
 * process's latest revision is read through the unique `(transaction_process_id, number)` index, the processes
 * through `transaction_processes_transaction_id_idx`. SQL over a constant alias (not `p` or `r`), never input.
 */
export const AWAITS_RECIPIENT = (t: string) =>
  `${t}.completed_at is null and ${t}.voided_at is null and exists (
     select 1 from transaction_processes p
     where p.transaction_id = ${t}.id and (
       select r.committed_at is null from transaction_process_revisions r
       where r.transaction_process_id = p.id order by r.number desc limit 1))`;
