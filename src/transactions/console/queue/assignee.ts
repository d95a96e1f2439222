import type { Database, Queryable } from '../../../db/database.ts';
import type { Actor } from '../../actor.ts';
import { recordActivity } from '../../history/activity.ts';
import { notFound } from '../../../errors.ts';
import { isUuid } from '../../../validation/uuid.ts';

/** Who of the organization looks after a transaction in the console's queue. */
export interface Assignee {
  id: string;
  name: string;
}

/**
 * Assigns a transaction of the organization to one of the organization's users (`userId`), or unassigns it
 * (`userId: null`); answers the assignee now. NOT_FOUND for a transaction or a user that is not the
 * organization's, as for one that does not exist. The transaction's `updated_at` stays: an assignment is the
 * console's bookkeeping, not a change of the transaction. A user who is removed leaves their transactions
 * unassigned (`on delete set null`).
 *
 * @example
 * await assignTransaction(db, { organizationId, transactionId, userId: user.id }); // { id, name }
 * await assignTransaction(db, { organizationId, transactionId, userId: null }); // null
 */
export async function assignTransaction(
  db: Queryable,
  options: { organizationId: string; transactionId: string; userId: string | null },
): Promise<Assignee | null> {
  const { organizationId, transactionId, userId } = options;
  if (!isUuid(transactionId)) throw notFound('transaction', transactionId, { field: 'transactionId' });
  if (userId !== null && !isUuid(userId)) throw notFound('user', userId, { field: 'userId' });
  const [row] = await db.query<{
    found: boolean;
    transactionFound: boolean;
    id: string | null;
    name: string | null;
  }>(
    `with assignee as (select id, name from users where id = $3 and organization_id = $1),
     assigned as (
       update transactions set assignee_user_id = (select id from assignee)
       where id = $2 and organization_id = $1 and ($3::uuid is null or exists (select 1 from assignee))
       returning id)
     select exists (select 1 from assigned) as found,
       exists (select 1 from transactions where id = $2 and organization_id = $1) as "transactionFound",
       (select id from assignee) as id, (select name from assignee) as name`,
    [organizationId, transactionId, userId],
  );
  if (row?.found !== true) {
    if (row?.transactionFound !== true)
      throw notFound('transaction', transactionId, { field: 'transactionId' });
    throw notFound('user', userId, { field: 'userId' });
  }
  return row.id === null ? null : { id: row.id, name: row.name ?? '' };
}

/**
 * Assigns a transaction from the console, as {@link assignTransaction}, and records who did it in the
 * transaction's timeline (`assigned`, with the assignee or null), in one database transaction.
 */
export function assignInConsole(
  db: Database,
  options: { organizationId: string; transactionId: string; userId: string | null; actor: Actor },
): Promise<Assignee | null> {
  return db.transaction(async (tx) => {
    const assignee = await assignTransaction(tx, options);
    await recordActivity(tx, {
      organizationId: options.organizationId,
      transactionId: options.transactionId,
      kind: 'console',
      action: 'assigned',
      actor: options.actor,
      details: { assignee },
    });
    return assignee;
  });
}
