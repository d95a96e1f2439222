import type { Command } from 'commander';
import type { CliContext } from './context.ts';
import { jsonOption, printResult } from './output.ts';

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
    .addOption(jsonOption())
    .action(
      async ({ json, ...input }: { handle: string; name: string; json?: boolean }, command: Command) => {
        const created = await context.operate(command, 'org.create', input);
        printResult(
          context.io,
          created,
          { json },
          () => `Created organization ${created.handle} (${created.id}).`,
        );
      },
    );
}
