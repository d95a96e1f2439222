/**
 * The console closings suite (issue 40): a closing's list of 1,000 investors read and checked in the document
 * workers (the preflight), beside the floor of csv-parse alone reading the same file; and a 1,000-row closing
 * created on PostgreSQL by the closings' job, beside the floor of the same 1,000 `createTransaction` calls in a
 * loop, while a reader walks the organization's work queue and its p95 is measured. A database of its own
 * (`portico_bench_closings` on the server of BENCH_DATABASE_URL), made, migrated and dropped at the end. See
 * bench/README.md, "The console closings suite".
 */
import { randomUUID } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPostgresDatabase } from '../src/db/postgres-database.ts';
import { loadExampleTemplate } from '../src/demo/seed.ts';
import {
  createClosing,
  replaceClosingList,
  runClosing,
} from '../src/transactions/console/closings/closings.ts';
import { runDueClosings } from '../src/transactions/console/closings/closing-runs.ts';
import { readQueue } from '../src/transactions/console/queue/queue.ts';
import { createTransaction } from '../src/transactions/create-transaction.ts';
import { createDocumentWorkers } from '../src/transactions/documents/document-workers.ts';
import { admin, withDatabase } from './console-queue.ts';
import { BENCH_DATABASE_URL } from './database.ts';
import { seedConsoleOrganization } from './seed.ts';
import { median, printMarkdownTable, targetResult, type TargetResult } from './table.ts';

export interface ClosingsBenchSettings {
  /** Rows of the list (1,000). */
  rows: number;
  /** Preflights measured (after one unmeasured, which starts the worker). */
  preflights: number;
  database: string;
}

export interface ClosingsReport {
  preflightMs: number[];
  preflightFloorMs: number[];
  createSeconds: number;
  createFloorSeconds: number;
  queueP95Ms: number;
  queueReads: number;
  targets: TargetResult[];
}

/** A list of `rows` investors as a spreadsheet saves it: name, address, entity type and an amount. */
function investorList(rows: number): Uint8Array {
  const lines = Array.from(
    { length: rows },
    (_, index) =>
      `Investor ${String(index)},investor-${String(index)}-${randomUUID()}@example.com,Individual,"${String(10 + (index % 900))},000"`,
  );
  return new TextEncoder().encode(['Name,E-mail,Entity type,Amount', ...lines].join('\n'));
}

/** Reads the organization's first queue page every 50 ms until `until` settles; each read's time in ms. */
async function readWhile(db: Database, organizationId: string, until: Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  const reading = { done: false };
  void until.finally(() => {
    reading.done = true;
  });
  while (!reading.done) {
    const started = performance.now();
    await readQueue(db, { organizationId, query: {} });
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return times;
}

/** The suite: see the file's comment. */
export async function benchConsoleClosings(options: {
  settings: ClosingsBenchSettings;
  defer: (cleanup: () => Promise<unknown>) => void;
}): Promise<ClosingsReport> {
  const { settings } = options;
  const name = settings.database;
  console.log(`\nconsole closings on PostgreSQL, database ${name}`);
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const db: Database = createPostgresDatabase({ connectionString: withDatabase(BENCH_DATABASE_URL, name) });
  const workers = createDocumentWorkers();
  options.defer(async () => {
    await workers.close();
    await db.close();
    await admin(`drop database if exists ${name} with (force)`);
  });
  await migrate(db);
  const definition = await loadExampleTemplate();

  // The preflight: the file read and every row checked in a worker, beside csv-parse alone on the main thread.
  const list = investorList(settings.rows);
  await workers.preflight(definition, list);
  const preflightMs: number[] = [];
  const preflightFloorMs: number[] = [];
  for (let run = 0; run < settings.preflights; run += 1) {
    let started = performance.now();
    const checked = await workers.preflight(definition, list);
    preflightMs.push(performance.now() - started);
    if (checked.rows.some((row) => row.problems.length > 0)) throw new Error('the bench list has problems');
    started = performance.now();
    parseCsv(new TextDecoder().decode(list), { bom: true });
    preflightFloorMs.push(performance.now() - started);
  }

  // A closing of the list created by the job, while the queue is read; then the floor, the same rows made by
  // createTransaction in a loop, for another organization.
  const ours = await seedConsoleOrganization(db);
  const closing = await createClosing(db, {
    organizationId: ours.organizationId,
    userId: ours.userId,
    input: { name: 'Bench close', templateId: ours.templateId, senderEntityId: ours.senderEntityId },
  });
  await replaceClosingList(db, {
    organizationId: ours.organizationId,
    closingId: closing.id,
    preflight: await workers.preflight(definition, list),
  });
  await runClosing(db, { organizationId: ours.organizationId, closingId: closing.id, userId: ours.userId });
  let started = performance.now();
  const running = runDueClosings(db);
  const reads = await readWhile(db, ours.organizationId, running);
  const counts = await running;
  const createSeconds = (performance.now() - started) / 1000;
  if (counts.created !== settings.rows) throw new Error(`the closing made ${String(counts.created)} rows`);

  const floor = await seedConsoleOrganization(db);
  const checked = await workers.preflight(definition, list);
  started = performance.now();
  for (const row of checked.rows) {
    await db.transaction((tx) =>
      createTransaction(tx, {
        organizationId: floor.organizationId,
        actor: { type: 'user', id: floor.userId },
        input: {
          templateId: floor.templateId,
          senderEntityId: floor.senderEntityId,
          noticeName: row.investor.name,
          noticeEmail: row.investor.email,
          inputData: { subscription_amount: { amount: row.answers['subscription_amount.amount'] } },
        },
      }),
    );
  }
  const createFloorSeconds = (performance.now() - started) / 1000;

  const sorted = reads.toSorted((a, b) => a - b);
  const queueP95Ms = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? Number.NaN;
  const preflightMedian = median(preflightMs);
  console.log('  targets:');
  const targets = [
    targetResult(
      `preflight of a ${settings.rows.toLocaleString('en-US')}-row CSV ≤ 2 s`,
      `${(preflightMedian / 1000).toFixed(2)} s`,
      2000 / preflightMedian,
    ),
    targetResult(
      `a ${settings.rows.toLocaleString('en-US')}-row closing created ≤ 60 s`,
      `${createSeconds.toFixed(1)} s`,
      60 / createSeconds,
    ),
    targetResult('the queue while it runs, p95 ≤ 100 ms', `${queueP95Ms.toFixed(1)} ms`, 100 / queueP95Ms),
  ];
  return {
    preflightMs,
    preflightFloorMs,
    createSeconds,
    createFloorSeconds,
    queueP95Ms,
    queueReads: reads.length,
    targets,
  };
}

/** The suite's table, ready for RESULTS.md. */
export function printClosingsReport(report: ClosingsReport, rows: number): void {
  const preflight = median(report.preflightMs);
  const preflightFloor = median(report.preflightFloorMs);
  printMarkdownTable(
    ['case', 'ours', 'floor', 'to floor'],
    [
      [
        `preflight of ${rows.toLocaleString('en-US')} rows (worker; floor: csv-parse alone)`,
        `${preflight.toFixed(0)} ms`,
        `${preflightFloor.toFixed(0)} ms`,
        `${(preflight / preflightFloor).toFixed(1)}x`,
      ],
      [
        `${rows.toLocaleString('en-US')} rows created (the job; floor: createTransaction in a loop)`,
        `${report.createSeconds.toFixed(1)} s`,
        `${report.createFloorSeconds.toFixed(1)} s`,
        `${(report.createSeconds / report.createFloorSeconds).toFixed(2)}x`,
      ],
      [
        `the queue's first page while it runs (${String(report.queueReads)} reads)`,
        `p95 ${report.queueP95Ms.toFixed(1)} ms`,
        '',
        '',
      ],
    ],
  );
}
