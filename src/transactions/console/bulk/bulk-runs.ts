import type { Logger } from 'pino';
import type { ConsoleRole } from '../../../accounts/roles.ts';
import type { Database, Transaction } from '../../../db/database.ts';
import { AppError, INTERNAL_MESSAGE } from '../../../errors.ts';
import { createKickedRuns, type KickedRuns } from '../../../jobs/kicked-runs.ts';
import { may } from '../role-permissions.ts';
import { remindNow, remindRefusals } from '../transaction/actions.ts';
import { recordActivities } from '../../history/activity.ts';
import { runConsoleEvent } from '../transaction/console-events.ts';
import { pathOf } from '../transaction/workflow-panel.ts';
import { assignInConsole } from '../queue/assignee.ts';
import { CHANGED_SINCE_CHECKED } from './bulk-jobs.ts';

/**
 * Running bulk jobs: each item to do of a running job is acted on once. Items are claimed a batch at a time with
 * `FOR UPDATE SKIP LOCKED`, each acted on in a savepoint of the batch's database transaction and marked with its
 * outcome in it, so any number of nodes run jobs side by side, a node that stops mid-batch leaves its items to do
 * for the next run, and no transaction is acted on twice. An item whose transaction moved since the job was made
 * is skipped as changed; one the action refuses (a reminder sent meanwhile, say) fails with the reason, and the
 * others go on. A job with no item left to do is finished.
 */

/** Items claimed, and acted on, in one database transaction. */
export const BULK_BATCH = 500;

/** What one run did. */
export interface BulkRunCounts {
  done: number;
  asked: number;
  failed: number;
  skipped: number;
  /** Jobs that have no item left to do, marked finished. */
  finished: number;
}

interface ClaimedItem {
  id: string;
  jobId: string;
  organizationId: string;
  transactionId: string;
  checkedState: string;
  checkedEnteredAt: Date;
  action: 'remind' | 'event' | 'assign';
  eventKey: string | null;
  message: string | null;
  assigneeUserId: string | null;
  userId: string | null;
  /** The role of the person who made the job now; null once they may no longer sign in. */
  role: ConsoleRole | null;
}

/**
 * The batch's database transaction as a {@link Database} whose `transaction` is a savepoint: what the single
 * actions take, so that each runs inside the batch and a refusal undoes its own work alone.
 */
function savepoints(tx: Transaction, db: Database): Database {
  let depth = 0;
  return {
    kind: db.kind,
    query: (text, params) => tx.query(text, params),
    exec: (script) => tx.exec(script),
    async transaction(work) {
      depth += 1;
      const name = `bulk_item_${String(depth)}`;
      await tx.query(`savepoint ${name}`);
      try {
        const result = await work(tx);
        await tx.query(`release savepoint ${name}`);
        return result;
      } catch (error) {
        await tx.query(`rollback to savepoint ${name}`);
        throw error;
      } finally {
        depth -= 1;
      }
    },
    listen: () => Promise.reject(new Error('a bulk item does not listen')),
    close: () => Promise.reject(new Error('a bulk item does not close the database')),
  };
}

type Outcome = 'done' | 'asked' | 'failed' | 'skipped';

/** What an item fails with once the person who made the job may no longer sign in. */
const NO_LONGER_HAS_ACCESS = 'The person who started this no longer has access.';
/** What an item fails with once the person who made the job may no longer operate (a reminder, an assignment). */
const mayNotOperate = (role: ConsoleRole) => `A ${role} may not do this: only admins and operators may.`;

/** Acts on one claimed item in the batch's transaction: its outcome and reason. */
async function actOn(
  inner: Database,
  tx: Transaction,
  item: ClaimedItem,
): Promise<{ outcome: Outcome; reason: string | null }> {
  const [now] = await tx.query<{ state: string; enteredAt: Date }>(
    `select state, state_entered_at as "enteredAt" from transactions
     where id = $1 and organization_id = $2 for update`,
    [item.transactionId, item.organizationId],
  );
  if (
    now === undefined ||
    now.state !== item.checkedState ||
    now.enteredAt.getTime() !== item.checkedEnteredAt.getTime()
  ) {
    return { outcome: 'skipped', reason: CHANGED_SINCE_CHECKED };
  }
  if (item.userId === null || item.role === null) {
    return { outcome: 'failed', reason: NO_LONGER_HAS_ACCESS };
  }
  const target = { organizationId: item.organizationId, transactionId: item.transactionId };
  const actor = { type: 'user' as const, id: item.userId };
  if (item.action !== 'event' && !may(item.role, 'operate')) {
    return { outcome: 'failed', reason: mayNotOperate(item.role) };
  }
  if (item.action === 'remind') {
    await remindNow(inner, { ...target, actor });
    return { outcome: 'done', reason: null };
  }
  if (item.action === 'assign') {
    await assignInConsole(inner, { ...target, userId: item.assigneeUserId, actor });
    return { outcome: 'done', reason: null };
  }
  const version = (await pathOf(tx, item.transactionId)).at(-1)?.id ?? null;
  const ran = await runConsoleEvent(inner, {
    ...target,
    eventKey: item.eventKey ?? '',
    message: item.message ?? undefined,
    version,
    role: item.role,
    actor,
  });
  return { outcome: ran.outcome, reason: null };
}

/** An item's outcome and reason, to be written. */
interface Result {
  outcome: Outcome;
  reason: string | null;
}

/**
 * Reminds the batch's reminder items at once, by the rules of {@link remindNow} and with the same timeline entry:
 * their transactions locked (in one order, as a single reminder locks its one), checked for a move since the job
 * was made and for the person's role, the refusals read in one statement (`remindRefusals`), then the eligible
 * ones' reminders queued in one statement and their `reminded` entries written in another. A transaction that
 * two items of the batch name (two jobs) is left to the item-by-item path for all but the first, which then sees
 * the first's reminder.
 */
async function remindAtOnce(tx: Transaction, items: readonly ClaimedItem[]): Promise<Map<string, Result>> {
  const results = new Map<string, Result>();
  if (items.length === 0) return results;
  const ids = items.map((item) => item.transactionId);
  const locked = await tx.query<{ id: string; organizationId: string; state: string; enteredAt: Date }>(
    `select id, organization_id as "organizationId", state, state_entered_at as "enteredAt" from transactions
     where id = any($1::uuid[]) order by id for update`,
    [ids],
  );
  const now = new Map(locked.map((row) => [row.id, row]));
  const byOrganization = new Map<string, ClaimedItem[]>();
  for (const item of items) {
    const current = now.get(item.transactionId);
    if (
      current === undefined ||
      current.organizationId !== item.organizationId ||
      current.state !== item.checkedState ||
      current.enteredAt.getTime() !== item.checkedEnteredAt.getTime()
    ) {
      results.set(item.id, { outcome: 'skipped', reason: CHANGED_SINCE_CHECKED });
    } else if (item.userId === null || item.role === null) {
      results.set(item.id, { outcome: 'failed', reason: NO_LONGER_HAS_ACCESS });
    } else if (!may(item.role, 'operate')) {
      results.set(item.id, { outcome: 'failed', reason: mayNotOperate(item.role) });
    } else {
      byOrganization.set(item.organizationId, [...(byOrganization.get(item.organizationId) ?? []), item]);
    }
  }
  const reminded: ClaimedItem[] = [];
  for (const [organizationId, ofOrganization] of byOrganization) {
    const refusals = await remindRefusals(tx, {
      organizationId,
      transactionIds: ofOrganization.map((item) => item.transactionId),
    });
    for (const item of ofOrganization) {
      const refusal = refusals.get(item.transactionId) ?? null;
      if (refusal === null) reminded.push(item);
      else results.set(item.id, { outcome: 'failed', reason: refusal });
    }
  }
  if (reminded.length === 0) return results;
  await tx.query(
    `update recipient_notices set next_reminder_at = clock_timestamp(), updated_at = clock_timestamp()
     where transaction_id = any($1::uuid[])`,
    [reminded.map((item) => item.transactionId)],
  );
  await recordActivities(
    tx,
    reminded.map((item) => ({
      organizationId: item.organizationId,
      transactionId: item.transactionId,
      kind: 'console' as const,
      action: 'reminded',
      actor: { type: 'user' as const, id: item.userId },
    })),
  );
  for (const item of reminded) results.set(item.id, { outcome: 'done', reason: null });
  return results;
}

/** Claims the next batch of items to do and acts on each: their outcomes, none when no item is left. */
async function runNextBatch(
  db: Database,
  options: { batchSize: number; onUnexpected: (error: unknown, item: ClaimedItem) => void },
): Promise<Outcome[]> {
  return db.transaction(async (tx) => {
    const claimed = await tx.query<ClaimedItem>(
      `select i.id, i.job_id as "jobId", i.organization_id as "organizationId", i.transaction_id as "transactionId",
         i.checked_state as "checkedState", i.checked_entered_at as "checkedEnteredAt", j.action,
         j.event_key as "eventKey", j.message, j.assignee_user_id as "assigneeUserId", u.id as "userId",
         u.role
       from bulk_job_items i
       join bulk_jobs j on j.id = i.job_id
       left join users u on u.id = j.requested_by and u.organization_id = j.organization_id
         and u.deactivated_at is null
       where i.status = 'pending' and j.status = 'running'
       order by j.created_at, j.sequence, i.position
       limit $1
       for update of i skip locked`,
      [options.batchSize],
    );
    // Reminders at once, each transaction's first; the rest (events, assignments) one by one in savepoints.
    const first = new Set<string>();
    const atOnce: ClaimedItem[] = [];
    for (const item of claimed) {
      if (item.action !== 'remind' || first.has(item.transactionId)) continue;
      first.add(item.transactionId);
      atOnce.push(item);
    }
    const results = await remindAtOnce(tx, atOnce);
    const inner = savepoints(tx, db);
    for (const item of claimed) {
      if (results.has(item.id)) continue;
      let result: Result;
      try {
        result = await inner.transaction(() => actOn(inner, tx, item));
      } catch (error) {
        // The item's savepoint is gone with its work; the refusal is kept on the item. What is not the domain's
        // refusal is ours: logged, and said without its internals.
        if (!(error instanceof AppError)) options.onUnexpected(error, item);
        result =
          error instanceof AppError && error.code === 'STALE_STATE'
            ? { outcome: 'skipped', reason: CHANGED_SINCE_CHECKED }
            : { outcome: 'failed', reason: error instanceof AppError ? error.message : INTERNAL_MESSAGE };
      }
      results.set(item.id, result);
    }
    const written: Result[] = claimed.map(
      (item) => results.get(item.id) ?? { outcome: 'failed', reason: INTERNAL_MESSAGE },
    );
    if (claimed.length > 0) {
      await tx.query(
        `update bulk_job_items i set status = o.status, reason = o.reason, updated_at = clock_timestamp()
         from unnest($1::uuid[], $2::text[], $3::text[]) as o (id, status, reason) where i.id = o.id`,
        [
          claimed.map((item) => item.id),
          written.map((result) => result.outcome),
          written.map((result) => result.reason),
        ],
      );
    }
    return written.map((result) => result.outcome);
  });
}

/**
 * Acts on the items to do of running jobs until none is left (or `shouldStop` says so), telling `onBatch` after
 * each batch commits (mail a reminder queued goes then), then marks the jobs without an item to do finished.
 */
export async function runDueBulkJobs(
  db: Database,
  options: {
    batchSize?: number | undefined;
    shouldStop?: () => boolean;
    onBatch?: (() => void) | undefined;
    logger?: Logger | undefined;
  } = {},
): Promise<BulkRunCounts> {
  const counts: BulkRunCounts = { done: 0, asked: 0, failed: 0, skipped: 0, finished: 0 };
  for (;;) {
    if (options.shouldStop?.() === true) break;
    const outcomes = await runNextBatch(db, {
      batchSize: options.batchSize ?? BULK_BATCH,
      onUnexpected: (error, item) => {
        options.logger?.error(
          { err: error, jobId: item.jobId, itemId: item.id },
          "a bulk action's item failed",
        );
      },
    });
    if (outcomes.length === 0) break;
    for (const outcome of outcomes) counts[outcome] += 1;
    options.onBatch?.();
  }
  const finished = await db.query(
    `update bulk_jobs j set status = 'finished', finished_at = clock_timestamp(), updated_at = clock_timestamp()
     where j.status = 'running'
       and not exists (select 1 from bulk_job_items i where i.job_id = j.id and i.status = 'pending')
     returning j.id`,
  );
  counts.finished = finished.length;
  return counts;
}

/**
 * Runs bulk jobs every `intervalMs` (a node that restarted, or another node, takes over a job left running) and
 * whenever kicked (a job was made); each batch done kicks the recipients' mail, so reminders go as they are
 * queued. Stopping ends a run after the batch under way.
 */
export function createBulkRuns(options: {
  db: Database;
  logger?: Logger | undefined;
  /** Told after each batch committed: reminders, or an event's mail, may be queued. */
  onBatch?: () => void;
  /** @default 5000 */
  intervalMs?: number;
}): KickedRuns<BulkRunCounts> {
  let stopping = false;
  const runs = createKickedRuns({
    run: () =>
      runDueBulkJobs(options.db, {
        shouldStop: () => stopping,
        onBatch: options.onBatch,
        logger: options.logger,
      }),
    intervalMs: options.intervalMs ?? 5000,
    onError: (error) => {
      options.logger?.warn({ err: error }, 'running bulk actions failed; trying again in a few seconds');
    },
  });
  return {
    ...runs,
    stop() {
      stopping = true;
      return runs.stop();
    },
  };
}
