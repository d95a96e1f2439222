import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { CommanderError, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import { historyMismatch } from '../../transactions/history/chain.ts';
import type { CliContext } from '../context.ts';
import { jsonOption, printResult } from '../output.ts';

/** The largest document `verify` reads: a signed document of a fund's 10 MB agreement is far smaller. */
const MAX_DOCUMENT_BYTES = 200 * 1024 * 1024;

/** The certificates of PEM files given with --trust, DER. */
async function trustedOf(paths: readonly string[]): Promise<Uint8Array[]> {
  const certificates: Uint8Array[] = [];
  for (const path of paths) {
    const text = await readFile(path, 'utf8').catch(() => {
      throw new AppError(
        'BAD_USER_INPUT',
        `--trust ${path} cannot be read: name a PEM file of certificates.`,
      );
    });
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) {
      throw new AppError(
        'BAD_USER_INPUT',
        `--trust ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----).`,
      );
    }
    for (const block of blocks) certificates.push(new Uint8Array(new X509Certificate(block).raw));
  }
  return certificates;
}

/**
 * A sealed PDF checked offline (evidence/verify-seal.ts): exit 0 saying what holds, or 1 naming the first thing
 * that does not.
 */
async function verifyDocument(path: string, trust: readonly string[]) {
  const size = await stat(path).then(
    (found) => found.size,
    () => {
      throw new AppError('BAD_USER_INPUT', `${path} cannot be read: name a sealed PDF.`);
    },
  );
  if (size > MAX_DOCUMENT_BYTES) {
    throw new AppError(
      'BAD_USER_INPUT',
      `${path} is ${String(Math.round(size / 1024 / 1024))} MB: a sealed document is at most 200 MB.`,
    );
  }
  const { verifySeal } = await import('../../transactions/evidence/verify-seal.ts');
  const trusted = trust.length === 0 ? undefined : await trustedOf(trust);
  return verifySeal(new Uint8Array(await readFile(path)), { trusted });
}

/**
 * `portico verify`: checks evidence. With `--transaction <id>`, that the transaction's history in the database
 * still matches its hash chain (docs/evidence.md, "The history's hash chain"): exit 0 with its length and head,
 * or 1 naming the first entry that does not match. Given a signed document (`portico verify <file.pdf>`), its seal,
 * offline, and with `--trust <ca.pem>` its certificate's chain. An evidence bundle (`<bundle.zip>`) comes with the
 * bundles themselves; until then it is refused in words.
 */
export function registerVerifyCommand(program: Command, context: CliContext): void {
  program
    .command('verify')
    .description("check evidence: a sealed PDF offline, or a transaction's history against its hash chain")
    .argument('[file]', 'a sealed PDF to check offline (an evidence bundle is not made yet)')
    .option('--transaction <id>', "check this transaction's history in the database")
    .option(
      '--trust <ca.pem>',
      "with a PDF: a PEM file of certificates its seal must chain to (a fund's CA, or a self-signed seal's own); repeatable",
      (value: string, before: string[]) => [...before, value],
      [] as string[],
    )
    .addOption(jsonOption())
    .action(
      async (
        file: string | undefined,
        options: { transaction?: string; trust: string[]; json?: boolean },
        command: Command,
      ) => {
        if (file?.toLowerCase().endsWith('.pdf')) {
          const check = await verifyDocument(file, options.trust);
          printResult(context.io, check, options, () =>
            check.ok
              ? `The seal of ${file} holds: sealed by "${check.signer}", ${check.timestampedAt === null ? 'without a timestamp' : `timestamped ${check.timestampedAt.toISOString()}`}, ${check.trusted === null ? 'its certificate not checked (give --trust <ca.pem>)' : 'its certificate chains to one you trust'}.`
              : `${file}: ${check.problem}.`,
          );
          if (!check.ok) throw new CommanderError(1, 'portico.sealBroken', 'the seal does not hold');
          return;
        }
        if (file !== undefined)
          throw new AppError(
            'BAD_USER_INPUT',
            `Portico makes no evidence bundles yet, so "${file}" cannot be checked: give a sealed PDF, or check a transaction's history with --transaction <id>.`,
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
