import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { quoteIdentifier } from '../db/table-copy.ts';

/**
 * Data growth and retention: what Portico keeps only for a while, and the cleanup that removes it after. Each
 * rule deletes in batches of {@link BATCH_ROWS} rows, each batch its own short transaction under an advisory
 * lock taken without waiting (`pg_try_advisory_xact_lock`): no long lock on a table, and with several nodes one
 * deletes while the others skip their turn.
 */

/**
 * The settings of `PORTICO_RETENTION`: days each kind of record is kept, or `never`. `webhooks`: events once
 * fanned out with no delivery pending, with their deliveries and attempts; `sessions`: expired sessions, from
 * their expiry; `links`: password-reset links and key-delivery codes, from their expiry; `mail`: the `.eml` files
 * of `<data dir>/mail/`, from when they were written; `addresses`: the address and user agent each act of a
 * transaction's history came from (`transaction_history_origins`), from the act: seven years by default, as long
 * as a fund keeps its subscription records (the history itself stays).
 */
export type RetentionSettings = Config['retention'];

export type RetentionSetting = keyof RetentionSettings;

/** How long each setting keeps, in days, when `PORTICO_RETENTION` leaves it out. */
export const RETENTION_DEFAULTS: Record<RetentionSetting, number> = {
  webhooks: 30,
  sessions: 1,
  links: 30,
  mail: 30,
  addresses: 2555,
};

/** Rows deleted by one statement: a short lock, a short transaction. */
export const BATCH_ROWS = 1000;

/** How often `serve` cleans up. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;
const LOCK = "select pg_try_advisory_xact_lock(hashtext('portico.retention')) as locked";

/** One kind of record that is kept for a while, in one table: `where` holds it past `$1`, its cut-off time. */
interface TableRule {
  name: string;
  table: string;
  where: string;
  /** The setting that says how long, or a fixed time in milliseconds (a window documented elsewhere). */
  keep: RetentionSetting | { fixedMs: number };
}

const TABLE_RULES: TableRule[] = [
  {
    name: 'webhook events, with their deliveries and attempts',
    table: 'outbox_events',
    where: `dispatched_at is not null and created_at < $1 and not exists (
      select 1 from webhook_deliveries d where d.event_id = outbox_events.id and d.status = 'pending')`,
    keep: 'webhooks',
  },
  {
    // The replay window of Idempotency-Key (docs/transactions.md): a key is reusable after it anyway.
    name: 'idempotency keys',
    table: 'idempotency_keys',
    where: 'created_at < $1',
    keep: { fixedMs: DAY_MS },
  },
  { name: 'expired sessions', table: 'user_sessions', where: 'expires_at < $1', keep: 'sessions' },
  {
    name: "acts' addresses and user agents",
    table: 'transaction_history_origins',
    where: 'created_at < $1',
    keep: 'addresses',
  },
  {
    // Invitations stay: the console's team history shows who invited whom.
    name: 'password-reset links',
    table: 'user_links',
    where: `purpose = 'password_reset' and expires_at < $1`,
    keep: 'links',
  },
  { name: 'key-delivery codes', table: 'key_delivery_codes', where: 'expires_at < $1', keep: 'links' },
  {
    name: 'attempt counters',
    table: 'attempt_counters',
    where: 'resets_at < $1',
    keep: { fixedMs: 0 },
  },
];

/** What one rule removed (or, in a dry run, would remove). */
export interface RetentionResult {
  name: string;
  /** The table, or `<data dir>/mail` for mail files. */
  table: string;
  /** Days kept, `never`, or a fixed window's days. */
  keptDays: number | 'never';
  removed: number;
}

function keptDays(rule: TableRule['keep'], settings: RetentionSettings): number | 'never' {
  if (typeof rule === 'object') return rule.fixedMs / DAY_MS;
  return settings[rule] ?? RETENTION_DEFAULTS[rule];
}

/** The `.eml` files of the mail dir written before `cutoff`. */
async function oldMail(dataDir: string, cutoff: Date): Promise<string[]> {
  const dir = join(dataDir, 'mail');
  const names = await readdir(dir).catch(() => [] as string[]);
  const old: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.eml')) continue;
    const written = await stat(join(dir, name)).catch(() => undefined);
    if (written?.isFile() && written.mtime < cutoff) old.push(join(dir, name));
  }
  return old;
}

/**
 * Removes what the retention settings no longer keep, or with `dryRun` counts it and removes nothing. A batch
 * that finds another node cleaning up (the advisory lock taken) ends that rule's turn: that node does it.
 */
export async function cleanUp(
  db: Database,
  options: {
    dataDir: string;
    settings: RetentionSettings;
    dryRun?: boolean;
    now?: Date;
    /** Stops between batches (the process is closing). */
    signal?: AbortSignal;
  },
): Promise<RetentionResult[]> {
  const now = options.now ?? new Date();
  const results: RetentionResult[] = [];
  for (const rule of TABLE_RULES) {
    const days = keptDays(rule.keep, options.settings);
    const result = { name: rule.name, table: rule.table, keptDays: days, removed: 0 };
    results.push(result);
    if (days === 'never') continue;
    const cutoff = new Date(now.getTime() - days * DAY_MS);
    const table = quoteIdentifier(rule.table);
    if (options.dryRun === true) {
      const [row] = await db.query<{ count: number }>(
        `select count(*)::integer as count from ${table} where ${rule.where}`,
        [cutoff],
      );
      result.removed = row?.count ?? 0;
      continue;
    }
    for (;;) {
      const removed = await db.transaction(async (tx) => {
        const [lock] = await tx.query<{ locked: boolean }>(LOCK);
        if (lock?.locked !== true) return 0;
        const rows = await tx.query(
          `delete from ${table} where ctid in (select ctid from ${table} where ${rule.where} limit ${String(BATCH_ROWS)})
           returning 1`,
          [cutoff],
        );
        return rows.length;
      });
      result.removed += removed;
      if (removed < BATCH_ROWS || options.signal?.aborted === true) break;
    }
  }
  const mailDays = options.settings.mail ?? RETENTION_DEFAULTS.mail;
  const mail = { name: 'mail files', table: '<data dir>/mail', keptDays: mailDays, removed: 0 };
  results.push(mail);
  if (mailDays !== 'never') {
    const old = await oldMail(options.dataDir, new Date(now.getTime() - mailDays * DAY_MS));
    mail.removed = old.length;
    if (options.dryRun !== true) for (const path of old) await rm(path, { force: true });
  }
  return results;
}

/**
 * Cleans up every {@link RETENTION_INTERVAL_MS} while `serve` runs, the first time a minute after start (not
 * in the way of the start itself). `stop` waits for a pass under way to end its batch.
 */
export function startRetention(options: {
  db: Database;
  dataDir: string;
  settings: RetentionSettings;
  logger: Logger;
  intervalMs?: number;
  firstAfterMs?: number;
}): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const pass = async () => {
    try {
      const results = await cleanUp(options.db, {
        dataDir: options.dataDir,
        settings: options.settings,
        signal: stopping.signal,
      });
      const removed = Object.fromEntries(
        results.filter((result) => result.removed > 0).map((result) => [result.table, result.removed]),
      );
      if (Object.keys(removed).length > 0)
        options.logger.info({ removed }, 'retention cleanup removed old records');
    } catch (error) {
      options.logger.warn({ err: error }, 'retention cleanup failed; it runs again later');
    }
  };
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        if (!stopped) schedule(options.intervalMs ?? RETENTION_INTERVAL_MS);
      });
    }, delay);
    timer.unref();
  };
  schedule(options.firstAfterMs ?? 60_000);
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
