// What the closings' pages say of a closing and its rows, in words: its status, its counts, why it cannot run.

import type { SuccessOf } from '../../../../src/http/contract.ts';
import type {
  ClosingDetail,
  ClosingRow,
  ConsoleRoutes,
} from '../../../../src/transactions/console/contract.ts';
import { locale } from '../../../shared/format.ts';

export type { ClosingDetail, ClosingRow };
/** A closing as the list of closings shows it. */
export type ClosingSummary = SuccessOf<ConsoleRoutes['listClosings']>['closings'][number];
export type ClosingStatus = ClosingDetail['status'];
export type RowStatus = ClosingRow['status'];

/** A closing's status in words, with its badge's colour. */
export const CLOSING_STATUS: Record<
  ClosingStatus,
  { words: string; color: 'gray' | 'blue' | 'green' | 'red' }
> = {
  draft: { words: 'Draft', color: 'gray' },
  running: { words: 'Running', color: 'blue' },
  finished: { words: 'Finished', color: 'green' },
  stopped: { words: 'Stopped', color: 'red' },
};

/** "1 row", "28 rows": a count and its noun, the plural being the noun with an s unless given. */
export function count(number: number, noun: string, plural = `${noun}s`): string {
  return `${number.toLocaleString(locale)} ${number === 1 ? noun : plural}`;
}

/** How many rows a closing has in each status, from its rows (as the server counts them). */
export function rowCounts(rows: readonly ClosingRow[]): Record<RowStatus, number> {
  const counts: Record<RowStatus, number> = { ready: 0, problem: 0, dropped: 0, created: 0, failed: 0 };
  for (const row of rows) counts[row.status] += 1;
  return counts;
}

/** "28 ready, 2 with problems, 0 dropped": where a draft's list stands. */
export function draftSummary(counts: Record<RowStatus, number>): string {
  return `${counts.ready.toLocaleString(locale)} ready, ${counts.problem.toLocaleString(locale)} with problems, ${counts.dropped.toLocaleString(locale)} dropped`;
}

/**
 * Why a draft closing cannot run now, as the server would refuse it (closings.ts `runClosing`), or undefined
 * when it can: no list yet, problems of its columns, rows with problems, no row ready.
 */
export function whyNotRun(closing: ClosingDetail, counts: Record<RowStatus, number>): string | undefined {
  if (closing.template.archived) {
    return `The template “${closing.template.name}” is archived: it starts no new transaction. An admin may restore it in Templates.`;
  }
  if (closing.columns.length === 0) return 'Add the list of investors first.';
  if (closing.columnProblems.length > 0) {
    return 'The list’s columns have problems: fix the file and upload it again.';
  }
  if (counts.problem > 0) {
    return `${count(counts.problem, 'row has a problem', 'rows have problems')}: fix or drop ${counts.problem === 1 ? 'it' : 'them'} first.`;
  }
  if (counts.ready === 0) return 'No row is ready: bring one back, or upload another list.';
  return undefined;
}

/** "17 of 29 created": how far a run is, out of the rows it creates (those not dropped). */
export function createdOf(created: number, total: number): string {
  return `${created.toLocaleString(locale)} of ${total.toLocaleString(locale)} created`;
}
