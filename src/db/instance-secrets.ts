import { randomBytes } from 'node:crypto';
import type { Queryable } from './database.ts';

/**
 * A secret the deployment generates for itself on first use and keeps in its database, so that every node
 * of a deployment shares it without configuration (file links, Portfolio cursors, webhook secrets' key).
 *
 * @example
 * const links = createFileLinks(await loadInstanceSecret(db, 'file_links'));
 */
export async function loadInstanceSecret(db: Queryable, name: string): Promise<Buffer> {
  // One statement: the insert's own row when it made the secret, else the one that was there (a statement's
  // reads do not see its own writes, hence both halves).
  const [row] = await db.query<{ value: Uint8Array }>(
    `with made as (
       insert into instance_secrets (name, value) values ($1, $2) on conflict (name) do nothing returning value)
     select value from made union all select value from instance_secrets where name = $1 limit 1`,
    [name, randomBytes(32)],
  );
  if (row) return Buffer.from(row.value);
  // Another transaction made it at the same moment: the insert waited for it to commit and did nothing, and the
  // statement's snapshot, taken before, cannot see its row. A new statement can.
  const [made] = await db.query<{ value: Uint8Array }>('select value from instance_secrets where name = $1', [
    name,
  ]);
  if (!made) throw new Error(`instance secret ${name} is missing`);
  return Buffer.from(made.value);
}
