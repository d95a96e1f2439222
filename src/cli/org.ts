import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { ENTITY_TYPES } from '../transactions/entity-types.ts';
import { CONSOLE_ROLES } from '../accounts/roles.ts';
import { registerEntityCommands } from './entities.ts';
import { registerUserCommands } from './users.ts';
import type { CliContext } from './context.ts';
import { jsonOption, plural, printList, printResult } from './output.ts';

/** `portico org`: organizations, the tenants of the Transactions service. */
export function registerOrgCommands(program: Command, context: CliContext): void {
  const org = program
    .command('org')
    .description('manage organizations (tenants of the Transactions service)');
  org
    .command('create')
    .description('create an organization')
    .requiredOption('--handle <handle>', 'unique short name: lower-case letters, digits, hyphens')
    .requiredOption('--name <name>', 'display name')
    .option(
      '--legal-name <name>',
      'legal name of its sender entity, which transactions are sent from (default: --name)',
    )
    .option('--email <address>', "the sender entity's e-mail address")
    .addOption(
      new Option('--entity-type <type>', 'what kind of party the sender entity is')
        .choices(ENTITY_TYPES)
        .default('company'),
    )
    .addOption(jsonOption())
    .action(
      async (
        {
          json,
          ...input
        }: {
          handle: string;
          name: string;
          legalName?: string;
          email?: string;
          entityType: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const created = await context.operate(command, 'org.create', input);
        printResult(context.io, created, { json }, () =>
          [
            `Created organization ${created.handle} (${created.id}),`,
            `with its sender entity ${created.senderEntity.name} (${created.senderEntity.id}): use it as senderEntityId.`,
          ].join('\n'),
        );
      },
    );
  org
    .command('list')
    .description('list the organizations, with their templates, transactions, active keys and people')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await context.operate(command, 'org.list', {});
      printList(
        context.io,
        list,
        options,
        'There are no organizations: create one with "portico org create".',
        (o) => [
          o.handle,
          o.id,
          `created ${o.createdAt.slice(0, 10)}`,
          `${plural(o.templates, 'template')}, ${plural(o.transactions, 'transaction')}, ` +
            `${plural(o.activeKeys, 'active key')}, ${plural(o.users, 'user')}`,
          o.name,
        ],
      );
    });
  org
    .command('disclosure')
    .description(
      "set the organization's disclosure about electronic records and signatures, shown where a template has none",
    )
    .requiredOption('--org <handle>', 'the organization')
    .option('--file <path>', 'the disclosure, as Markdown (UTF-8)')
    .option('--default', "go back to Portico's default disclosure")
    .addOption(jsonOption())
    .action(
      async (
        options: { org: string; file?: string; default?: boolean; json?: boolean },
        command: Command,
      ) => {
        if ((options.file === undefined) === (options.default !== true)) {
          command.error('error: give --file <path> or --default');
        }
        const text = options.file === undefined ? null : await readFile(options.file, 'utf8');
        const set = await context.operate(command, 'org.disclosure', { org: options.org, text });
        printResult(context.io, set, options, () =>
          set.sha256 === null
            ? `Organization ${options.org} shows Portico's default disclosure.`
            : `Organization ${options.org} shows its own disclosure (SHA-256 ${set.sha256}) where a template has none.`,
        );
      },
    );
  registerUserCommands(org, context.io, {
    owner: 'org',
    pages: "an organization's console",
    roles: CONSOLE_ROLES,
    rolesHelp:
      'admin: everything, people included; operator: the queue, events, reminders, voids; reviewer: reviews; viewer: reads',
    inviteCommand: 'portico org users invite',
    invite: (command, handle, input) =>
      context.operate(command, 'org.users.invite', { org: handle, ...input }),
    list: (command, handle) => context.operate(command, 'org.users.list', { org: handle }),
    role: (command, handle, input) => context.operate(command, 'org.users.role', { org: handle, ...input }),
    resetFactors: (command, handle, email) =>
      context.operate(command, 'org.users.reset-factors', { org: handle, email }),
  });
  registerEntityCommands(program, context);
}
