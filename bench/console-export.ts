/**
 * The console export suite: the work queue exported as CSV (`writeQueueExport`, the domain function the
 * `GET /console/api/queue/export` route streams) over N transactions of one organization (20,000 by default), each
 * with its four items answered, written to a stream that drops what it gets; beside it **the floor**: csv-stringify
 * alone writing as many rows of as many plain text cells, as long on average, with the same options, to the same
 * kind of stream. It prints rows per second for each, their ratio, the XLSX export's rate for comparison, and how
 * much the process's resident memory grew at its peak during each export (a stream that holds a page or two at a
 * time stays flat). Target: **the CSV export writes at least 20,000 rows per second**. On each database of
 * BENCH_DIALECTS, each its own fresh one (database.ts), seeded by SQL and not analyzed (PGlite never is).
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { loadExampleTemplate } from '../src/demo/seed.ts';
import type { Database } from '../src/db/database.ts';
import {
  planQueueExport,
  writeQueueExport,
  type ExportFormat,
} from '../src/transactions/console/export/export.ts';
import { importTemplate } from '../src/transactions/templates/templates.ts';
import { openBenchDatabase, type Dialect } from './database.ts';
import { median, printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** The rate the CSV export must reach, in rows per second. */
const TARGET_ROWS_PER_SECOND = 20_000;

export interface ExportBenchSettings {
  /** Transactions of the organization, all exported (20,000). */
  transactions: number;
  /** Measured rounds (after one not measured), each running the floor, the CSV and the XLSX export once. */
  rounds: number;
}

/** One way of writing the rows, measured round after round. */
interface ExportCase {
  name: 'floor: csv-stringify alone' | 'CSV export' | 'XLSX export';
  rows: number;
  bytes: number;
  seconds: number[];
  /** The largest growth of the resident set seen during each run, in bytes. */
  peakGrowth: number[];
}

export interface ExportReport {
  dialect: Dialect;
  description: string;
  transactions: number;
  columns: number;
  seedSeconds: number;
  cases: ExportCase[];
}

/** A stream that counts what it is given and keeps none of it. */
function nullStream(): { stream: Writable; bytes: () => number } {
  let bytes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done();
    },
  });
  return { stream, bytes: () => bytes };
}

/** Runs `work`, sampling the process's resident set every 5 ms: its time and the largest growth seen. */
async function measured(work: () => Promise<void>): Promise<{ seconds: number; peakGrowth: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { seconds, peakGrowth: peak - before };
}

/**
 * One organization with the example template and `count` transactions by SQL, in the states of a fund's queue,
 * each with a subscription process, its revision and the four items answered (name, e-mail, address, date of
 * birth; tax residency and status; accreditation; an amount).
 */
async function seedExportOrganization(db: Database, count: number): Promise<string> {
  const [organization] = await db.query<{ id: string }>(
    `insert into organizations (handle, name) values ('bench-export', 'Bench Capital') returning id`,
  );
  const organizationId = organization?.id ?? '';
  const template = await importTemplate(db, { organizationId, definition: await loadExampleTemplate() });
  await db.query(
    `insert into entities (organization_id, name, email, type)
     values ($1, 'Harbor Growth Fund I, L.P.', 'operations@harbor.example', 'fund')`,
    [organizationId],
  );
  await db.query(
    `insert into transactions (organization_id, template_id, sender_entity_id, state, notice_name, notice_email,
       investor_name, created_at, updated_at, state_entered_at, completed_at)
     select $1, $2, (select id from entities where organization_id = $1),
       (array['draft', 'in_progress', 'in_review', 'changes_requested', 'countersigning', 'completed'])[1 + g % 6],
       'Investor ' || g, 'investor' || g || '@example.com',
       case when g % 3 = 0 then 'Investor ' || g || ' Family Trust' else 'Investor ' || g end,
       now() - (g || ' minutes')::interval, now() - (g || ' seconds')::interval,
       now() - (g || ' seconds')::interval,
       case when g % 6 = 5 then now() - (g || ' seconds')::interval end
     from generate_series(1, $3::int) g`,
    [organizationId, template.id, count],
  );
  await db.query(
    `insert into transaction_processes (organization_id, transaction_id, key)
     select organization_id, id, 'subscription' from transactions where organization_id = $1`,
    [organizationId],
  );
  await db.query(
    `insert into transaction_process_revisions (organization_id, transaction_process_id, transaction_id, number)
     select organization_id, id, transaction_id, 1 from transaction_processes where organization_id = $1`,
    [organizationId],
  );
  await db.query(
    `insert into transaction_items (organization_id, transaction_process_revision_id, transaction_id, vulcan_key,
       data, completion_percentage)
     select r.organization_id, r.id, r.transaction_id, item.key, item.data, 100
     from transaction_process_revisions r
     join transactions t on t.id = r.transaction_id
     cross join lateral (values
       ('investor_details', jsonb_build_object('investorType', 'individual', 'legalName', t.notice_name,
          'email', t.notice_email, 'address', t.sequence || ' Harbor Lane, Boston, MA 02110',
          'dateOfBirth', '1979-04-18')),
       ('tax_forms', jsonb_build_object('taxResidency', 'US', 'usPerson', true, 'taxId', '12-3456789')),
       ('accreditation', jsonb_build_object('basis', jsonb_build_array('net_worth', 'income'), 'confirmed', true)),
       ('subscription_amount', jsonb_build_object('amount',
          jsonb_build_object('currency', 'USD', 'amount', 100000 * (1 + t.sequence % 500))))
     ) item(key, data)
     where r.organization_id = $1`,
    [organizationId],
  );
  return organizationId;
}

/**
 * csv-stringify alone: `rows` rows of `columns` plain text cells of `width` characters, with the export's options,
 * to `output`.
 */
async function floor(rows: number, columns: number, width: number, output: Writable): Promise<void> {
  const stringifier = stringify({ bom: true, record_delimiter: 'windows' });
  const done = pipeline(stringifier, output);
  const row = Array.from({ length: columns }, (_, index) => `cell ${String(index)} `.padEnd(width, 'x'));
  for (let index = 0; index < rows; index += 1) {
    if (!stringifier.write(row)) await new Promise((resolve) => stringifier.once('drain', resolve));
  }
  stringifier.end();
  await done;
}

/** Seeds a fresh database of `dialect`, then measures the floor and both exports round after round. */
export async function benchConsoleExport(
  dialect: Dialect,
  settings: ExportBenchSettings,
): Promise<ExportReport> {
  const bench = await openBenchDatabase(dialect);
  try {
    console.log(`\nconsole export on ${bench.description}`);
    const seedStarted = performance.now();
    const organizationId = await seedExportOrganization(bench.db, settings.transactions);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    console.log(
      `  seeded ${settings.transactions.toLocaleString('en-US')} transactions in ${seedSeconds.toFixed(1)} s`,
    );
    const plan = await planQueueExport(bench.db, { organizationId, filters: {} });
    const columns = plan.sheet.columns.length;
    const cases: ExportCase[] = (['floor: csv-stringify alone', 'CSV export', 'XLSX export'] as const).map(
      (name) => ({ name, rows: 0, bytes: 0, seconds: [], peakGrowth: [] }),
    );
    // The floor's cells are as long as the CSV export's, on average (a comma after each): as many bytes.
    let width = 18;
    const runs: ((output: Writable) => Promise<number>)[] = [
      async (output) => {
        await floor(plan.count, columns, width, output);
        return plan.count;
      },
      ...(['csv', 'xlsx'] as ExportFormat[]).map((format) => async (output: Writable) => {
        const written = await writeQueueExport(bench.db, plan, { format, output });
        if (!written.complete) throw new Error(`the ${format} export did not complete`);
        return written.rows;
      }),
    ];
    for (let round = 0; round <= settings.rounds; round += 1) {
      for (const [index, run] of runs.entries()) {
        const entry = cases[index];
        if (!entry) continue;
        const sink = nullStream();
        let rows = 0;
        const result = await measured(async () => {
          rows = await run(sink.stream);
        });
        if (entry.name === 'CSV export') width = Math.max(1, Math.round(sink.bytes() / rows / columns) - 1);
        if (rows !== settings.transactions) {
          throw new Error(`${entry.name} wrote ${String(rows)} rows, not ${String(settings.transactions)}`);
        }
        // The first round warms up: not measured.
        if (round === 0) continue;
        entry.rows = rows;
        entry.bytes = sink.bytes();
        entry.seconds.push(result.seconds);
        entry.peakGrowth.push(result.peakGrowth);
        console.log(
          `  round ${String(round)} ${entry.name}: ${(rows / result.seconds).toFixed(0)} rows/s, ` +
            `peak RSS growth ${(result.peakGrowth / 2 ** 20).toFixed(1)} MiB`,
        );
      }
    }
    return {
      dialect,
      description: bench.description,
      transactions: settings.transactions,
      columns,
      seedSeconds,
      cases,
    };
  } finally {
    await bench.close();
  }
}

/** The suite's table (each case's median rate, its ratio to the floor's, its peak memory growth) and its target. */
export function printExportReport(report: ExportReport): TargetResult[] {
  const rateOf = (entry: ExportCase) => entry.rows / median(entry.seconds);
  const floorCase = report.cases[0];
  const floorRate = floorCase === undefined ? Number.NaN : rateOf(floorCase);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `\nconsole export (${report.description}): ${report.transactions.toLocaleString('en-US')} transactions, ` +
      `${String(report.columns)} columns, medians of ${String(floorCase?.seconds.length ?? 0)} rounds:`,
  );
  printMarkdownTable(
    ['writer', 'rows', 'MiB written', 'seconds', 'rows/s', 'to floor', 'peak RSS growth MiB (max)'],
    report.cases.map((entry) => [
      entry.name,
      entry.rows.toLocaleString('en-US'),
      mib(entry.bytes),
      median(entry.seconds).toFixed(2),
      rateOf(entry).toFixed(0),
      `${((rateOf(entry) / floorRate) * 100).toFixed(1)}%`,
      mib(Math.max(...entry.peakGrowth)),
    ]),
  );
  console.log(`  seeded in ${report.seedSeconds.toFixed(1)} s`);
  console.log(`\nTargets (console export, ${report.dialect}):`);
  const csv = report.cases.find((entry) => entry.name === 'CSV export');
  if (csv === undefined) return [];
  const rate = rateOf(csv);
  return [
    targetResult(
      `CSV export >= ${TARGET_ROWS_PER_SECOND.toLocaleString('en-US')} rows/s, ${report.dialect}`,
      `${rate.toFixed(0)} rows/s (${((rate / floorRate) * 100).toFixed(1)}% of csv-stringify alone)`,
      rate / TARGET_ROWS_PER_SECOND,
    ),
  ];
}
