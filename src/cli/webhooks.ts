import { Option, type Command } from 'commander';
import type { OperationOutput } from '../admin/operations.ts';
import { EVENT_TYPES, type EventType } from '../webhooks/event-types.ts';
import type { CliContext } from './context.ts';
import { jsonOption, listCommand, printResult, shownOnce } from './output.ts';

/** What the lines about an endpoint show of it, as the operations answer it. */
type Endpoint = Pick<
  OperationOutput<'webhooks.update'>,
  'id' | 'url' | 'eventTypes' | 'disabledAt' | 'disabledReason'
>;

/** `--event <type>`, repeatable: the event types an endpoint receives. */
function eventOption(): Option {
  return new Option('--event <type>', 'an event type to receive (repeat for more)')
    .choices(EVENT_TYPES)
    .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
}

/** One endpoint on one line: id, URL, event types and whether it is enabled. */
function endpointLine(endpoint: Endpoint): string {
  return `${endpoint.id}  ${endpoint.url}  ${endpoint.eventTypes.join(',')}  ${endpoint.disabledAt ? `disabled (${endpoint.disabledReason ?? ''})` : 'enabled'}`;
}

/** An endpoint with its signing secret, which is shown this once. */
function withSecret(endpoint: Endpoint & { secret: string }, what: string): string {
  return shownOnce(
    `${what} ${endpointLine(endpoint)}`,
    endpoint.secret,
    'The signing secret is shown this once: give it to the receiver, which verifies each message with it.',
  );
}

/** `portico webhooks`: an organization's webhook endpoints and their deliveries. */
export function registerWebhookCommands(program: Command, context: CliContext): void {
  const { io } = context;
  const webhooks = program
    .command('webhooks')
    .description("manage an organization's webhook endpoints (also in GraphQL; see docs/webhooks.md)");
  /** A sub-command on one endpoint of an organization: `<id>` and `--org`. */
  const onEndpoint = (name: string, description: string) =>
    webhooks
      .command(name)
      .description(description)
      .requiredOption('--org <handle>', 'the organization')
      .argument('<id>', 'the endpoint');

  listCommand(webhooks, io, 'list', {
    description: "list an organization's endpoints with their pending and failed deliveries",
    org: (command, org) => context.operate(command, 'webhooks.list', { org }),
    empty: (org) => `${org} has no webhook endpoints.`,
    line: (endpoint) => `${endpointLine(endpoint)}  pending ${endpoint.pending}  failed ${endpoint.failed}`,
  });
  webhooks
    .command('create')
    .description('register an https endpoint; its signing secret is shown once')
    .requiredOption('--org <handle>', 'the organization')
    .requiredOption('--url <url>', 'where messages are POSTed (https)')
    .addOption(eventOption().makeOptionMandatory())
    .option('--description <text>', 'what the endpoint is for')
    .addOption(jsonOption())
    .action(
      async (
        options: { org: string; url: string; event: EventType[]; description?: string; json?: boolean },
        command: Command,
      ) => {
        const created = await context.operate(command, 'webhooks.create', {
          org: options.org,
          url: options.url,
          events: options.event,
          ...(options.description === undefined ? {} : { description: options.description }),
        });
        printResult(io, created, options, () => withSecret(created, 'Created'));
      },
    );
  onEndpoint('update', "change an endpoint's URL, description or event types")
    .option('--url <url>', 'a new https URL')
    .option('--description <text>', 'a new description')
    .addOption(eventOption())
    .addOption(jsonOption())
    .action(
      async (
        id: string,
        options: { org: string; url?: string; description?: string; event?: EventType[]; json?: boolean },
        command: Command,
      ) => {
        const updated = await context.operate(command, 'webhooks.update', {
          org: options.org,
          id,
          ...(options.url === undefined ? {} : { url: options.url }),
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(options.event === undefined ? {} : { events: options.event }),
        });
        printResult(io, updated, options, () => `Updated ${endpointLine(updated)}`);
      },
    );
  for (const [name, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    onEndpoint(name, enabled ? 'deliver to an endpoint again' : 'stop delivering to an endpoint')
      .addOption(jsonOption())
      .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
        const endpoint = await context.operate(command, 'webhooks.enable', { org: options.org, id, enabled });
        printResult(io, endpoint, options, endpointLine);
      });
  }
  onEndpoint('delete', 'delete an endpoint with its deliveries')
    .addOption(jsonOption())
    .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
      const deleted = await context.operate(command, 'webhooks.delete', { org: options.org, id });
      printResult(io, deleted, options, () => `Deleted endpoint ${id}.`);
    });
  onEndpoint('rotate-secret', 'give an endpoint a new signing secret; the old one keeps signing for 24 hours')
    .addOption(jsonOption())
    .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
      const rotated = await context.operate(command, 'webhooks.rotate', { org: options.org, id });
      printResult(io, rotated, options, () => withSecret(rotated, 'Rotated'));
    });
  webhooks
    .command('resend')
    .description('send a delivery again, or every failed delivery of an endpoint since a time')
    .requiredOption('--org <handle>', 'the organization')
    .option('--delivery <id>', 'one delivery')
    .option('--endpoint <id>', 'the endpoint whose failed deliveries to send again (with --since)')
    .option('--since <time>', 'ISO 8601: failed deliveries created at or after it')
    .addOption(jsonOption())
    .action(
      async (
        options: { org: string; delivery?: string; endpoint?: string; since?: string; json?: boolean },
        command: Command,
      ) => {
        const { json, ...input } = options;
        const resent = await context.operate(command, 'webhooks.resend', input);
        printResult(
          io,
          resent,
          { json },
          () => `Queued ${resent.count} deliver${resent.count === 1 ? 'y' : 'ies'} to send again.`,
        );
      },
    );
}
