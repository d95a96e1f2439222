import type { Queryable } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { linkExpiry, type FileLinks } from '../../files/file-links.ts';
import { readAnswers, type AnsweredField } from '../templates/answer-text.ts';
import type { ProcessDefinition, TemplateDefinition } from '../templates/schema.ts';
import { commentsOf, type ReviewComment } from './comments.ts';
import { diffRevisions } from './revision-diff.ts';

/** A revision of a process, as the review shows it. */
export interface RevisionSummary {
  number: number;
  createdAt: Date;
  /** When the recipient submitted it; null while they work on it. */
  committedAt: Date | null;
}

/** A field of an item as a reviewer reads it: an uploaded file with its download link. */
export interface ReviewField extends Omit<AnsweredField, 'file'> {
  file: { id: string; name: string; downloadPath: string } | null;
}

/** An item of a process's latest revision: every field its form asks, in the form's order, answered in words. */
export interface ReviewItem {
  vulcanKey: string;
  title: string | null;
  completionPercentage: number;
  fields: ReviewField[];
}

/** A field that changed between two submissions, by the template's titles, the answers in words. */
export interface ChangedField {
  vulcanKey: string;
  field: string;
  itemTitle: string;
  label: string;
  change: 'added' | 'removed' | 'changed';
  /** The answer before and after in words; null on the empty side. */
  before: string | null;
  after: string | null;
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
  changes: { from: number; to: number; fields: ChangedField[] } | null;
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

/**
 * What a reviewer reads of a transaction: each process that exists, in the template's order, with its
 * revisions, the items of its latest revision (uploads with their download links), what changed between its last two submissions, and every
 * comment (open and resolved). NOT_FOUND for a transaction of another organization.
 */
export async function reviewOf(
  db: Queryable,
  options: { organizationId: string; transactionId: string; links: FileLinks },
): Promise<{ processes: ProcessReview[]; comments: ReviewComment[] }> {
  const expiresAt = linkExpiry();
  const withLink = (field: AnsweredField): ReviewField => ({
    ...field,
    file: field.file && { ...field.file, downloadPath: options.links.pathFor(field.file.id, expiresAt) },
  });
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
    const answers = await readAnswers(db, { organizationId: options.organizationId, process, items: latest });
    const submitted = revisions
      .filter((revision) => revision.committedAt !== null)
      .map((each) => each.number);
    const [before, after] = submitted.slice(-2);
    processes.push({
      key: process.key,
      title: process.title ?? null,
      isComplete: own[0]?.processComplete ?? false,
      revisions,
      items: latest.map((item) => ({
        vulcanKey: item.vulcanKey,
        title: process.items.find((candidate) => candidate.vulcanKey === item.vulcanKey)?.title ?? null,
        completionPercentage: item.completion ?? 0,
        fields: answers.fields(item.vulcanKey).map(withLink),
      })),
      changes:
        before === undefined || after === undefined
          ? null
          : {
              from: before,
              to: after,
              fields: await changedFields(db, {
                organizationId: options.organizationId,
                process,
                before: itemsOf(before),
                after: itemsOf(after),
              }),
            },
    });
  }
  return { processes, comments: await commentsOf(db, options) };
}

/** The fields that differ between two revisions' items, by the template's titles, the answers in words. */
async function changedFields(
  db: Queryable,
  options: {
    organizationId: string;
    process: ProcessDefinition;
    before: { vulcanKey: string; data: unknown }[];
    after: { vulcanKey: string; data: unknown }[];
  },
): Promise<ChangedField[]> {
  const { organizationId, process } = options;
  const was = await readAnswers(db, { organizationId, process, items: options.before });
  const is = await readAnswers(db, { organizationId, process, items: options.after });
  const textOf = (answers: typeof was, vulcanKey: string, field: string) =>
    answers.fields(vulcanKey).find((each) => each.key === field)?.text ?? null;
  return diffRevisions(options.before, options.after).map((change) => {
    const item = process.items.find((candidate) => candidate.vulcanKey === change.vulcanKey);
    const label = is.fields(change.vulcanKey).find((each) => each.key === change.field)?.label;
    return {
      vulcanKey: change.vulcanKey,
      field: change.field,
      itemTitle: item?.title ?? change.vulcanKey,
      label:
        label ??
        was.fields(change.vulcanKey).find((each) => each.key === change.field)?.label ??
        change.field,
      change: change.change,
      before: change.change === 'added' ? null : textOf(was, change.vulcanKey, change.field),
      after: change.change === 'removed' ? null : textOf(is, change.vulcanKey, change.field),
    };
  });
}
