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
function keyLine(key: {
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
  addKeyListAndRevoke<{ org: string; json?: boolean }>(keys, context, {
    owner: ['--org <handle>', 'the organization'],
    whose: "an organization's",
    revokeDescription: 'revoke a key at once; requests with it get 401',
    named: (options) => options.org,
    list: (command, options) => context.operate(command, 'keys.list', { org: options.org }),
    revoke: (command, options, key) => context.operate(command, 'keys.revoke', { org: options.org, key }),
  });
}

/** A key as `list` shows it (see `keyLine`). */
type ListedKey = Parameters<typeof keyLine>[0];

/**
 * Adds `list` and `revoke` to the `keys` command of one kind of key owner: the same two commands for
 * organizations (`keys`) and customer instances (`portfolio keys`).
 */
export function addKeyListAndRevoke<Options extends { json?: boolean }>(
  keys: Command,
  context: CliContext,
  owner: {
    /** The required option that names the owner, and its help. */
    owner: [flags: string, help: string];
    /** Whose keys `list` lists, e.g. "an organization's". */
    whose: string;
    /** What `revoke` says it does. */
    revokeDescription: string;
    /** The owner's name, from the options. */
    named(options: Options): string;
    list(command: Command, options: Options): Promise<ListedKey[]>;
    revoke(command: Command, options: Options, key: string): Promise<{ id: string }>;
  },
): void {
  const [flags, help] = owner.owner;
  let path = keys.name();
  for (let parent = keys.parent; parent?.parent; parent = parent.parent) path = `${parent.name()} ${path}`;
  keys
    .command('list')
    .description(`list ${owner.whose} keys (prefixes only)`)
    .requiredOption(flags, help)
    .addOption(jsonOption())
    .action(async (options: Options, command: Command) => {
      const list = await owner.list(command, options);
      printList(context.io, list, options, `${owner.named(options)} has no keys.`, keyLine);
    });
  keys
    .command('revoke')
    .description(owner.revokeDescription)
    .requiredOption(flags, help)
    .argument('<key>', `the key id, or its prefix as \`${path} list\` shows it`)
    .addOption(jsonOption())
    .action(async (key: string, options: Options, command: Command) => {
      const revoked = await owner.revoke(command, options, key);
      printResult(context.io, revoked, options, () => `Revoked key ${revoked.id}.`);
    });
}
