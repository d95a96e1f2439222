import { CommanderError } from 'commander';
import { createProgram } from './cli/program.ts';
import { AppError } from './errors.ts';
import { ConfigError } from './config.ts';
import { DataDirLockedError } from './db/data-dir-lock.ts';

const program = createProgram({
  env: process.env,
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
});
program.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else if (
    error instanceof AppError ||
    error instanceof ConfigError ||
    error instanceof DataDirLockedError
  ) {
    process.stderr.write(`portico: ${error.message}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(
      `portico: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
