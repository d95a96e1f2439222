import { Option, type Command } from 'commander';
import { ENTITY_TYPES } from '../transactions/entity-types.ts';
import type { CliContext } from './context.ts';
import { jsonOption, listCommand, printResult } from './output.ts';

/** `--settings '{"locale":"en-US"}'`: a JSON object, or a usage error saying so. */
function settingsOf(command: Command, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return command.error(`error: --settings must be a JSON object, like '{"locale":"en-US"}'`);
  }
}

/** `portico entities`: the parties of an organization's transactions, the senders among them. */
export function registerEntityCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const entities = program
    .command('entities')
    .description("manage an organization's entities (the parties of its transactions; senders among them)");
  listCommand(entities, io, 'list', {
    description: "list an organization's entities, oldest first",
    org: (command, org) => context.operate(command, 'entities.list', { org }),
    empty: (org) => `${org} has no entities.`,
    line: (entity) => [
      entity.id,
      entity.type,
      `${entity.name}${entity.email === null ? '' : ` <${entity.email}>`}`,
    ],
  });
  entities
    .command('create')
    .description('create an entity, e.g. another fund to send transactions from')
    .requiredOption('--org <handle>', 'the organization')
    .requiredOption('--name <name>', 'legal or display name')
    .option('--email <address>', 'where notices go')
    .addOption(new Option('--type <type>', 'what kind of party').choices(ENTITY_TYPES).default('company'))
    .option('--settings <json>', 'free-form settings, a JSON object, e.g. \'{"locale":"en-US"}\'')
    .addOption(jsonOption())
    .action(
      async (
        options: {
          org: string;
          name: string;
          email?: string;
          type: string;
          settings?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const { settings, json, ...input } = options;
        const created = await context.operate(command, 'entities.create', {
          ...input,
          ...(settings === undefined ? {} : { settings: settingsOf(command, settings) }),
        });
        printResult(io, created, { json }, () => `Created entity ${created.name} (${created.id}).`);
      },
    );
  entities
    .command('update')
    .description('change an entity: only the fields given')
    .requiredOption('--org <handle>', 'the organization')
    .argument('<id>', 'the entity id, as `entities list` shows it')
    .option('--name <name>', 'legal or display name')
    .option('--email <address>', 'where notices go ("" removes it)')
    .addOption(new Option('--type <type>', 'what kind of party').choices(ENTITY_TYPES))
    .option('--settings <json>', 'free-form settings, a JSON object (replaces the old ones)')
    .addOption(jsonOption())
    .action(
      async (
        id: string,
        options: {
          org: string;
          name?: string;
          email?: string;
          type?: string;
          settings?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const { settings, json, email, ...input } = options;
        const updated = await context.operate(command, 'entities.update', {
          ...input,
          id,
          ...(email === undefined ? {} : { email: email === '' ? null : email }),
          ...(settings === undefined ? {} : { settings: settingsOf(command, settings) }),
        });
        printResult(io, updated, { json }, () => `Updated entity ${updated.name} (${updated.id}).`);
      },
    );
}
