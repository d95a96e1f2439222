import type { Database, Queryable } from '../db/database.ts';
import {
  quoteIdentifier,
  readTableRows,
  resetIdentities,
  tablesInCopyOrder,
  tablesWithRows,
  writeTableRows,
  type CopiedTable,
} from '../db/table-copy.ts';
import { AppError } from '../errors.ts';

/** What `portico migrate-to` copied, for the operator. */
export interface MigrateToSummary {
  tables: number;
  rows: number;
}

/**
 * A fingerprint of each table's rows: their count and an MD5 of every row as JSON, sorted, read in UTC so that
 * both databases spell times alike. Equal on both sides means the copy reads back as the original.
 */
async function fingerprints(db: Queryable, tables: readonly CopiedTable[]): Promise<Map<string, string>> {
  await db.query("select set_config('timezone', 'UTC', true)");
  const found = new Map<string, string>();
  for (const table of tables) {
    const [row] = await db.query<{ rows: string; digest: string | null }>(
      `select count(*)::text as rows, md5(string_agg(r, E'\\n' order by r)) as digest
       from (select to_jsonb(t)::text as r from ${quoteIdentifier(table.name)} t) x`,
    );
    found.set(table.name, `${row?.rows ?? '0'} ${row?.digest ?? ''}`);
  }
  return found;
}

/**
 * Copies every table of the embedded database `source` into the PostgreSQL database `target`, both migrated to
 * the same schema: in one transaction of the target, tables in an order that satisfies their foreign keys,
 * identity sequences set past the copied values, then every table read back and compared with the source
 * before the transaction commits. The target must hold no rows; nothing is written to it otherwise.
 */
export async function migrateTo(source: Database, target: Database): Promise<MigrateToSummary> {
  const tables = await tablesInCopyOrder(source);
  const targetTables = new Set((await tablesInCopyOrder(target)).map((table) => table.name));
  const missing = tables.filter((table) => !targetTables.has(table.name)).map((table) => table.name);
  if (missing.length > 0)
    throw new AppError(
      'CONFLICT',
      `The PostgreSQL database lacks tables of the embedded one (${missing.join(', ')}); is it another application's?`,
    );
  const filled = await tablesWithRows(target, tables);
  if (filled.length > 0)
    throw new AppError(
      'CONFLICT',
      `The PostgreSQL database holds data already (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', …' : ''}); migrate into an empty database.`,
    );
  const expected = await source.transaction((tx) => fingerprints(tx, tables));
  let rows = 0;
  await target.transaction(async (tx) => {
    for (const table of tables) {
      let first = true;
      for await (const batch of readTableRows(source, table)) {
        await writeTableRows(tx, table, batch, first);
        first = false;
        rows += batch.length;
      }
      if (first) await writeTableRows(tx, table, [], true);
    }
    await resetIdentities(tx, tables);
    const copied = await fingerprints(tx, tables);
    const differing = tables.filter((table) => copied.get(table.name) !== expected.get(table.name));
    if (differing.length > 0)
      throw new Error(
        `the copy of ${differing.map((table) => table.name).join(', ')} does not read back as the original`,
      );
  });
  return { tables: tables.length, rows };
}
