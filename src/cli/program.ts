import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { CONFIG_VARIABLES } from '../config.ts';
import { cliContext, type CliIO } from './context.ts';
import { registerBackupCommands } from './data/backup.ts';
import { registerCleanupCommand } from './data/cleanup.ts';
import { registerMigrateToCommand } from './data/migrate-to.ts';
import { registerDemoCommand } from './demo.ts';
import { registerEvidenceCommands } from './evidence/bundle.ts';
import { registerVerifyCommand } from './evidence/verify.ts';
import { registerKeyCommands } from './keys.ts';
import { registerMailCommands } from './mail.ts';
import { registerMigrateCommand } from './migrate.ts';
import { registerOrgCommands } from './org.ts';
import { registerPortfolioCommands } from './portfolio.ts';
import { registerServeCommand } from './serve.ts';
import { registerTemplateCommands } from './templates.ts';
import { registerWebhookCommands } from './webhooks.ts';
import { registerWorkerCommand } from './worker.ts';

export type { CliIO } from './context.ts';

/** The version of this Portico, from its package.json. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * The `portico` command. Every configuration variable is also a global flag (`--data-dir`, `--database-url`, …);
 * flags win over the environment. It never exits the process: `--help`, `--version` and usage errors throw a
 * `CommanderError` with the exit code (see `run-cli.ts`), so a test can run it in its own process.
 */
export function createProgram(io: CliIO): Command {
  const program = new Command('portico')
    .description('Portico: the Transactions GraphQL service and the Portfolio REST service.')
    .version(VERSION, '-V, --version', 'print the version of Portico')
    .showHelpAfterError()
    // Set before the sub-commands are added, as they copy it when they are made.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => {
        io.out(text.trimEnd());
      },
      writeErr: (text) => {
        io.err(text.trimEnd());
      },
    });
  for (const variable of Object.values(CONFIG_VARIABLES)) {
    const shownDefault = variable.default === undefined ? '' : `, default ${variable.default}`;
    program.addOption(new Option(variable.flag, `${variable.help} [env ${variable.env}${shownDefault}]`));
  }
  program.addHelpText(
    'after',
    '\nEvery option can also be set by its environment variable; a flag wins over the variable.',
  );

  const context = cliContext(io);
  for (const register of [
    registerServeCommand,
    registerWorkerCommand,
    registerMigrateCommand,
    registerDemoCommand,
    registerOrgCommands,
    registerTemplateCommands,
    registerKeyCommands,
    registerWebhookCommands,
    registerPortfolioCommands,
    registerMailCommands,
    registerBackupCommands,
    registerMigrateToCommand,
    registerCleanupCommand,
    registerVerifyCommand,
    registerEvidenceCommands,
  ]) {
    register(program, context);
  }
  return program;
}
