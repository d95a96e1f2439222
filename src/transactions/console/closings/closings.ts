import type { Database, Queryable } from '../../../db/database.ts';
import { oneRow } from '../../../db/one-row.ts';
import { AppError, notFound } from '../../../errors.ts';
import { checkCreateInput, MAX_INVITATION_NOTE_LENGTH, templateArchived } from '../../create-transaction.ts';
import { idempotent } from '../../idempotency.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import { checkRowAgain, type Preflight } from './preflight.ts';
import { closingRows, type ClosingRow, type ClosingStatus, type RowStatus } from './closing-detail.ts';

/**
 * A closing: a named group of transactions of one template version and sender, made from a list of investors.
 * Made as a draft from its list's preflight (preflight.ts), whose rows are fixed or dropped on the page; run once
 * every row left is ready, when closing-runs.ts creates each row's transaction, once.
 */

/** What a person names when making a closing, beside its list. */
export interface ClosingInput {
  name: string;
  templateId: string;
  senderEntityId: string;
  linkValidDays?: number | undefined;
  note?: string | undefined;
}

/** The most characters of a closing's name. */
export const MAX_CLOSING_NAME_LENGTH = 200;

/**
 * Makes a draft closing: its name, template, sender and invitation settings, checked as a transaction's would
 * be. Its list of investors comes next (`replaceClosingList`); nothing is sent. One draft for one
 * `idempotencyKey` (the form makes one, so a retry whose first answer was lost makes no second draft).
 */
export async function createClosing(
  db: Database,
  options: {
    organizationId: string;
    userId: string;
    input: ClosingInput;
    idempotencyKey?: string | undefined;
  },
): Promise<{ id: string }> {
  const { organizationId, input } = options;
  const name = input.name.trim();
  if (name === '' || name.length > MAX_CLOSING_NAME_LENGTH) {
    throw new AppError(
      'BAD_USER_INPUT',
      `A closing needs a name of 1 to ${String(MAX_CLOSING_NAME_LENGTH)} characters, e.g. "Fund I, first close".`,
      { field: 'name' },
    );
  }
  const once = { organizationId, key: options.idempotencyKey, operation: 'console.createClosing', input };
  return idempotent(db, once, async (tx) => {
    // The settings as a transaction of it would have them: a template and sender of the organization, the link's
    // days and the personal line within bounds.
    const checked = await checkCreateInput(tx, {
      organizationId,
      input: {
        templateId: input.templateId,
        senderEntityId: input.senderEntityId,
        noticeName: 'Investor',
        noticeEmail: 'investor@example.com',
        linkValidDays: input.linkValidDays,
        invitationNote: input.note,
      },
    }).catch((error: unknown) => {
      if (error instanceof AppError && error.details?.field === 'invitationNote') {
        throw new AppError(
          'BAD_USER_INPUT',
          `The personal line has at most ${String(MAX_INVITATION_NOTE_LENGTH)} characters.`,
          { field: 'note' },
        );
      }
      throw error;
    });
    return oneRow<{ id: string }>(
      tx,
      `insert into closings
         (organization_id, name, template_id, sender_entity_id, link_valid_days, invitation_note, created_by)
       values ($1, $2, $3, $4, $5, $6, $7) returning id`,
      [
        organizationId,
        name,
        input.templateId,
        input.senderEntityId,
        input.linkValidDays ?? null,
        checked.invitationNote,
        options.userId,
      ],
    );
  });
}

/** The template of a draft closing of the organization, for its list's preflight; NOT_FOUND or CONFLICT. */
export async function draftTemplate(
  db: Queryable,
  options: { organizationId: string; closingId: string },
): Promise<TemplateDefinition> {
  return (await lockedDraft(db, options.organizationId, options.closingId)).definition;
}

/**
 * Puts a checked list (its preflight) in a draft closing, in place of the one it had: its columns, their
 * problems, and each row with its problems (ready when it has none).
 */
export async function replaceClosingList(
  db: Database,
  options: { organizationId: string; closingId: string; preflight: Preflight },
): Promise<void> {
  const { organizationId, closingId, preflight } = options;
  await db.transaction(async (tx) => {
    await lockedDraft(tx, organizationId, closingId);
    await tx.query('delete from closing_rows where closing_id = $1', [closingId]);
    await tx.query(
      'update closings set columns = $2, column_problems = $3, updated_at = clock_timestamp() where id = $1',
      [closingId, JSON.stringify(preflight.columns), JSON.stringify(preflight.columnProblems)],
    );
    const rows = preflight.rows;
    // In slices, so that one statement's parameter stays a bounded JSON text whatever the list's length.
    for (let start = 0; start < rows.length; start += 500) {
      const slice = rows.slice(start, start + 500);
      await tx.query(
        `insert into closing_rows
           (organization_id, closing_id, row_number, cells, investor_name, investor_email, entity_type, answers,
            problems, status)
         select $1, $2, r.row_number, r.cells, r.investor_name, r.investor_email, r.entity_type, r.answers,
           r.problems, r.status
         from jsonb_to_recordset($3::jsonb) as r(row_number int, cells jsonb, investor_name text,
           investor_email text, entity_type text, answers jsonb, problems jsonb, status text)`,
        [
          organizationId,
          closingId,
          JSON.stringify(
            slice.map((row) => ({
              row_number: row.row,
              cells: cellsByColumn(preflight.columns, row.cells),
              investor_name: row.investor.name,
              investor_email: row.investor.email,
              entity_type: row.investor.entityType,
              answers: row.answers,
              problems: row.problems,
              status: row.problems.length === 0 ? 'ready' : 'problem',
            })),
          ),
        ],
      );
    }
  });
}

/** A row's cells by its column's name. */
function cellsByColumn(
  columns: readonly { name: string }[],
  cells: readonly string[],
): Record<string, string> {
  return Object.fromEntries(columns.map((column, index) => [column.name, cells[index] ?? '']));
}

/** A draft closing as its changes check its rows: its columns and its template's definition. */
interface DraftClosing {
  columns: Preflight['columns'];
  definition: TemplateDefinition;
  /** Its template's key and name while an admin has archived it. */
  archived: { key: string; name: string } | null;
}

/** A draft closing locked for a change, or NOT_FOUND / CONFLICT once it has run. */
async function lockedDraft(db: Queryable, organizationId: string, closingId: string): Promise<DraftClosing> {
  const [closing] = await db.query<{
    status: ClosingStatus;
    columns: Preflight['columns'];
    definition: TemplateDefinition;
    archived: { key: string; name: string } | null;
  }>(
    `select c.status, c.columns, t.definition,
       (select json_build_object('key', t.key, 'name', t.name) from template_archives a
        where a.organization_id = t.organization_id and a.key = t.key) as archived
     from closings c join templates t on t.id = c.template_id
     where c.id = $1 and c.organization_id = $2 for update of c`,
    [closingId, organizationId],
  );
  if (closing === undefined) throw notFound('closing', closingId);
  if (closing.status !== 'draft') {
    throw new AppError('CONFLICT', 'This closing has been run: its rows no longer change.');
  }
  return closing;
}

/**
 * Checks again, in list order, the rows not dropped whose address is one of `addresses` (lower case): a fix or a
 * drop may end a row's being the same investor as another, or begin it. As in the preflight, only the first row
 * of an address goes without that problem. The ids of the rows checked.
 */
async function checkSharingAgain(
  tx: Queryable,
  closing: DraftClosing,
  closingId: string,
  addresses: readonly string[],
): Promise<string[]> {
  const wanted = [...new Set(addresses.filter((address) => address !== ''))];
  if (wanted.length === 0) return [];
  const rows = await tx.query<{ id: string; row: number; cells: Record<string, string> }>(
    `select id, row_number as row, cells from closing_rows
     where closing_id = $1 and status <> 'dropped' and lower(investor_email) = any($2::text[])
     order by row_number`,
    [closingId, wanted],
  );
  const earlier: { email: string; row: number }[] = [];
  for (const row of rows) {
    const cells = closing.columns.map((column) => row.cells[column.name] ?? '');
    const checked = checkRowAgain(closing.definition, closing.columns, { row: row.row, cells }, earlier);
    const email = checked.investor.email.trim().toLowerCase();
    if (!earlier.some((before) => before.email === email)) earlier.push({ email, row: row.row });
    await tx.query(
      `update closing_rows set problems = $2, status = $3, updated_at = clock_timestamp() where id = $1`,
      [row.id, JSON.stringify(checked.problems), checked.problems.length === 0 ? 'ready' : 'problem'],
    );
  }
  return rows.map((row) => row.id);
}

/** The rows of a closing checked again beside the one changed, as the page shows them. */
async function partnersOf(
  tx: Queryable,
  options: { organizationId: string; closingId: string; rowId: string },
  checked: readonly string[],
): Promise<ClosingRow[]> {
  const ids = checked.filter((id) => id !== options.rowId);
  return ids.length === 0 ? [] : closingRows(tx, { ...options, ids });
}

/**
 * Changes a row of a draft closing, as fixed on the page (its cells by column), and checks it again, with the
 * other rows' addresses for a duplicate; the rows that shared its address before or share it now are checked
 * again too (`checkedAgain`). NOT_FOUND for a row not of the closing.
 */
export async function editClosingRow(
  db: Database,
  options: { organizationId: string; closingId: string; rowId: string; cells: Record<string, string> },
): Promise<{ row: ClosingRow; checkedAgain: ClosingRow[] }> {
  const { organizationId, closingId } = options;
  return db.transaction(async (tx) => {
    const closing = await lockedDraft(tx, organizationId, closingId);
    const [row] = await tx.query<{ row: number; address: string }>(
      `select row_number as row, lower(investor_email) as address from closing_rows
       where id = $1 and closing_id = $2`,
      [options.rowId, closingId],
    );
    if (row === undefined) throw notFound('row', options.rowId);
    const others = await tx.query<{ email: string; row: number }>(
      `select lower(investor_email) as email, min(row_number)::int as row from closing_rows
       where closing_id = $1 and id <> $2 and status <> 'dropped' group by 1`,
      [closingId, options.rowId],
    );
    const cells = closing.columns.map((column) => options.cells[column.name] ?? '');
    const checked = checkRowAgain(closing.definition, closing.columns, { row: row.row, cells }, others);
    const status: RowStatus = checked.problems.length === 0 ? 'ready' : 'problem';
    await tx.query(
      `update closing_rows set cells = $2, investor_name = $3, investor_email = $4, entity_type = $5,
         answers = $6, problems = $7, status = $8, updated_at = clock_timestamp()
       where id = $1`,
      [
        options.rowId,
        JSON.stringify(
          Object.fromEntries(closing.columns.map((column, index) => [column.name, cells[index] ?? ''])),
        ),
        checked.investor.name,
        checked.investor.email,
        checked.investor.entityType,
        JSON.stringify(checked.answers),
        JSON.stringify(checked.problems),
        status,
      ],
    );
    const again = await checkSharingAgain(tx, closing, closingId, [
      row.address,
      checked.investor.email.trim().toLowerCase(),
    ]);
    const [edited] = await closingRows(tx, { organizationId, closingId, ids: [options.rowId] });
    if (edited === undefined) throw new Error('a row edited was not read back');
    return { row: edited, checkedAgain: await partnersOf(tx, options, again) };
  });
}

/**
 * Drops a row of a draft closing (it is not run), or brings a dropped one back; it and the rows that share its
 * address are checked again (`checkedAgain`): the investor may now be in the closing once, or twice.
 */
export async function dropClosingRow(
  db: Database,
  options: { organizationId: string; closingId: string; rowId: string; dropped: boolean },
): Promise<{ status: RowStatus; checkedAgain: ClosingRow[] }> {
  return db.transaction(async (tx) => {
    const closing = await lockedDraft(tx, options.organizationId, options.closingId);
    const [row] = await tx.query<{ status: RowStatus; address: string }>(
      `update closing_rows set status = case when $3 then 'dropped'
           when jsonb_array_length(problems) = 0 then 'ready' else 'problem' end,
         updated_at = clock_timestamp()
       where id = $1 and closing_id = $2 returning status, lower(investor_email) as address`,
      [options.rowId, options.closingId, options.dropped],
    );
    if (row === undefined) throw notFound('row', options.rowId);
    const again = await checkSharingAgain(tx, closing, options.closingId, [row.address]);
    const [after] = await closingRows(tx, { ...options, ids: [options.rowId] });
    return { status: after?.status ?? row.status, checkedAgain: await partnersOf(tx, options, again) };
  });
}

/**
 * Runs a draft closing: from now on its ready rows are created (closing-runs.ts). CONFLICT while a column or a
 * row has a problem (each must be fixed or dropped first), or when no row is left to create; TEMPLATE_ARCHIVED
 * when an admin archived its template since it was made.
 */
export async function runClosing(
  db: Database,
  options: { organizationId: string; closingId: string; userId: string },
): Promise<{ status: ClosingStatus; rows: number }> {
  return db.transaction(async (tx) => {
    const draft = await lockedDraft(tx, options.organizationId, options.closingId);
    if (draft.archived !== null) throw templateArchived(draft.archived);
    const [counts] = await tx.query<{ ready: number; problem: number; columnProblems: number }>(
      `select count(*) filter (where status = 'ready')::int as ready,
         count(*) filter (where status = 'problem')::int as problem,
         (select jsonb_array_length(column_problems) from closings where id = $1)::int as "columnProblems"
       from closing_rows where closing_id = $1`,
      [options.closingId],
    );
    if ((counts?.columnProblems ?? 0) > 0) {
      throw new AppError('CONFLICT', 'The list’s columns have problems: fix the file and upload it again.');
    }
    if ((counts?.problem ?? 0) > 0) {
      const problems = counts?.problem ?? 0;
      throw new AppError(
        'CONFLICT',
        `${String(problems)} ${problems === 1 ? 'row has a problem' : 'rows have problems'}: fix or drop ${problems === 1 ? 'it' : 'them'} first.`,
      );
    }
    if ((counts?.ready ?? 0) === 0) throw new AppError('CONFLICT', 'No row is left to create.');
    await tx.query(
      `update closings set status = 'running', started_at = clock_timestamp(), started_by = $2,
         updated_at = clock_timestamp()
       where id = $1`,
      [options.closingId, options.userId],
    );
    return { status: 'running' as const, rows: counts?.ready ?? 0 };
  });
}
