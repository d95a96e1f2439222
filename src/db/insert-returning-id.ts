import type { Queryable } from './database.ts';

/**
 * Runs an `insert … values (…)` statement with `returning id` appended and answers the new row's id.
 *
 * @example
 * const id = await insertReturningId(tx, 'insert into entities (organization_id, name) values ($1, $2)', [org, name]);
 */
export async function insertReturningId(db: Queryable, sql: string, params: unknown[]): Promise<string> {
  const [row] = await db.query<{ id: string }>(`${sql} returning id`, params);
  if (!row) throw new Error('insert returned no row');
  return row.id;
}
