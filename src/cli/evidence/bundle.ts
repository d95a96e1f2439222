import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';
import { shownSize } from '../data/backup.ts';

/**
 * `portico evidence bundle --transaction <id> | --closing <id> [--output file.zip]`: an operator's evidence bundle
 * (docs/evidence.md, "The evidence bundle") of any organization's transaction or closing, written from the
 * database and file store the server uses (through a running `portico serve` on the embedded database).
 */
export function registerEvidenceCommands(program: Command, context: CliContext): void {
  const evidence = program.command('evidence').description('evidence that can be checked offline (issue 41)');
  evidence
    .command('bundle')
    .description(
      "write a transaction's or a closing's evidence bundle: certificate, sealed documents, uploads, history, manifest",
    )
    .option('--transaction <id>', 'the transaction whose evidence to bundle')
    .option('--closing <id>', "the closing whose transactions' evidence to bundle, a folder each")
    .option('--output <file.zip>', 'the zip to write (a new file) [default: its name, in this folder]')
    .addOption(jsonOption())
    .action(
      async (
        options: { transaction?: string; closing?: string; output?: string; json?: boolean },
        command: Command,
      ) => {
        // Given both or neither, the operation refuses in words.
        const summary = await context.operate(command, 'evidence.bundle', {
          ...(options.transaction === undefined ? {} : { transaction: options.transaction }),
          ...(options.closing === undefined ? {} : { closing: options.closing }),
          ...(options.output === undefined ? {} : { output: resolve(options.output) }),
          directory: process.cwd(),
        });
        printResult(
          context.io,
          summary,
          options,
          (s) =>
            `Wrote ${s.path} (${shownSize(s.bytes)}): the evidence of ${s.kind === 'closing' ? `a closing's ${String(s.transactions)} ${s.transactions === 1 ? 'transaction' : 'transactions'}` : 'a transaction'}. Check it with: portico verify ${s.path}`,
        );
      },
    );
}
