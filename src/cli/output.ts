import { Option, type Command } from 'commander';
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

/**
 * A list's line for a person: its text, or its cells, which line up in columns with the cells of the list's
 * other lines (see {@link columns}).
 */
export type ListLine = string | readonly string[];

/**
 * Rows as lines whose cells line up in columns, two spaces apart, each column as wide as its widest cell: a
 * long name moves its column rather than the rest of its line. A row's last cell is not padded, and a line
 * ends with no space.
 *
 * @example
 * columns([['0001_transactions', 'pending'], ['0021_request_ids_of_queued_work', 'pending']]);
 * // ['0001_transactions                pending', '0021_request_ids_of_queued_work  pending']
 */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Prints a list: as JSON with `--json`, else a line of each item (the lines given as cells in columns), or
 * `empty` when there is none.
 */
export function printList<Item>(
  io: CliIO,
  list: Item[],
  options: { json?: boolean | undefined },
  empty: string,
  line: (item: Item) => ListLine,
): void {
  printResult(io, list, options, () => {
    if (list.length === 0) return empty;
    const lines = list.map(line);
    const aligned = columns(lines.filter((text) => typeof text !== 'string'));
    return lines.map((text) => (typeof text === 'string' ? text : (aligned.shift() ?? ''))).join('\n');
  });
}

/** `1 template`, `3 templates`: a count and its noun. */
export function plural(count: number, noun: string): string {
  return `${String(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** Whose things a command is about: the required option that names the owner, its help, and how text says it. */
export const OWNERS = {
  org: { flags: '--org <handle>', help: 'the organization', whose: "an organization's" },
  instance: { flags: '--instance <slug>', help: 'the customer instance', whose: "an instance's" },
} as const;

/** Who a command is about: an organization (`--org`) or a customer instance (`--instance`). */
export type Owner = keyof typeof OWNERS;

/** Reads the things of one owner, named as its option gives it. */
type Lister<Item> = (command: Command, owner: string) => Promise<Item[]>;

/**
 * A sub-command that lists the things of one organization (`org`) or customer instance (`instance`): the
 * owner's option and `--json`; it prints a line an item (see {@link printList}), or `empty(owner)` when there is none.
 *
 * @example
 * listCommand(entities, io, 'list', {
 *   description: "list an organization's entities, oldest first",
 *   org: (command, org) => context.operate(command, 'entities.list', { org }),
 *   empty: (org) => `${org} has no entities.`,
 *   line: (entity) => [entity.id, entity.name],
 * });
 */
export function listCommand<Item>(
  parent: Command,
  io: CliIO,
  name: string,
  spec: { description: string; empty: (owner: string) => string; line: (item: Item) => ListLine } & (
    { org: Lister<Item> } | { instance: Lister<Item> }
  ),
): Command {
  const [owner, list]: [Owner, Lister<Item>] =
    'org' in spec ? ['org', spec.org] : ['instance', spec.instance];
  return parent
    .command(name)
    .description(spec.description)
    .requiredOption(OWNERS[owner].flags, OWNERS[owner].help)
    .addOption(jsonOption())
    .action(async (options: Partial<Record<Owner, string>> & { json?: boolean }, command: Command) => {
      const named = options[owner] ?? '';
      printList(io, await list(command, named), options, spec.empty(named), spec.line);
    });
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
