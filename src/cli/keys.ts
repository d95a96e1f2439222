import { Option, type Command } from 'commander';
import { ConfigSchema, type Environment } from '../config.ts';
import type { CliContext } from './context.ts';
import { jsonOption, printList, printResult, shownOnce } from './output.ts';

/** The environments a key is for: those the configuration knows. */
const ENVIRONMENTS = ConfigSchema.properties.environment.anyOf.map((literal) => literal.const);

/** What an operator is told under a key shown once, of both services. */
export const STORE_THE_KEY = 'Store it now: Portico keeps only its hash and cannot show it again.';

/**
 * One key as `keys list` and `portfolio keys list` show it: its prefix, environment (Transactions keys have
 * one), state, last use, name and id; never the key.
 */
export function keyLine(key: {
  id: string;
  displayPrefix: string;
  environment?: string;
  name: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}): string {
  const environment = key.environment === undefined ? '' : `${key.environment.padEnd(10)} `;
  const state = key.revokedAt ? `revoked ${key.revokedAt}` : 'active';
  return `${key.displayPrefix}…  ${environment}${state}  last used ${key.lastUsedAt ?? 'never'}  ${key.name ?? ''}  (${key.id})`;
}

/** `portico keys`: API keys of the Transactions service. */
export function registerKeyCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const keys = program.command('keys').description('manage Transactions API keys');
  keys
    .command('create')
    .description('issue an API key for an organization; the key is shown once')
    .requiredOption('--org <handle>', 'the organization')
    .option('--name <name>', 'what the key is for, e.g. "erp integration"')
    .addOption(
      new Option(
        '--key-environment <env>',
        'staging (sk_test_) or production (sk_live_); default: PORTICO_ENVIRONMENT',
      ).choices(ENVIRONMENTS),
    )
    .addOption(jsonOption())
    .action(
      async (
        options: { org: string; name?: string; keyEnvironment?: Environment; json?: boolean },
        command: Command,
      ) => {
        const created = await context.operate(command, 'keys.create', {
          org: options.org,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.keyEnvironment === undefined ? {} : { environment: options.keyEnvironment }),
        });
        printResult(io, created, options, () =>
          shownOnce(
            `Created a ${created.environment} key for ${options.org} (id ${created.id}):`,
            created.key,
            STORE_THE_KEY,
          ),
        );
      },
    );
  keys
    .command('list')
    .description("list an organization's keys (prefixes only)")
    .requiredOption('--org <handle>', 'the organization')
    .addOption(jsonOption())
    .action(async (options: { org: string; json?: boolean }, command: Command) => {
      const list = await context.operate(command, 'keys.list', { org: options.org });
      printList(io, list, options, `${options.org} has no keys.`, keyLine);
    });
  keys
    .command('revoke')
    .description('revoke a key at once; requests with it get 401')
    .requiredOption('--org <handle>', 'the organization')
    .argument('<key>', 'the key id, or its prefix as `keys list` shows it')
    .addOption(jsonOption())
    .action(async (key: string, options: { org: string; json?: boolean }, command: Command) => {
      const revoked = await context.operate(command, 'keys.revoke', { org: options.org, key });
      printResult(io, revoked, options, () => `Revoked key ${revoked.id}.`);
    });
}
