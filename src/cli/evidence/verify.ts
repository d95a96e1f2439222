import { X509Certificate } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { CommanderError, type Command } from 'commander';
import { AppError } from '../../errors.ts';
import type { BundleCheck } from '../../transactions/evidence/verify-bundle.ts';
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

/** A count with its noun: "1 transaction", "3 transactions". */
function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${String(count)} ${count === 1 ? noun : plural}`;
}

/** What a bundle's check says to a person (see docs/evidence.md, "Verifying a bundle"). */
function bundleInWords(file: string, check: BundleCheck): string {
  if (!check.ok) return `${file}: ${check.problem}.`;
  const { made, due, none } = check.certificates;
  const certificates = [
    made > 0 ? `${String(made)} made and checked` : '',
    due > 0 ? `${String(due)} not made yet` : '',
    none > 0 ? `${String(none)} absent (not complete)` : '',
  ].filter((part) => part !== '');
  const signers = check.sealedBy.map((name) => `"${name}"`).join(', ');
  return [
    `The evidence bundle ${file} holds:`,
    `  transactions  ${String(check.transactions)}${check.kind === 'closing' ? ' (a closing)' : ''}`,
    `  files         ${String(check.files)}, each matching the SHA-256 of its manifest`,
    `  history       ${counted(check.entries, 'entry', 'entries')}, matching their hash chains and heads`,
    `  seals         ${String(check.seals)}${check.seals === 0 ? '' : ` holding, by ${signers}; ${check.trusted === null ? 'their certificates not checked (give --trust <ca.pem>)' : 'their certificates chain to one you trust'}`}`,
    `  certificates  ${certificates.join(', ')}`,
  ].join('\n');
}

/** An evidence bundle checked offline (evidence/verify-bundle.ts); one that cannot be read is refused in words. */
async function verifyBundleFile(path: string, trust: readonly string[]): Promise<BundleCheck> {
  await stat(path).catch(() => {
    throw new AppError(
      'BAD_USER_INPUT',
      `${path} cannot be read: name an evidence bundle (.zip) or a sealed PDF.`,
    );
  });
  const [{ verifyBundle }, { BundleError }] = await Promise.all([
    import('../../transactions/evidence/verify-bundle.ts'),
    import('../../transactions/evidence/bundle-zip.ts'),
  ]);
  const trusted = trust.length === 0 ? undefined : await trustedOf(trust);
  try {
    return await verifyBundle(path, { trusted });
  } catch (error) {
    if (error instanceof BundleError)
      throw new AppError(
        'BAD_USER_INPUT',
        `${path} cannot be checked as an evidence bundle: ${error.message}.`,
      );
    throw error;
  }
}

/**
 * `portico verify`: checks evidence. With `--transaction <id>`, that the transaction's history in the database
 * still matches its hash chain (docs/evidence.md, "The history's hash chain"): exit 0 with its length and head,
 * or 1 naming the first entry that does not match. Given a signed document (`portico verify <file.pdf>`), its seal,
 * offline, and with `--trust <ca.pem>` its certificate's chain. Given an evidence bundle (`<bundle.zip>`), all of
 * it, offline: exit 0 with a summary, or 1 naming the first file or entry that does not match.
 */
export function registerVerifyCommand(program: Command, context: CliContext): void {
  program
    .command('verify')
    .description(
      "check evidence: an evidence bundle or a sealed PDF offline, or a transaction's history against its hash chain",
    )
    .argument('[file]', 'an evidence bundle (.zip) or a sealed PDF to check offline')
    .option('--transaction <id>', "check this transaction's history in the database")
    .option(
      '--trust <ca.pem>',
      "with a bundle or a PDF: a PEM file of certificates its seals must chain to (a fund's CA, or a self-signed seal's own); repeatable",
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
        if (file !== undefined) {
          const check = await verifyBundleFile(file, options.trust);
          printResult(context.io, check, options, () => bundleInWords(file, check));
          if (!check.ok) throw new CommanderError(1, 'portico.bundleMismatch', 'the bundle does not hold');
          return;
        }
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
