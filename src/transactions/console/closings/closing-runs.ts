import type { Logger } from 'pino';
import type { Database } from '../../../db/database.ts';
import { AppError, INTERNAL_MESSAGE } from '../../../errors.ts';
import { createKickedRuns, type KickedRuns } from '../../../jobs/kicked-runs.ts';
import { createTransaction } from '../../create-transaction.ts';
import type { EntityType } from '../../entity-types.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { inputDataOf } from '../start/start.ts';
import { stopClosingsOfArchived } from '../templates/templates-admin.ts';

/**
 * Running closings: each ready row of a running closing becomes its transaction, once. A row is claimed with
 * `FOR UPDATE SKIP LOCKED` and marked created in the database transaction that creates its transaction, so any
 * number of nodes run closings side by side, a node that stops mid-row leaves the row ready for the next run,
 * and no row is created twice. A row that the domain refuses (a changed template, say) is marked failed with the
 * reason, and the others go on. A closing with no ready row left is finished.
 */

/** What one run did. */
export interface ClosingRunCounts {
  created: number;
  failed: number;
  /** Closings that have no ready row left, marked finished. */
  finished: number;
}

interface ClaimedRow {
  id: string;
  closingId: string;
  organizationId: string;
  name: string;
  email: string;
  entityType: EntityType;
  answers: Record<string, unknown>;
  templateId: string;
  senderEntityId: string;
  linkValidDays: number | null;
  note: string | null;
  startedBy: string | null;
  definition: TemplateDefinition;
}

/** Claims the next ready row of a running closing, and creates its transaction: false when none is left. */
async function createNextRow(
  db: Database,
  onUnexpected: (error: unknown, row: ClaimedRow) => void,
): Promise<'created' | 'failed' | false> {
  let claimed: ClaimedRow | undefined;
  try {
    return await db.transaction(async (tx) => {
      [claimed] = await tx.query<ClaimedRow>(
        `select r.id, r.closing_id as "closingId", r.organization_id as "organizationId", r.investor_name as name,
           r.investor_email as email, r.entity_type as "entityType", r.answers, c.template_id as "templateId",
           c.sender_entity_id as "senderEntityId", c.link_valid_days as "linkValidDays", c.invitation_note as note,
           c.started_by as "startedBy", t.definition
         from closing_rows r
         join closings c on c.id = r.closing_id
         join templates t on t.id = c.template_id
         where r.status = 'ready' and c.status = 'running'
         order by c.started_at, c.sequence, r.row_number
         limit 1
         for update of r skip locked`,
      );
      const row = claimed;
      if (row === undefined) return false;
      const created = await createTransaction(tx, {
        organizationId: row.organizationId,
        actor: { type: 'user', id: row.startedBy },
        input: {
          templateId: row.templateId,
          senderEntityId: row.senderEntityId,
          noticeName: row.name,
          noticeEmail: row.email,
          noticeEntityType: row.entityType,
          inputData: inputDataOf(row.definition, row.answers),
          linkValidDays: row.linkValidDays ?? undefined,
          invitationNote: row.note ?? undefined,
          closingId: row.closingId,
        },
      });
      await tx.query(
        `update closing_rows set status = 'created', transaction_id = $2, updated_at = clock_timestamp()
         where id = $1`,
        [row.id, created.transactionId],
      );
      return 'created';
    });
  } catch (error) {
    const row = claimed;
    if (row === undefined) throw error;
    // The row's database transaction is gone with its work; the refusal is kept on the row, once. What is not the
    // domain's refusal is ours: logged, and said without its internals.
    if (!(error instanceof AppError)) onUnexpected(error, row);
    // Its template was archived meanwhile: the closing stops, its rows left listed as not created.
    if (error instanceof AppError && error.code === 'TEMPLATE_ARCHIVED') {
      const key = error.details?.templateKey;
      if (typeof key === 'string')
        await stopClosingsOfArchived(db, { organizationId: row.organizationId, key });
    }
    await db.query(
      `update closing_rows set status = 'failed', failure = $2, updated_at = clock_timestamp()
       where id = $1 and status = 'ready'`,
      [row.id, error instanceof AppError ? error.message : INTERNAL_MESSAGE],
    );
    return 'failed';
  }
}

/**
 * Creates the ready rows of running closings until none is left (or `shouldStop` says so), then marks the
 * closings without a ready row finished.
 */
export async function runDueClosings(
  db: Database,
  options: { shouldStop?: () => boolean; onCreated?: () => void; logger?: Logger | undefined } = {},
): Promise<ClosingRunCounts> {
  const counts: ClosingRunCounts = { created: 0, failed: 0, finished: 0 };
  for (;;) {
    if (options.shouldStop?.() === true) break;
    const outcome = await createNextRow(db, (error, row) => {
      options.logger?.error(
        { err: error, closingId: row.closingId, rowId: row.id },
        "a closing's row failed",
      );
    });
    if (outcome === false) break;
    counts[outcome] += 1;
    if (outcome === 'created') options.onCreated?.();
  }
  const finished = await db.query(
    `update closings c set status = 'finished', finished_at = clock_timestamp(), updated_at = clock_timestamp()
     where c.status = 'running'
       and not exists (select 1 from closing_rows r where r.closing_id = c.id and r.status = 'ready')
     returning c.id`,
  );
  counts.finished = finished.length;
  return counts;
}

/**
 * Runs closings every `intervalMs` (a node that restarted, or another node, takes over a closing left running)
 * and whenever kicked (a closing was run); each transaction made kicks the recipients' mail, so invitations go as
 * their transactions are made. Stopping ends a run after the row under way.
 */
export function createClosingRuns(options: {
  db: Database;
  logger?: Logger | undefined;
  /** Told after each transaction made: its invitation is queued. */
  onCreated?: () => void;
  /** @default 5000 */
  intervalMs?: number;
}): KickedRuns<ClosingRunCounts> {
  let stopping = false;
  const runs = createKickedRuns({
    run: () =>
      runDueClosings(options.db, {
        shouldStop: () => stopping,
        onCreated: options.onCreated,
        logger: options.logger,
      }),
    intervalMs: options.intervalMs ?? 5000,
    onError: (error) => {
      options.logger?.warn({ err: error }, 'running closings failed; trying again in a few seconds');
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
