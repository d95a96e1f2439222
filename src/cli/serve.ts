import { flushCompileCache } from 'node:module';
import { Option, type Command } from 'commander';
import { tracingWanted } from '../config.ts';
import { createLogger } from '../logger.ts';
import type { ServiceName } from '../served-apps.ts';
import type { CliContext } from './context.ts';
import { stopOnSignal, warnIfNodeUnsupported } from './context.ts';

const SERVICES: readonly ServiceName[] = ['transactions', 'portfolio'];

/** `portico serve`: both services over HTTPS until SIGINT or SIGTERM, then a drain (see `stopOnSignal`). */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description('run both services over HTTPS (seeding demo data into a fresh embedded database)')
    .addOption(new Option('--only <service>', 'run one service only').choices(SERVICES))
    .option('--demo', 'seed demo data into an empty database (default on the embedded database in staging)')
    .option('--no-demo', 'never seed demo data')
    .action(async (options: { only?: ServiceName; demo?: boolean }, command: Command) => {
      const config = context.config(command);
      const logger = createLogger(config.logLevel);
      warnIfNodeUnsupported(logger);
      // Loaded here, not with the CLI: the other commands start without the services' modules.
      const { serve } = await import('../serve.ts');
      const running = await serve(config, {
        only: options.only,
        demo: options.demo,
        tracing: tracingWanted(context.io.env),
        logger,
        print: context.io.out,
      });
      // What the start compiled goes into the compile cache now (bin/portico.js), not only at exit: a process
      // that is killed, or runs for months, still makes the next start faster.
      flushCompileCache();
      await stopOnSignal(logger, {
        message: 'shutting down: /readyz answers 503, then the services close',
        drain: () => {
          running.drain();
        },
        delayMs: config.shutdownDelay * 1000,
        timeoutMs: config.shutdownTimeout * 1000,
        close: () => running.close(),
        closing: () => running.closing(),
      });
    });
}
