import type { Database } from '../../db/database.ts';
import {
  checkCompaniesExist,
  checkNoneMoved,
  checkRecords,
  problemReporter,
  type ImportProblem,
} from './checks.ts';
import { ImportProblems, type ImportSource } from './files.ts';
import { RECORD_TYPES, type RecordType } from '../record-types.ts';
import {
  beginRevision,
  writeCompanies,
  writeCompaniesCount,
  writeCompanyRecords,
  writeFunds,
} from './writes.ts';
import { INVESTMENT_COLUMNS, UPDATE_COLUMNS } from '../records.ts';

/**
 * Imports portfolio data into a customer instance: every record is checked (import/checks.ts), then everything
 * is written in one database transaction (import/writes.ts), or nothing is.
 */

/** How far an import has come: the records checked, or written of one type. */
export interface ImportProgress {
  phase: 'checking' | RecordType;
  done: number;
  total: number;
}

/** What an import wrote: the revision it made and the records it added and changed, by type. */
export interface ImportSummary {
  revision: string;
  created: Record<RecordType, number>;
  updated: Record<RecordType, number>;
  funds: { created: number; updated: number };
}

const COMPANY_RECORD_TABLES = [
  ['updates', 'portfolio_updates', UPDATE_COLUMNS],
  ['investments', 'portfolio_investments', INVESTMENT_COLUMNS],
] as const;

/**
 * Imports what `readImportFile` read from one or more files into an instance, in one database transaction.
 * Throws ImportProblems, naming the file, line and field of each, when anything is wrong; nothing is written
 * then.
 */
export async function importPortfolio(
  db: Database,
  options: {
    instanceId: string;
    sources: ImportSource[];
    onProgress?: (progress: ImportProgress) => void;
  },
): Promise<ImportSummary> {
  const report = (progress: ImportProgress) => {
    options.onProgress?.(progress);
  };
  const merged: ImportSource = { companies: [], updates: [], investments: [] };
  for (const source of options.sources) {
    for (const type of RECORD_TYPES) merged[type].push(...source[type]);
  }
  const total = RECORD_TYPES.reduce((sum, type) => sum + merged[type].length, 0);
  const { checked, problems } = checkRecords(merged, (done) => {
    // The last report comes once, below, whatever the count.
    if (done < total) report({ phase: 'checking', done, total });
  });
  report({ phase: 'checking', done: total, total });
  if (problems.length > 0) throw new ImportProblems(problems);

  return db.transaction(async (tx) => {
    const context = await beginRevision(tx, options.instanceId);
    const funds = await writeFunds(tx, context, checked.companies);
    const companies = await writeCompanies(tx, context, checked.companies, (done) => {
      report({ phase: 'companies', done, total: checked.companies.length });
    });
    const summary: ImportSummary = {
      revision: context.revision,
      created: { companies: companies.created, updates: 0, investments: 0 },
      updated: { companies: companies.updated, updates: 0, investments: 0 },
      funds,
    };

    const stored: ImportProblem[] = [];
    const problem = problemReporter(stored);
    await checkCompaniesExist(tx, {
      instanceId: options.instanceId,
      records: [...checked.updates, ...checked.investments],
      problem,
    });
    if (stored.length > 0) throw new ImportProblems(stored);

    for (const [type, table, columns] of COMPANY_RECORD_TABLES) {
      const counts = await writeCompanyRecords(tx, context, {
        table,
        columns,
        records: checked[type],
        onBatch: (batch, written, done) => {
          checkNoneMoved(batch, written, problem);
          report({ phase: type, done, total: checked[type].length });
        },
      });
      summary.created[type] = counts.created;
      summary.updated[type] = counts.updated;
    }
    if (stored.length > 0) throw new ImportProblems(stored);

    await writeCompaniesCount(tx, options.instanceId);
    return summary;
  });
}
