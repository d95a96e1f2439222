import { CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { DataDirLockedError } from '../db/data-dir-lock.ts';
import { AppError, operatorMessage } from '../errors.ts';
import type { CliIO } from './context.ts';
import { createProgram } from './program.ts';

/**
 * Runs `portico` with `args` over `io` and answers its exit code, never exiting itself: what went wrong is
 * written to `io.err` as `portico: <message>` (with the stack for an error nobody expected). `bin/portico.js`
 * runs it on the process's arguments (`from: 'node'`); tests run it in-process on theirs (`from: 'user'`).
 */
export async function runCli(
  args: readonly string[],
  io: CliIO,
  options: { from: 'node' | 'user' },
): Promise<number> {
  try {
    await createProgram(io).parseAsync(args, { from: options.from });
    return 0;
  } catch (error) {
    // Commander wrote its own message (usage, help, version) before it threw.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof AppError || error instanceof ConfigError || error instanceof DataDirLockedError) {
      io.err(`portico: ${operatorMessage(error)}`);
    } else {
      io.err(`portico: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    return 1;
  }
}
