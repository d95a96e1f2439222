import type { Command } from 'commander';
import { runOperation } from '../admin/run-operation.ts';
import type {
  OperationInput,
  OperationName,
  OperationOutput,
  OperationProgress,
} from '../admin/operations.ts';
import { CONFIG_VARIABLES, loadConfig, type Config, type ConfigKey, type RawConfig } from '../config.ts';
import type { OpenDatabaseOptions, OpenedDatabase } from '../db/open-database.ts';
import type { Logger } from 'pino';

/** What the `portico` command reads and writes: everything it needs from its process, injected. */
export interface CliIO {
  /** The environment that configures Portico (with the global flags, which win). */
  env: NodeJS.ProcessEnv;
  /** One line (or block) of output for stdout: a result. */
  out: (text: string) => void;
  /** One line (or block) for stderr: progress and errors. */
  err: (text: string) => void;
  /**
   * Opens the configured database for a command that needs one while no server holds it; tests hand in a
   * database they made. @default openDatabase
   */
  openDatabase?: ((config: Config, options?: OpenDatabaseOptions) => Promise<OpenedDatabase>) | undefined;
}

/** What every command group is registered with: the IO, and the config and operations it reaches through it. */
export interface CliContext {
  io: CliIO;
  /** The configuration: the global flags of `command`, then the environment, then the defaults. */
  config(command: Command): Config;
  /**
   * Opens the configured database (see `CliIO.openDatabase`) and says on stderr which one it is. Without
   * `create: true`, a data dir without an embedded database is refused rather than given a new one.
   */
  openDatabase(config: Config, options?: OpenDatabaseOptions): Promise<OpenedDatabase>;
  /** Runs an operation with the command's configuration (see `admin/run-operation.ts`). */
  operate<Name extends OperationName>(
    command: Command,
    name: Name,
    input: OperationInput<Name>,
    onProgress?: (progress: OperationProgress<Name>) => void,
  ): Promise<OperationOutput<Name>>;
}

/** The context of one `portico` run over `io`. */
export function cliContext(io: CliIO): CliContext {
  // Loaded when a command first opens a database, not with the CLI (see `runOperation`).
  const open =
    io.openDatabase ??
    (async (config: Config, options?: OpenDatabaseOptions) =>
      (await import('../db/open-database.ts')).openDatabase(config, options));
  const using = (description: string) => {
    io.err(`Using ${description}`);
  };
  const config = (command: Command): Config => {
    const flags = command.optsWithGlobals<RawConfig>();
    const raw: RawConfig = {};
    for (const key of Object.keys(CONFIG_VARIABLES) as ConfigKey[]) raw[key] = flags[key];
    return loadConfig(io.env, raw);
  };
  return {
    io,
    config,
    async openDatabase(config, options) {
      const opened = await open(config, { create: false, ...options });
      if (opened.description !== undefined) using(opened.description);
      return opened;
    },
    operate: (command, name, input, onProgress) =>
      runOperation(config(command), name, input, { onProgress, openDatabase: open, onDatabase: using }),
  };
}

/**
 * Resolves on the first SIGINT or SIGTERM, logging `message` with the signal: how a long-running command
 * (`serve`, `worker`) learns to stop and close what it holds.
 */
export function untilStopSignal(logger: Logger, message: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, message);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
