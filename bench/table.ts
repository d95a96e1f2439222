/** Prints a Markdown table, columns padded to their widest cell, ready to paste into RESULTS.md. */
export function printMarkdownTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(`\n${line(header)}`);
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** The median of some numbers: the middle one, or the mean of the two middle ones; NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/** How a target's line ends. */
export const verdict = (met: boolean): string => (met ? 'MET' : 'NOT MET');

/**
 * One of issue 14's targets as a run measured it: `ratio` compares the measured value with the target so that
 * 1.00 or more meets it (measured / target for "at least", target / measured for "at most").
 */
export interface TargetResult {
  target: string;
  measured: string;
  ratio: number;
  met: boolean;
}

/** A target's result, `met` from its ratio, printed as one line. */
export function targetResult(target: string, measured: string, ratio: number): TargetResult {
  const result = { target, measured, ratio, met: ratio >= 1 };
  console.log(`  ${target}: ${measured}, ratio ${ratio.toFixed(2)}: ${verdict(result.met)}`);
  return result;
}

/** The last table of a run: every target measured, with its value, ratio and verdict. */
export function printTargetSummary(results: readonly TargetResult[]): void {
  if (results.length === 0) return;
  console.log(`\nThe targets of this run, ${results.filter((r) => r.met).length} of ${results.length} met:`);
  printMarkdownTable(
    ['target', 'measured', 'ratio', 'verdict'],
    results.map((r) => [r.target, r.measured, r.ratio.toFixed(2), verdict(r.met)]),
  );
}
