import { Option, type Command } from 'commander';
import { ConfigSchema, type Environment } from '../config.ts';
import { VIEWS_REQUIRED, type ViewsRequired } from '../transactions/key-delivery/views.ts';
import type { CliContext } from './context.ts';
import { jsonOption, listCommand, OWNERS, printResult, shownOnce, type Owner } from './output.ts';

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
}): string[] {
  return [
    `${key.displayPrefix}…`,
    ...(key.environment === undefined ? [] : [key.environment]),
    key.revokedAt ? `revoked ${key.revokedAt}` : 'active',
    `last used ${key.lastUsedAt ?? 'never'}`,
    key.name ?? '',
    `(${key.id})`,
  ];
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
    .command('issue')
    .description(
      'issue a key and deliver it by mail to the named people: a link, valid for at most an hour, that only ' +
        'those addresses can open (each proves its address with a mailed code) and that shows the key once; ' +
        'the key is never shown here',
    )
    .requiredOption('--org <handle>', 'the organization')
    .requiredOption(
      '--email <address>',
      'an address that may retrieve the key (repeat for several)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--name <label>', 'what the key is for, e.g. "erp integration"')
    .option('--expires-in <minutes>', 'how long the link works, 1 to 60 minutes', '60')
    .addOption(
      new Option(
        '--views <who>',
        'first: the first address to view the key ends the delivery; all: each address views it once',
      )
        .choices(VIEWS_REQUIRED)
        .default('first'),
    )
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nRequired: --environment staging|production, the environment of the key (sk_test_ or sk_live_). It is the\n' +
        'global flag of PORTICO_ENVIRONMENT, given here on the command line.',
    )
    .action(
      async (
        options: {
          org: string;
          email: string[];
          name?: string;
          expiresIn: string;
          views: ViewsRequired;
          json?: boolean;
        },
        command: Command,
      ) => {
        const minutes = /^\d{1,3}$/.test(options.expiresIn) ? Number(options.expiresIn) : Number.NaN;
        if (!(minutes >= 1 && minutes <= 60)) {
          command.error(
            `--expires-in must be a number of minutes from 1 to 60 (got ${JSON.stringify(options.expiresIn)})`,
          );
        }
        // `--environment` is the global flag (PORTICO_ENVIRONMENT's): only as given on this command line, never
        // the variable's value, so that the key's environment is always said aloud.
        const { environment } = command.optsWithGlobals<{ environment?: string }>();
        const chosen = ENVIRONMENTS.find((each) => each === environment);
        if (chosen === undefined) {
          command.error(
            environment === undefined
              ? 'error: --environment staging|production is required: the environment the key is for'
              : `error: --environment must be staging or production (got ${JSON.stringify(environment)})`,
          );
        }
        const issued = await context.operate(command, 'keys.issue', {
          org: options.org,
          environment: chosen,
          emails: options.email,
          ...(options.name === undefined ? {} : { name: options.name }),
          expiresInMinutes: minutes,
          viewsRequired: options.views,
        });
        printResult(io, issued, options, () =>
          [
            `Issued a ${issued.delivery.environment} key (${issued.delivery.keyPrefix}…) for ${options.org}, delivery ${issued.delivery.id}.`,
            ...issued.mail.map((sent) =>
              sent.via === 'smtp'
                ? `  mailed to ${sent.to} (message id ${sent.messageId})`
                : `  written for ${sent.to} to ${sent.file} (PORTICO_SMTP_URL is not set)`,
            ),
            `The link works until ${issued.delivery.expiresAt}, ${issued.delivery.viewsRequired === 'first' ? 'for the first of them to view the key' : 'once for each of them'}.`,
            'The key is not shown here: only its recipients can see it. An unviewed delivery is revoked when it expires.',
          ].join('\n'),
        );
      },
    );
  listCommand(keys, io, 'deliveries', {
    description: "list an organization's key deliveries: pending, viewed (by whom, when), expired or revoked",
    org: (command, org) => context.operate(command, 'keys.deliveries', { org }),
    empty: (org) => `${org} has no key deliveries.`,
    line: (delivery) =>
      [
        `${delivery.id}  ${delivery.status.padEnd(7)}  ${delivery.environment.padEnd(10)}  ${delivery.keyPrefix}…  expires ${delivery.expiresAt}`,
        ...delivery.recipients.map((recipient) =>
          recipient.viewedAt === null
            ? `    ${recipient.email}  not viewed`
            : `    ${recipient.email}  viewed ${recipient.viewedAt} from ${recipient.viewedIp ?? '?'} (${recipient.viewedUserAgent ?? ''})`,
        ),
      ].join('\n'),
  });
  keys
    .command('revoke-delivery')
    .description('revoke a key delivery and its key: the link stops working, and so does the key')
    .argument('<id>', 'the delivery id, as `keys deliveries` shows it')
    .addOption(jsonOption())
    .action(async (id: string, options: { json?: boolean }, command: Command) => {
      const revoked = await context.operate(command, 'keys.revoke-delivery', { id });
      printResult(
        io,
        revoked,
        options,
        () => `Revoked delivery ${revoked.id} and its key ${revoked.keyPrefix}….`,
      );
    });
  addKeyListAndRevoke(keys, context, {
    owner: 'org',
    revokeDescription: 'revoke a key at once; requests with it get 401',
    list: (command, org) => context.operate(command, 'keys.list', { org }),
    revoke: (command, org, key) => context.operate(command, 'keys.revoke', { org, key }),
  });
}

/** A key as `list` shows it (see `keyLine`). */
type ListedKey = Parameters<typeof keyLine>[0];

/**
 * Adds `list` and `revoke` to the `keys` command of one kind of key owner: the same two commands for
 * organizations (`keys`) and customer instances (`portfolio keys`).
 */
export function addKeyListAndRevoke(
  keys: Command,
  context: CliContext,
  spec: {
    /** Whose keys these are: an organization's (`--org`) or an instance's (`--instance`). */
    owner: Owner;
    /** What `revoke` says it does. */
    revokeDescription: string;
    list: (command: Command, owner: string) => Promise<ListedKey[]>;
    revoke: (command: Command, owner: string, key: string) => Promise<{ id: string }>;
  },
): void {
  const { flags, help, whose } = OWNERS[spec.owner];
  let path = keys.name();
  for (let parent = keys.parent; parent?.parent; parent = parent.parent) path = `${parent.name()} ${path}`;
  listCommand(keys, context.io, 'list', {
    description: `list ${whose} keys (prefixes only)`,
    ...(spec.owner === 'org' ? { org: spec.list } : { instance: spec.list }),
    empty: (owner: string) => `${owner} has no keys.`,
    line: keyLine,
  });
  keys
    .command('revoke')
    .description(spec.revokeDescription)
    .requiredOption(flags, help)
    .argument('<key>', `the key id, or its prefix as \`${path} list\` shows it`)
    .addOption(jsonOption())
    .action(
      async (key: string, options: Partial<Record<Owner, string>> & { json?: boolean }, command: Command) => {
        const revoked = await spec.revoke(command, options[spec.owner] ?? '', key);
        printResult(context.io, revoked, options, () => `Revoked key ${revoked.id}.`);
      },
    );
}
