import type { Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { declaredProperties } from '../templates/schema-properties.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import { commentsOf, type ReviewComment } from './comments.ts';
import { diffRevisions, type FieldChange } from './revision-diff.ts';

/** A revision of a process, as the review shows it. */
export interface RevisionSummary {
  number: number;
  createdAt: Date;
  /** When the recipient submitted it; null while they work on it. */
  committedAt: Date | null;
}

/** An item of a process's latest revision: its data and the fields its schema declares. */
export interface ReviewItem {
  vulcanKey: string;
  title: string | null;
  completionPercentage: number;
  data: Record<string, unknown>;
  fields: string[];
}

/** A process as its reviewer reads it. */
export interface ProcessReview {
  key: string;
  title: string | null;
  isComplete: boolean;
  revisions: RevisionSummary[];
  /** The items of the latest revision. */
  items: ReviewItem[];
  /** What changed from the submission before the latest to the latest; null before a second submission. */
  changes: { from: number; to: number; fields: FieldChange[] } | null;
}

interface ItemRow {
  processKey: string;
  processComplete: boolean;
  number: number;
  createdAt: Date;
  committedAt: Date | null;
  vulcanKey: string | null;
  data: unknown;
  completionPercentage: number | null;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * What a reviewer reads of a transaction: each process that exists, in the template's order, with its
 * revisions, the items of its latest revision, what changed between its last two submissions, and every
 * comment (open and resolved). NOT_FOUND for a transaction of another organization.
 */
export async function reviewOf(
  db: Queryable,
  options: { organizationId: string; transactionId: string },
): Promise<{ processes: ProcessReview[]; comments: ReviewComment[] }> {
  const [transaction] = await db.query<{ definition: TemplateDefinition }>(
    `select tp.definition from transactions t join templates tp on tp.id = t.template_id
     where t.id = $1 and t.organization_id = $2`,
    [options.transactionId, options.organizationId],
  );
  if (!transaction) throw notFound('transaction');
  const rows = await db.query<ItemRow>(
    `select p.key as "processKey", p.completed_at is not null as "processComplete", r.number,
       r.created_at as "createdAt", r.committed_at as "committedAt", i.vulcan_key as "vulcanKey", i.data,
       i.completion_percentage as "completionPercentage"
     from transaction_processes p
     join transaction_process_revisions r on r.transaction_process_id = p.id
     left join transaction_items i on i.transaction_process_revision_id = r.id
     where p.transaction_id = $1 and p.organization_id = $2
     order by p.created_at, p.sequence, r.number, i.sequence`,
    [options.transactionId, options.organizationId],
  );
  const processes: ProcessReview[] = [];
  for (const process of transaction.definition.processes) {
    const own = rows.filter((row) => row.processKey === process.key);
    if (own.length === 0) continue;
    const numbers = [...new Set(own.map((row) => row.number))];
    const revisions = numbers.map((number) => {
      const first = own.find((row) => row.number === number);
      return { number, createdAt: first?.createdAt ?? new Date(0), committedAt: first?.committedAt ?? null };
    });
    const itemsOf = (number: number | undefined) =>
      own
        .filter((row) => row.number === number && row.vulcanKey !== null)
        .map((row) => ({
          vulcanKey: row.vulcanKey ?? '',
          data: row.data,
          completion: row.completionPercentage,
        }));
    const latest = itemsOf(numbers.at(-1));
    const submitted = revisions
      .filter((revision) => revision.committedAt !== null)
      .map((each) => each.number);
    const [before, after] = submitted.slice(-2);
    processes.push({
      key: process.key,
      title: process.title ?? null,
      isComplete: own[0]?.processComplete ?? false,
      revisions,
      items: latest.map((item) => {
        const definition = process.items.find((candidate) => candidate.vulcanKey === item.vulcanKey);
        return {
          vulcanKey: item.vulcanKey,
          title: definition?.title ?? null,
          completionPercentage: item.completion ?? 0,
          data: asObject(item.data),
          fields: Object.keys(declaredProperties(definition?.schema)),
        };
      }),
      changes:
        before === undefined || after === undefined
          ? null
          : { from: before, to: after, fields: diffRevisions(itemsOf(before), itemsOf(after)) },
    });
  }
  return { processes, comments: await commentsOf(db, options) };
}
