import { CommanderError, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import { historyMismatch } from '../../transactions/history/chain.ts';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';

/**
 * `portico verify`: checks evidence. With `--transaction <id>`, that the transaction's history in the database
 * still matches its hash chain (docs/evidence.md, "The history's hash chain"): exit 0 with its length and head,
 * or 1 naming the first entry that does not match. An evidence bundle (`portico verify <bundle.zip>`, checked
 * offline) comes with the bundles themselves; until then the argument is refused in words.
 */
export function registerVerifyCommand(program: Command, context: CliContext): void {
  program
    .command('verify')
    .description("check evidence: a transaction's history against its hash chain")
    .argument('[bundle]', 'an evidence bundle (not made yet: use --transaction)')
    .option('--transaction <id>', "check this transaction's history in the database")
    .addOption(jsonOption())
    .action(
      async (
        bundle: string | undefined,
        options: { transaction?: string; json?: boolean },
        command: Command,
      ) => {
        if (bundle !== undefined)
          throw new AppError(
            'BAD_USER_INPUT',
            `Portico makes no evidence bundles yet, so "${bundle}" cannot be checked: check a transaction's history with --transaction <id>.`,
          );
        if (options.transaction === undefined)
          throw new AppError(
            'BAD_USER_INPUT',
            'Give --transaction <id>: the transaction whose history to check.',
          );
        const check = await context.operate(command, 'history.verify', { transaction: options.transaction });
        printResult(context.io, check, options, () =>
          check.ok
            ? `The history of transaction ${options.transaction ?? ''} matches its hash chain: ${String(check.entries)} ${check.entries === 1 ? 'entry' : 'entries'}, head ${check.head ?? 'none (no entries yet)'}.`
            : historyMismatch(check),
        );
        // The exit code alone: the line above says where the history stops matching.
        if (!check.ok) throw new CommanderError(1, 'portico.historyMismatch', 'the history does not match');
      },
    );
}
