import type { Queryable } from './database.ts';

/**
 * Runs a statement that answers exactly one row, such as an `insert … returning`, and answers that row. Any
 * other count is a fault of the statement, not of its input: the error names the table the statement writes
 * (`insert into entities returned no row`).
 *
 * @example
 * const { id } = await oneRow<{ id: string }>(tx, 'insert into entities (organization_id, name) values ($1, $2) returning id', [org, name]);
 */
export async function oneRow<Row>(db: Queryable, sql: string, params: readonly unknown[]): Promise<Row> {
  const rows = await db.query<Row>(sql, params);
  const [row] = rows;
  if (!row || rows.length > 1) {
    throw new Error(`${statementName(sql)} returned ${rows.length === 0 ? 'no row' : `${rows.length} rows`}`);
  }
  return row;
}

/** The statement's first write (`insert into entities`), or its first words when it writes nothing. */
function statementName(sql: string): string {
  const write = /\b(?:insert\s+into|update|delete\s+from)\s+\w+/i.exec(sql)?.[0];
  return (write ?? sql.trim().split(/\s+/).slice(0, 4).join(' ')).replace(/\s+/g, ' ');
}
