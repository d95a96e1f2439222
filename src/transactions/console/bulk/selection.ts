import type { Queryable } from '../../../db/database.ts';
import { AppError } from '../../../errors.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import {
  checkQueueQuery,
  pageFilters,
  Parameters,
  sharedFilters,
  SORTS,
  type QueueQuery,
} from '../queue/queue-query.ts';

/**
 * What a bulk action is done to: transactions picked by hand on the queue (their ids), or every transaction the
 * queue lists for a filter ("all 240 matching"), at most {@link MAX_BULK_SELECTION}. Every statement is scoped to
 * the organization: an id of another organization's transaction is left out, as one that does not exist.
 */

/** The most transactions one bulk action takes. */
export const MAX_BULK_SELECTION = 10_000;

/** The queue's filters a selection takes: all but its pages. */
export type BulkFilter = Omit<QueueQuery, 'first' | 'after' | 'stalledAfterDays'>;

/** Transactions picked by hand, or all those a filter of the queue keeps. */
export type BulkSelection = { ids: string[] } | { filter: BulkFilter };

/** A selected transaction, with what the preflight and the job need of it. */
export interface Selected {
  id: string;
  state: string;
  stateEnteredAt: Date;
  investorName: string;
  templateId: string;
  assigneeId: string | null;
}

/** A template the selection's transactions use. */
export interface SelectedTemplate {
  id: string;
  name: string;
  definition: TemplateDefinition;
}

const COLUMNS = `t.id, t.state, t.state_entered_at as "stateEnteredAt",
  coalesce(t.investor_name, t.notice_name) as "investorName", t.template_id as "templateId",
  t.assignee_user_id as "assigneeId"`;

function tooLarge(count: number, max: number): AppError {
  return new AppError(
    'SELECTION_TOO_LARGE',
    `This selection holds ${count.toLocaleString('en-US')} transactions; a bulk action takes at most ${max.toLocaleString('en-US')}: narrow the filter (a template, a state, a closing), or act in parts.`,
    { count, max },
  );
}

/**
 * The organization's transactions a selection names, in its order (the ids' order, or the queue's for a filter),
 * with the templates they use. SELECTION_TOO_LARGE when it holds more than `max`; BAD_USER_INPUT for a filter
 * the queue refuses.
 */
export async function selectTransactions(
  db: Queryable,
  options: { organizationId: string; selection: BulkSelection; max?: number | undefined },
): Promise<{ selected: Selected[]; templates: Map<string, SelectedTemplate> }> {
  const { organizationId, selection } = options;
  const max = options.max ?? MAX_BULK_SELECTION;
  let selected: Selected[];
  if ('ids' in selection) {
    const ids = [...new Set(selection.ids)];
    if (ids.length > max) throw tooLarge(ids.length, max);
    const rows = await db.query<Selected>(
      `select ${COLUMNS} from transactions t where t.organization_id = $1 and t.id = any($2::uuid[])`,
      [organizationId, ids],
    );
    const order = new Map(ids.map((id, index) => [id, index]));
    selected = rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  } else {
    const query = checkQueueQuery({ ...selection.filter, first: undefined, after: undefined });
    const templateIds =
      query.templateKey === undefined
        ? undefined
        : (
            await db.query<{ id: string }>(
              'select id from templates where organization_id = $1 and key = $2',
              [organizationId, query.templateKey],
            )
          ).map((row) => row.id);
    const params = new Parameters();
    const { column, direction } = SORTS[query.sort];
    const where = [
      sharedFilters(params, organizationId, query, templateIds),
      ...pageFilters(params, query, undefined, {
        state: 't.state',
        time: `t.${column}`,
        sequence: 't.sequence',
      }),
    ].join(' and ');
    const count = params.add(max + 1);
    selected = await db.query<Selected>(
      `select ${COLUMNS} from transactions t where ${where}
       order by t.${column} ${direction}, t.sequence ${direction} limit ${count}`,
      params.values,
    );
    if (selected.length > max) {
      const countParams = new Parameters();
      const countWhere = [
        sharedFilters(countParams, organizationId, query, templateIds),
        ...pageFilters(countParams, query, undefined, {
          state: 't.state',
          time: 't.created_at',
          sequence: 't.sequence',
        }),
      ].join(' and ');
      const [counted] = await db.query<{ count: number }>(
        `select count(*)::int as count from transactions t where ${countWhere}`,
        countParams.values,
      );
      throw tooLarge(counted?.count ?? selected.length, max);
    }
  }
  const templateRows = await db.query<SelectedTemplate>(
    'select id, name, definition from templates where organization_id = $1 and id = any($2::uuid[])',
    [organizationId, [...new Set(selected.map((row) => row.templateId))]],
  );
  return { selected, templates: new Map(templateRows.map((template) => [template.id, template])) };
}

/** The selection a route's input names: BAD_USER_INPUT unless it gives ids or a filter, not both. */
export function selectionOf(input: {
  ids?: string[] | undefined;
  filter?: BulkFilter | undefined;
}): BulkSelection {
  if (input.ids !== undefined && input.filter === undefined) return { ids: input.ids };
  if (input.filter !== undefined && input.ids === undefined) return { filter: input.filter };
  throw new AppError('BAD_USER_INPUT', 'Select transactions by hand (ids) or by a filter, one of the two.', {
    field: 'selection',
  });
}
