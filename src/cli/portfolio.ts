import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { ImportReport } from '../admin/operations.ts';
import { RECORD_TYPES, type RecordType } from '../portfolio/record-types.ts';
import { DASHBOARD_ROLES } from '../accounts/roles.ts';
import { registerUserCommands } from './users.ts';
import type { CliContext } from './context.ts';
import { addKeyListAndRevoke, STORE_THE_KEY } from './keys.ts';
import { jsonOption, printList, printResult, progressPrinter, shownOnce } from './output.ts';

/** A progress report of an import as a line: each file read, then each phase's count and share done. */
function importProgressLine(report: ImportReport): { line: string; skippable: boolean } {
  if (report.phase === 'reading') return { line: `reading ${report.file}`, skippable: false };
  const share = report.total ? ` (${Math.floor((report.done / report.total) * 100)}%)` : '';
  // The last report of a phase is always shown, so each phase ends on its total.
  return {
    line: `${report.phase}: ${report.done}/${report.total}${share}`,
    skippable: report.done !== report.total,
  };
}

/** `portico portfolio`: customer instances of the Portfolio service, their keys and their data. */
export function registerPortfolioCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const portfolio = program
    .command('portfolio')
    .description('manage the Portfolio service: customer instances, their keys and their data');

  const instances = portfolio
    .command('instances')
    .description('manage customer instances (Portfolio tenants)');
  instances
    .command('create')
    .description('create a customer instance')
    .requiredOption('--slug <slug>', 'unique short name: lower-case letters, digits, hyphens')
    .requiredOption('--name <name>', 'display name')
    .addOption(jsonOption())
    .action(async ({ json, ...input }: { slug: string; name: string; json?: boolean }, command: Command) => {
      const created = await context.operate(command, 'portfolio.instances.create', input);
      printResult(io, created, { json }, () => `Created instance ${created.slug} (${created.id}).`);
    });
  instances
    .command('list')
    .description('list the customer instances')
    .addOption(jsonOption())
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await context.operate(command, 'portfolio.instances.list', {});
      printList(io, list, options, 'There are no instances.', (instance) => [
        instance.slug,
        instance.name,
        `(${instance.id})`,
      ]);
    });

  const keys = portfolio.command('keys').description('manage Portfolio API keys');
  keys
    .command('create')
    .description('issue a Portfolio API key for an instance; the key is shown once')
    .requiredOption('--instance <slug>', 'the customer instance')
    .requiredOption('--name <name>', 'what the key is for, e.g. "data warehouse"')
    .addOption(jsonOption())
    .action(
      async ({ json, ...input }: { instance: string; name: string; json?: boolean }, command: Command) => {
        const created = await context.operate(command, 'portfolio.keys.create', input);
        printResult(io, created, { json }, () =>
          shownOnce(
            `Created a Portfolio key for ${input.instance} (id ${created.id}):`,
            created.key,
            STORE_THE_KEY,
            'Send it as the header "Authorization: <key>", with no "Bearer".',
          ),
        );
      },
    );
  addKeyListAndRevoke(keys, context, {
    owner: 'instance',
    revokeDescription: 'revoke a key; requests with it get 401 within a second',
    list: (command, instance) => context.operate(command, 'portfolio.keys.list', { instance }),
    revoke: (command, instance, key) => context.operate(command, 'portfolio.keys.revoke', { instance, key }),
  });

  registerUserCommands(portfolio, io, {
    owner: 'instance',
    pages: "an instance's dashboard",
    roles: DASHBOARD_ROLES,
    rolesHelp: 'admin: manages keys and people; member: sees them',
    inviteCommand: 'portico portfolio users invite',
    invite: (command, instance, input) =>
      context.operate(command, 'portfolio.users.invite', { instance, ...input }),
    list: (command, instance) => context.operate(command, 'portfolio.users.list', { instance }),
    role: (command, instance, input) =>
      context.operate(command, 'portfolio.users.role', { instance, ...input }),
    remove: (command, instance, email) =>
      context.operate(command, 'portfolio.users.remove', { instance, email }),
    resetFactors: (command, instance, email) =>
      context.operate(command, 'portfolio.users.reset-factors', { instance, email }),
  });

  portfolio
    .command('import')
    .description(
      'import companies (with funds), updates and investments from JSON or CSV files, all in one database transaction',
    )
    .argument(
      '<files...>',
      'a JSON document {"companies", "updates", "investments"}, or CSV files of one record type each',
    )
    .requiredOption('--instance <slug>', 'the customer instance')
    .addOption(
      new Option('--type <type>', 'the record type of CSV files (default: told by their header)').choices(
        RECORD_TYPES,
      ),
    )
    .addOption(jsonOption())
    .action(
      async (
        files: string[],
        options: { instance: string; type?: RecordType; json?: boolean },
        command: Command,
      ) => {
        const summary = await context.operate(
          command,
          'portfolio.import',
          {
            instance: options.instance,
            files: files.map((file) => resolve(file)),
            ...(options.type === undefined ? {} : { type: options.type }),
          },
          progressPrinter(io, importProgressLine),
        );
        printResult(io, summary, options, () =>
          [
            `Imported into ${options.instance} (revision ${summary.revision}):`,
            ...RECORD_TYPES.map(
              (type) =>
                `  ${type.padEnd(12)} ${summary.created[type]} created, ${summary.updated[type]} updated`,
            ),
            `  ${'funds'.padEnd(12)} ${summary.funds.created} created, ${summary.funds.updated} renamed`,
          ].join('\n'),
        );
      },
    );
}
