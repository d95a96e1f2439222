import type { Queryable } from './database.ts';

/**
 * Copying a database's rows, table by table, as JSON: what a backup writes and a restore reads, and what
 * `portico migrate-to` moves from the embedded database into PostgreSQL. Rows travel as `to_jsonb` text and
 * come back through `jsonb_populate_recordset`, so every column type (timestamps to the microsecond, bigint,
 * bytea, arrays, jsonb) reads back as it was, on PGlite and on PostgreSQL alike.
 */

/** A table of the schema as the copy sees it. */
export interface CopiedTable {
  name: string;
  /** The columns a copy writes: all but generated ones. */
  columns: string[];
  /** Its identity columns, whose sequences are set past the copied values afterwards. */
  identities: string[];
}

/** Rows read at a time: few enough to keep memory flat, many enough to keep statements few. */
const BATCH_ROWS = 500;

/** The bookkeeping of migrations: the schema a copy goes into is migrated by the code itself, never copied. */
const NOT_COPIED = new Set(['schema_migrations']);

/** `name` as a quoted SQL identifier. Names come from the catalog, never from a user. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The tables of the current schema, each after every table it references: the order in which rows can be
 * inserted with every foreign key checked as it goes.
 */
export async function tablesInCopyOrder(db: Queryable): Promise<CopiedTable[]> {
  const columns = await db.query<{ table: string; column: string; identity: boolean }>(
    `select c.relname as table, a.attname as column, a.attidentity <> '' as identity
     from pg_class c join pg_attribute a on a.attrelid = c.oid
     where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')
       and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
     order by c.relname, a.attnum`,
  );
  const references = await db.query<{ table: string; referenced: string }>(
    `select c.relname as table, r.relname as referenced
     from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class r on r.oid = k.confrelid
     where k.contype = 'f' and c.relnamespace = current_schema()::regnamespace and k.conrelid <> k.confrelid`,
  );
  const tables = new Map<string, CopiedTable>();
  for (const row of columns) {
    if (NOT_COPIED.has(row.table)) continue;
    const table = tables.get(row.table) ?? { name: row.table, columns: [], identities: [] };
    table.columns.push(row.column);
    if (row.identity) table.identities.push(row.column);
    tables.set(row.table, table);
  }
  const ordered: CopiedTable[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: readonly string[]) => {
    if (placed.has(name)) return;
    if (path.includes(name))
      throw new Error(`foreign keys go round a circle: ${[...path, name].join(' → ')}`);
    for (const { table, referenced } of references)
      if (table === name && tables.has(referenced)) place(referenced, [...path, name]);
    const table = tables.get(name);
    if (table) ordered.push(table);
    placed.add(name);
  };
  for (const name of [...tables.keys()].sort()) place(name, []);
  return ordered;
}

/**
 * The rows of `table` as JSON texts, a batch at a time in their physical order (the order they were written,
 * for tables that are only appended to), so that a copy lays them out as the original did.
 */
export async function* readTableRows(db: Queryable, table: CopiedTable): AsyncGenerator<string[]> {
  let after = '(0,0)';
  for (;;) {
    const rows = await db.query<{ at: string; row: string }>(
      `select t.ctid::text as at, to_jsonb(t)::text as row from ${quoteIdentifier(table.name)} t
       where t.ctid > $1::tid order by t.ctid limit ${String(BATCH_ROWS)}`,
      [after],
    );
    if (rows.length === 0) return;
    yield rows.map((row) => row.row);
    after = rows.at(-1)?.at ?? after;
    if (rows.length < BATCH_ROWS) return;
  }
}

/**
 * Inserts rows read by `readTableRows` into `table`, identity values as they were. Call it in one transaction
 * for the whole copy, tables in `tablesInCopyOrder`; a table's first call (`first`) removes what triggers of
 * tables copied before it wrote there (the console's state counts), so the copy holds the original's rows only.
 */
export async function writeTableRows(
  tx: Queryable,
  table: CopiedTable,
  rows: readonly string[],
  first: boolean,
): Promise<void> {
  const name = quoteIdentifier(table.name);
  if (first) await tx.query(`delete from ${name}`);
  if (rows.length === 0) return;
  const columns = table.columns.map(quoteIdentifier).join(', ');
  await tx.query(
    `insert into ${name} (${columns}) overriding system value
     select ${columns} from jsonb_populate_recordset(null::${name}, $1::jsonb)`,
    [`[${rows.join(',')}]`],
  );
}

/** Sets each identity sequence of `tables` past the largest value copied, so new rows never collide. */
export async function resetIdentities(tx: Queryable, tables: readonly CopiedTable[]): Promise<void> {
  for (const table of tables) {
    for (const column of table.identities) {
      const quoted = quoteIdentifier(column);
      await tx.query(
        `select setval(pg_get_serial_sequence($1, $2), m) from (select max(${quoted}) as m from ${quoteIdentifier(table.name)}) x
         where m is not null`,
        [quoteIdentifier(table.name), column],
      );
    }
  }
}

/** The tables of `tables` that hold rows (a copy goes into an empty database only). */
export async function tablesWithRows(db: Queryable, tables: readonly CopiedTable[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of tables) {
    const [row] = await db.query(`select 1 from ${quoteIdentifier(table.name)} limit 1`);
    if (row) found.push(table.name);
  }
  return found;
}

/** The last migration recorded in `schema_migrations`: the level of the schema. */
export async function schemaLevel(db: Queryable): Promise<number> {
  const [row] = await db.query<{ level: number | null }>(
    'select max(version) as level from schema_migrations',
  );
  return row?.level ?? 0;
}
