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
import { exitOnceLogged } from '../logger.ts';

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

/** How a long-running command (`serve`, `worker`) stops: see {@link stopOnSignal}. */
export interface StopSequence {
  /** What to log, with the signal, when it arrives, e.g. `shutting down`. */
  message: string;
  /** The first step, at once: stop looking ready (`serve`'s `/readyz` answers 503). */
  drain?: () => void;
  /** Milliseconds of serving on after `drain`, for a load balancer to notice. */
  delayMs: number;
  /** Milliseconds that `close` gets; the process then exits 1. */
  timeoutMs: number;
  /** Stops accepting, lets what is in flight finish, and closes what the command holds. */
  close: () => Promise<void>;
  /** What `close` still waits for, for the log line of a stop that did not finish in time. */
  closing?: () => string | undefined;
}

/**
 * Waits for the first SIGINT or SIGTERM, then stops in order: `drain`, `delayMs` of serving on, then `close`,
 * which must end within `timeoutMs`. A stop that does not end in time exits the process with 1, logging what was
 * still running; a second SIGINT or SIGTERM exits it with 1 at once (an operator who means it, or a supervisor
 * that lost patience). Resolves once `close` is done: the process then exits 0 once nothing else holds it.
 */
export async function stopOnSignal(logger: Logger, sequence: StopSequence): Promise<void> {
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const startedAt = Date.now();
  logger.info({ signal, delayMs: sequence.delayMs, timeoutMs: sequence.timeoutMs }, sequence.message);
  const again = (second: NodeJS.Signals) => {
    logger.warn({ signal: second, still: sequence.closing?.() }, 'stopping at once, on a second signal');
    exitOnceLogged(logger, 1);
  };
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  sequence.drain?.();
  if (sequence.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, sequence.delayMs));
  // Unreferenced: a stop that ends in time exits as soon as nothing else holds the process.
  const overdue = setTimeout(() => {
    logger.error(
      { timeoutMs: sequence.timeoutMs, still: sequence.closing?.() ?? 'unknown' },
      'the stop did not finish in time; exiting with what was still running',
    );
    exitOnceLogged(logger, 1);
  }, sequence.timeoutMs);
  overdue.unref();
  try {
    await sequence.close();
  } finally {
    clearTimeout(overdue);
  }
  logger.info({ ms: Date.now() - startedAt }, 'stopped');
}

/**
 * Whether Portico supports Node.js `version` (e.g. `process.versions.node`): 22.22 or newer, or 24 or newer, as
 * package.json's "engines" says. Node 20's life ended on 2026-04-30, and 23 was never a long-term release.
 */
export function supportsNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 22) || major >= 24;
}

/** A long-running command's warning at start when it runs on a Node.js that Portico does not support. */
export function warnIfNodeUnsupported(logger: Logger, version = process.versions.node): void {
  if (supportsNode(version)) return;
  logger.warn(
    { node: version },
    `Node.js ${version} is not supported: run Portico on Node.js 22 (22.22 or newer) or 24 (README, Quick start)`,
  );
}
