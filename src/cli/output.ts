import { Option } from 'commander';
import type { CliIO } from './context.ts';

/** The `--json` flag of a command that prints a result. */
export function jsonOption(help = 'print the result as JSON'): Option {
  return new Option('--json', help);
}

/** Prints a command's result: as JSON with `--json`, else as the text `human` makes of it for a person. */
export function printResult<Result>(
  io: CliIO,
  result: Result,
  options: { json?: boolean | undefined },
  human: (result: Result) => string,
): void {
  io.out(options.json === true ? JSON.stringify(result, null, 2) : human(result));
}

/** Prints a list: as JSON with `--json`, else a line of each item, or `empty` when there is none. */
export function printList<Item>(
  io: CliIO,
  list: Item[],
  options: { json?: boolean | undefined },
  empty: string,
  line: (item: Item) => string,
): void {
  printResult(io, list, options, () => (list.length === 0 ? empty : list.map(line).join('\n')));
}

/**
 * Progress lines on stderr, so that stdout keeps only the result: at most one a second of those `describe`
 * calls skippable, every other one (the last of a phase, say) always.
 */
export function progressPrinter<Progress>(
  io: CliIO,
  describe: (progress: Progress) => { line: string; skippable: boolean },
): (progress: Progress) => void {
  let last = 0;
  return (progress) => {
    const { line, skippable } = describe(progress);
    const now = Date.now();
    if (skippable && now - last < 1000) return;
    last = now;
    io.err(line);
  };
}

/** A secret shown this once (an API key, a signing secret): after `heading`, set apart, then what to do with it. */
export function shownOnce(heading: string, secret: string, ...notes: string[]): string {
  return [heading, '', `  ${secret}`, '', ...notes].join('\n');
}
