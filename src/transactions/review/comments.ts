import type { Database, Queryable } from '../../db/database.ts';
import { oneRow } from '../../db/one-row.ts';
import { AppError, notFound, quote } from '../../errors.ts';
import { recordActivity, type ActivityActor } from '../history/activity.ts';
import { declaredProperties } from '../templates/schema-properties.ts';
import type { TemplateDefinition } from '../templates/schema.ts';

/** The longest comment a reviewer may write. */
export const MAX_COMMENT_LENGTH = 2000;

/** A reviewer's comment on a field, as the console and the recipient portal show it. */
export interface ReviewComment {
  id: string;
  processKey: string;
  /** The number of the revision it was written on. */
  revision: number;
  vulcanKey: string;
  field: string;
  body: string;
  /** Whether the investor sees it (the portal shows it beside the field); else an internal note of the team. */
  forInvestor: boolean;
  author: { id: string; name: string } | null;
  createdAt: Date;
  resolvedAt: Date | null;
}

const COMMENT_COLUMNS = `c.id, p.key as "processKey", r.number as revision, c.vulcan_key as "vulcanKey", c.field,
  c.body, c.for_investor as "forInvestor", case when u.id is null then null else json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email)) end as author,
  c.created_at as "createdAt", c.resolved_at as "resolvedAt"`;
const COMMENT_JOINS = `review_comments c
  join transaction_processes p on p.id = c.transaction_process_id
  join transaction_process_revisions r on r.id = c.revision_id
  left join users u on u.id = c.author_id`;

/**
 * The comments on a transaction, oldest first; `open` only those not resolved; `forInvestor` only those the
 * investor sees (what the portal shows: never an internal note).
 */
export function commentsOf(
  db: Queryable,
  options: { organizationId: string; transactionId: string; open?: boolean; forInvestor?: boolean },
): Promise<ReviewComment[]> {
  return db.query<ReviewComment>(
    `select ${COMMENT_COLUMNS} from ${COMMENT_JOINS}
     where c.organization_id = $1 and c.transaction_id = $2 and ($3::boolean is not true or c.resolved_at is null)
       and ($4::boolean is not true or c.for_investor)
     order by c.created_at, c.sequence`,
    [options.organizationId, options.transactionId, options.open ?? false, options.forInvestor ?? false],
  );
}

/**
 * The process of the template that holds the item `vulcanKey`, and the fields its schema declares. Throws
 * BAD_USER_INPUT naming `vulcanKey` or `field` when the template has no such item, or the item no such field.
 */
export function fieldOf(
  definition: TemplateDefinition,
  target: { vulcanKey: string; field: string },
): { processKey: string } {
  for (const process of definition.processes) {
    const item = process.items.find((candidate) => candidate.vulcanKey === target.vulcanKey);
    if (!item) continue;
    const fields = Object.keys(declaredProperties(item.schema));
    if (!fields.includes(target.field)) {
      throw new AppError(
        'BAD_USER_INPUT',
        `The item ${quote(target.vulcanKey)} has no field ${quote(target.field)}; its fields are ${fields.join(', ')}.`,
        { field: 'field' },
      );
    }
    return { processKey: process.key };
  }
  throw new AppError('BAD_USER_INPUT', `This transaction has no item ${quote(target.vulcanKey)}.`, {
    field: 'vulcanKey',
  });
}

/**
 * A reviewer comments on a field of an item, on the latest revision of its process, for the investor (the portal
 * shows it beside the field) or as an internal note of the team, and the comment joins the transaction's
 * activity. BAD_USER_INPUT for a field or item the template does not have, or an empty or too
 * long comment; NOT_FOUND for a transaction of another organization, or a process not created yet.
 */
export async function addReviewComment(
  db: Database,
  options: {
    organizationId: string;
    transactionId: string;
    vulcanKey: string;
    field: string;
    body: string;
    forInvestor: boolean;
    actor: ActivityActor & { type: 'user'; id: string };
  },
): Promise<ReviewComment> {
  const body = options.body.trim();
  if (body === '') throw new AppError('BAD_USER_INPUT', 'Write the comment.', { field: 'body' });
  if (body.length > MAX_COMMENT_LENGTH) {
    throw new AppError('BAD_USER_INPUT', `A comment has at most ${String(MAX_COMMENT_LENGTH)} characters.`, {
      field: 'body',
    });
  }
  return db.transaction(async (tx) => {
    const [transaction] = await tx.query<{ definition: TemplateDefinition }>(
      `select tp.definition from transactions t join templates tp on tp.id = t.template_id
       where t.id = $1 and t.organization_id = $2 for share of t`,
      [options.transactionId, options.organizationId],
    );
    if (!transaction) throw notFound('transaction');
    const { processKey } = fieldOf(transaction.definition, options);
    const [revision] = await tx.query<{ id: string; processId: string }>(
      `select r.id, p.id as "processId" from transaction_processes p
       join lateral (select id from transaction_process_revisions where transaction_process_id = p.id
                     order by number desc limit 1) r on true
       where p.transaction_id = $1 and p.key = $2`,
      [options.transactionId, processKey],
    );
    if (!revision)
      throw notFound(`process ${quote(processKey)} of this transaction (it has not started yet)`);
    const inserted = await oneRow<{ id: string }>(
      tx,
      `insert into review_comments
         (organization_id, transaction_id, transaction_process_id, revision_id, vulcan_key, field, body, author_id,
          for_investor)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning id`,
      [
        options.organizationId,
        options.transactionId,
        revision.processId,
        revision.id,
        options.vulcanKey,
        options.field,
        body,
        options.actor.id,
        options.forInvestor,
      ],
    );
    await recordActivity(tx, {
      organizationId: options.organizationId,
      transactionId: options.transactionId,
      kind: 'console',
      action: 'commented',
      actor: options.actor,
      details: {
        vulcanKey: options.vulcanKey,
        field: options.field,
        commentId: inserted.id,
        forInvestor: options.forInvestor,
      },
    });
    const [comment] = await tx.query<ReviewComment>(
      `select ${COMMENT_COLUMNS} from ${COMMENT_JOINS} where c.id = $1`,
      [inserted.id],
    );
    if (!comment) throw new Error('the new comment is gone');
    return comment;
  });
}

/** Resolves a comment of the organization (again: no change); NOT_FOUND for one of another organization. */
export async function resolveReviewComment(
  db: Database,
  options: { organizationId: string; commentId: string; actor: ActivityActor & { type: 'user'; id: string } },
): Promise<ReviewComment> {
  return db.transaction(async (tx) => {
    const [resolved] = await tx.query<{ id: string; transactionId: string; changed: boolean }>(
      `with before as (
         select id, resolved_at from review_comments where id = $1 and organization_id = $2 for update)
       update review_comments c set resolved_at = coalesce(c.resolved_at, clock_timestamp()),
         resolved_by = coalesce(c.resolved_by, $3)
       from before where c.id = before.id
       returning c.id, c.transaction_id as "transactionId", before.resolved_at is null as changed`,
      [options.commentId, options.organizationId, options.actor.id],
    );
    if (!resolved) throw notFound('comment');
    if (resolved.changed) {
      await recordActivity(tx, {
        organizationId: options.organizationId,
        transactionId: resolved.transactionId,
        kind: 'console',
        action: 'resolved_comment',
        actor: options.actor,
        details: { commentId: resolved.id },
      });
    }
    const [comment] = await tx.query<ReviewComment>(
      `select ${COMMENT_COLUMNS} from ${COMMENT_JOINS} where c.id = $1`,
      [resolved.id],
    );
    if (!comment) throw new Error('the resolved comment is gone');
    return comment;
  });
}
