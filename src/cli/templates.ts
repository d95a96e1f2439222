import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { ImportedTemplate } from '../transactions/templates.ts';
import type { CliContext } from './context.ts';
import { jsonOption, printResult } from './output.ts';

/** How `templates import` names each outcome of an import. */
const OUTCOMES: Record<ImportedTemplate['outcome'], string> = {
  created: 'Imported',
  unchanged: 'Unchanged:',
  updated: 'Updated (no transaction uses it yet)',
  versioned: 'Imported a new version (transactions use the previous one)',
};

/** `portico templates`: transaction templates of an organization. */
export function registerTemplateCommands(program: Command, context: CliContext): void {
  const templates = program.command('templates').description('manage transaction templates');
  templates
    .command('import')
    .description(
      'check a template file (YAML or JSON) and import it; a changed template in use becomes a new version',
    )
    .argument('<file>', 'the template file, e.g. templates/examples/subscription.yaml')
    .requiredOption('--org <handle>', 'the organization')
    .addOption(jsonOption())
    .action(async (file: string, options: { org: string; json?: boolean }, command: Command) => {
      const source = await readFile(file, 'utf8');
      const imported = await context.operate(command, 'templates.import', {
        org: options.org,
        source,
        filename: basename(file),
      });
      printResult(
        context.io,
        imported,
        options,
        () => `${OUTCOMES[imported.outcome]} template ${imported.key} v${imported.version} (${imported.id}).`,
      );
    });
}
