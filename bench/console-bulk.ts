/**
 * The console bulk suite: a bulk reminder over BENCH_BULK_ROWS transactions (10,000 by default) of one
 * organization, timed end to end: the preflight (each transaction eligible or blocked) and the job that reminds
 * each eligible one once (bulk/bulk-runs.ts), beside the floor "under 60 s". On each database of BENCH_DIALECTS.
 */
import { randomUUID } from 'node:crypto';
import { createBulkJob, preflightBulk } from '../src/transactions/console/bulk/bulk-jobs.ts';
import { runDueBulkJobs } from '../src/transactions/console/bulk/bulk-runs.ts';
import { createTransaction } from '../src/transactions/create-transaction.ts';
import { openBenchDatabase, type Dialect } from './database.ts';
import { seedConsoleOrganization } from './seed.ts';
import { printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** The floor: a bulk reminder over 10,000 transactions, preflight and job, within a minute. */
const FLOOR_SECONDS = 60;
/** Transactions made per database transaction while seeding. */
const SEED_BATCH = 200;

export interface BulkReport {
  dialect: Dialect;
  rows: number;
  eligible: number;
  preflightSeconds: number;
  jobSeconds: number;
  targets: TargetResult[];
}

/** The suite on one dialect: see the file's comment. */
export async function benchConsoleBulk(options: { dialect: Dialect; rows: number }): Promise<BulkReport> {
  const { dialect, rows } = options;
  const bench = await openBenchDatabase(dialect);
  try {
    const { db } = bench;
    console.log(`\nconsole bulk on ${bench.description}: ${rows.toLocaleString('en-US')} transactions`);
    const { organizationId, senderEntityId, templateId, userId } = await seedConsoleOrganization(db);
    for (let made = 0; made < rows; made += SEED_BATCH) {
      await db.transaction(async (tx) => {
        for (let index = made; index < Math.min(rows, made + SEED_BATCH); index += 1) {
          await createTransaction(tx, {
            organizationId,
            actor: { type: 'system', id: null },
            input: {
              templateId,
              senderEntityId,
              noticeName: `Investor ${String(index)}`,
              noticeEmail: `investor-${String(index)}@example.com`,
              inputData: {},
            },
          });
        }
      });
    }

    const request = {
      organizationId,
      role: 'operator' as const,
      selection: { filter: {} },
      action: { kind: 'remind' as const },
    };
    let started = performance.now();
    const preflight = await preflightBulk(db, request);
    const preflightSeconds = (performance.now() - started) / 1000;
    if (preflight.total !== rows)
      throw new Error(`the preflight saw ${String(preflight.total)} transactions`);
    started = performance.now();
    await createBulkJob(db, {
      ...request,
      userId,
      checkedAt: preflight.checkedAt,
      idempotencyKey: randomUUID(),
    });
    const counts = await runDueBulkJobs(db);
    const jobSeconds = (performance.now() - started) / 1000;
    if (counts.done !== preflight.eligible) {
      throw new Error(`the job reminded ${String(counts.done)} of ${String(preflight.eligible)} eligible`);
    }
    const total = preflightSeconds + jobSeconds;
    return {
      dialect,
      rows,
      eligible: preflight.eligible,
      preflightSeconds,
      jobSeconds,
      targets: [
        targetResult(
          `a bulk reminder of ${rows.toLocaleString('en-US')} on ${dialect}, preflight + job, under ${String(FLOOR_SECONDS)} s`,
          `${total.toFixed(1)} s`,
          FLOOR_SECONDS / total,
        ),
      ],
    };
  } finally {
    await bench.close();
  }
}

/** The suite's table: each dialect's preflight, job and total beside the floor. */
export function printBulkReport(reports: readonly BulkReport[]): TargetResult[] {
  printMarkdownTable(
    ['database', 'transactions', 'eligible', 'preflight', 'job', 'total', 'floor', 'ratio'],
    reports.map((report) => {
      const total = report.preflightSeconds + report.jobSeconds;
      return [
        report.dialect,
        report.rows.toLocaleString('en-US'),
        report.eligible.toLocaleString('en-US'),
        `${report.preflightSeconds.toFixed(2)} s`,
        `${report.jobSeconds.toFixed(1)} s`,
        `${total.toFixed(1)} s`,
        `under ${String(FLOOR_SECONDS)} s`,
        (FLOOR_SECONDS / total).toFixed(2),
      ];
    }),
  );
  return reports.flatMap((report) => report.targets);
}
