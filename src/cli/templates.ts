import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import type { Command } from 'commander';
import type { ImportedTemplate } from '../transactions/templates/templates.ts';
import type { CliContext } from './context.ts';
import { jsonOption, plural, printList, printResult } from './output.ts';

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
        files: await agreementFiles(source, dirname(file)),
      });
      printResult(
        context.io,
        imported,
        options,
        () => `${OUTCOMES[imported.outcome]} template ${imported.key} v${imported.version} (${imported.id}).`,
      );
    });
  templates
    .command('list')
    .description('list the template versions, with how many transactions use each')
    .option('--org <handle>', "one organization's templates (default: every organization's)")
    .addOption(jsonOption())
    .action(async (options: { org?: string; json?: boolean }, command: Command) => {
      const list = await context.operate(
        command,
        'templates.list',
        options.org === undefined ? {} : { org: options.org },
      );
      printList(
        context.io,
        list,
        options,
        options.org === undefined ? 'There are no templates.' : `${options.org} has no templates.`,
        (t) => [
          t.org,
          `${t.key} v${String(t.version)}`,
          `used by ${plural(t.transactions, 'transaction')}`,
          t.name,
        ],
      );
    });
}

/**
 * The fund PDFs a template's agreements name (`agreement.pdf`), read from beside the template, as base64 by
 * name. One that cannot be read is left out: the import then says, with its line, that it was not found.
 */
async function agreementFiles(source: string, directory: string): Promise<Record<string, string>> {
  let template: unknown;
  try {
    template = parse(source);
  } catch {
    return {}; // the import reports what is wrong with the file, with its line
  }
  const names = new Set<string>();
  const processes = (template as { processes?: unknown } | null)?.processes;
  for (const process of Array.isArray(processes) ? processes : []) {
    const documents = (process as { documents?: unknown } | null)?.documents;
    for (const document of Array.isArray(documents) ? documents : []) {
      const pdf = (document as { agreement?: { pdf?: unknown } } | null)?.agreement?.pdf;
      if (typeof pdf === 'string' && /^[^/\\]+\.pdf$/.test(pdf)) names.add(pdf);
    }
  }
  const files: Record<string, string> = {};
  for (const name of names) {
    const content = await readFile(join(directory, name)).catch(() => undefined);
    if (content) files[name] = content.toString('base64');
  }
  return files;
}
