import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { runOperation } from '../admin/run-operation.ts';
import type { OperationInput, OperationName } from '../admin/operations.ts';
import { CONFIG_VARIABLES, loadConfig, type Config, type ConfigKey, type RawConfig } from '../config.ts';
import { readLockOwner } from '../db/data-dir-lock.ts';
import { openDatabase } from '../db/open-database.ts';
import { demoFactsPath, readDemoFacts } from '../demo/demo-facts.ts';
import { createLogger } from '../logger.ts';
import { serve, type ServiceName } from '../serve.ts';
import { startWebhookWorker } from '../webhooks/delivery.ts';

export interface CliIO {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
}

function configOf(command: Command, env: NodeJS.ProcessEnv): Config {
  const flags = command.optsWithGlobals<RawConfig>();
  const raw: RawConfig = {};
  for (const key of Object.keys(CONFIG_VARIABLES) as ConfigKey[]) raw[key] = flags[key];
  return loadConfig(env, raw);
}

/** The version of this Portico, from its package.json. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

function print(io: CliIO, value: unknown, json: boolean, text: () => string): void {
  io.out(json ? JSON.stringify(value, null, 2) : text());
}

/**
 * The `portico` command. Every configuration variable is also a global flag (`--data-dir`, `--database-url`, …);
 * flags win over the environment.
 */
export function createProgram(io: CliIO): Command {
  const program = new Command('portico')
    .description('Portico: the Transactions GraphQL service and the Portfolio REST service.')
    .version(VERSION, '-V, --version', 'print the version of Portico')
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => {
        io.out(text.trimEnd());
      },
      writeErr: (text) => {
        io.err(text.trimEnd());
      },
    });
  for (const variable of Object.values(CONFIG_VARIABLES)) {
    const shownDefault = variable.default === undefined ? '' : `, default ${variable.default}`;
    program.addOption(new Option(variable.flag, `${variable.help} [env ${variable.env}${shownDefault}]`));
  }
  program.addHelpText(
    'after',
    '\nEvery option can also be set by its environment variable; a flag wins over the variable.',
  );

  const operate = async <Name extends OperationName>(
    command: Command,
    name: Name,
    input: OperationInput<Name>,
    onProgress?: (progress: unknown) => void,
  ) => runOperation(configOf(command, io.env), name, input, onProgress);

  program
    .command('serve')
    .description('run both services over HTTPS (seeding demo data into a fresh embedded database)')
    .addOption(new Option('--only <service>', 'run one service only').choices(['transactions', 'portfolio']))
    .option('--demo', 'seed demo data into an empty database (default on the embedded database in staging)')
    .option('--no-demo', 'never seed demo data')
    .action(async (options: { only?: ServiceName; demo?: boolean }, command: Command) => {
      const config = configOf(command, io.env);
      const logger = createLogger(config.logLevel);
      const running = await serve(config, { only: options.only, demo: options.demo, logger, print: io.out });
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          logger.info({ signal }, 'shutting down');
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await running.close();
    });

  program
    .command('worker')
    .description(
      'deliver webhooks from the outbox until stopped; run any number of them on one PostgreSQL (serve runs one in-process unless PORTICO_WEBHOOK_WORKER=off)',
    )
    .action(async (_: unknown, command: Command) => {
      const config = configOf(command, io.env);
      const logger = createLogger(config.logLevel);
      const owner = config.databaseUrl === undefined ? await readLockOwner(config.dataDir) : undefined;
      if (owner) {
        throw new Error(
          `the embedded database is served by process ${owner.pid}, which delivers webhooks itself; separate workers need PostgreSQL (DATABASE_URL)`,
        );
      }
      const opened = await openDatabase(config);
      const worker = startWebhookWorker(opened.db, {
        allowInsecure: config.webhooksAllowInsecure,
        timeoutMs: config.webhookTimeout * 1000,
        delaysMs: config.webhookRetrySchedule.map((seconds) => seconds * 1000),
        onError: (error) => {
          logger.error({ err: error }, 'webhook worker step failed');
        },
      });
      logger.info({ pid: process.pid }, 'webhook worker started');
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          logger.info({ signal }, 'stopping the webhook worker');
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await worker.stop();
      await opened.close();
    });

  program
    .command('migrate')
    .description('bring the database schema up to date (serve does this at start too)')
    .action(async (_: unknown, command: Command) => {
      const config = configOf(command, io.env);
      const owner = config.databaseUrl === undefined ? await readLockOwner(config.dataDir) : undefined;
      if (owner) {
        io.out(`The embedded database is served by process ${owner.pid}, which migrated it at start.`);
        return;
      }
      const opened = await openDatabase(config);
      await opened.close();
      io.out(
        opened.applied.length === 0
          ? 'The schema is up to date.'
          : `Applied ${opened.applied.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`).join(', ')}.`,
      );
    });

  program
    .command('demo')
    .description('print the demo facts: addresses, demo API key, demo ids, CA certificate')
    .option('--json', 'print them as JSON (the shape of <data dir>/demo.json)')
    .action(async (options: { json?: boolean }, command: Command) => {
      const config = configOf(command, io.env);
      const facts = await readDemoFacts(config.dataDir);
      if (!facts) {
        throw new Error(
          `no demo data in ${config.dataDir}: start Portico once with "npm start" (portico serve)`,
        );
      }
      print(io, facts, options.json === true, () =>
        [
          `Transactions  ${facts.transactions.url}`,
          `  API key     ${facts.transactions.apiKey}`,
          `  transaction ${facts.transactions.transactionId}`,
          `Portfolio     ${facts.portfolio.url}`,
          `  API key     ${facts.portfolio.apiKey ?? '(none)'}`,
          `  company     ${facts.portfolio.companyId ?? '(none)'}`,
          `CA cert       ${facts.caCertPath}`,
          `(from ${demoFactsPath(config.dataDir)})`,
        ].join('\n'),
      );
    });

  const org = program
    .command('org')
    .description('manage organizations (tenants of the Transactions service)');
  org
    .command('create')
    .description('create an organization')
    .requiredOption('--handle <handle>', 'unique short name: lower-case letters, digits, hyphens')
    .requiredOption('--name <name>', 'display name')
    .option('--json', 'print the result as JSON')
    .action(async (options: { handle: string; name: string; json?: boolean }, command: Command) => {
      const created = (await operate(command, 'org.create', options)) as { id: string; handle: string };
      print(
        io,
        created,
        options.json === true,
        () => `Created organization ${created.handle} (${created.id}).`,
      );
    });

  const templates = program.command('templates').description('manage transaction templates');
  templates
    .command('import')
    .description(
      'check a template file (YAML or JSON) and import it; a changed template in use becomes a new version',
    )
    .argument('<file>', 'the template file, e.g. templates/examples/subscription.yaml')
    .requiredOption('--org <handle>', 'the organization')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, options: { org: string; json?: boolean }, command: Command) => {
      const source = await readFile(file, 'utf8');
      const imported = (await operate(command, 'templates.import', {
        org: options.org,
        source,
        filename: basename(file),
      })) as { key: string; version: number; id: string; outcome: string };
      const what = {
        created: 'Imported',
        unchanged: 'Unchanged:',
        updated: 'Updated (no transaction uses it yet)',
        versioned: 'Imported a new version (transactions use the previous one)',
      }[imported.outcome];
      print(
        io,
        imported,
        options.json === true,
        () => `${what} template ${imported.key} v${imported.version} (${imported.id}).`,
      );
    });

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
      ).choices(['staging', 'production']),
    )
    .option('--json', 'print the result as JSON')
    .action(
      async (
        options: { org: string; name?: string; keyEnvironment?: 'staging' | 'production'; json?: boolean },
        command: Command,
      ) => {
        const created = (await operate(command, 'keys.create', {
          org: options.org,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.keyEnvironment === undefined ? {} : { environment: options.keyEnvironment }),
        })) as { key: string; id: string; environment: string };
        print(io, created, options.json === true, () =>
          [
            `Created a ${created.environment} key for ${options.org} (id ${created.id}):`,
            '',
            `  ${created.key}`,
            '',
            'Store it now: Portico keeps only its hash and cannot show it again.',
          ].join('\n'),
        );
      },
    );
  keys
    .command('list')
    .description("list an organization's keys (prefixes only)")
    .requiredOption('--org <handle>', 'the organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; json?: boolean }, command: Command) => {
      const list = (await operate(command, 'keys.list', { org: options.org })) as {
        id: string;
        displayPrefix: string;
        environment: string;
        name: string | null;
        createdAt: string;
        lastUsedAt: string | null;
        revokedAt: string | null;
      }[];
      print(io, list, options.json === true, () =>
        list.length === 0
          ? `${options.org} has no keys.`
          : list
              .map(
                (k) =>
                  `${k.displayPrefix}…  ${k.environment.padEnd(10)} ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  last used ${k.lastUsedAt ?? 'never'}  ${k.name ?? ''}  (${k.id})`,
              )
              .join('\n'),
      );
    });
  keys
    .command('revoke')
    .description('revoke a key at once; requests with it get 401')
    .requiredOption('--org <handle>', 'the organization')
    .argument('<key>', 'the key id, or its prefix as `keys list` shows it')
    .option('--json', 'print the result as JSON')
    .action(async (key: string, options: { org: string; json?: boolean }, command: Command) => {
      const revoked = (await operate(command, 'keys.revoke', { org: options.org, key })) as { id: string };
      print(io, revoked, options.json === true, () => `Revoked key ${revoked.id}.`);
    });

  registerWebhookCommands(program, io, operate);
  registerPortfolioCommands(program, io, operate);
  return program;
}

type Operate = <Name extends OperationName>(
  command: Command,
  name: Name,
  input: OperationInput<Name>,
  onProgress?: (progress: unknown) => void,
) => Promise<unknown>;

/** At most one progress line a second, and always the last one of each phase. */
function progressPrinter(io: CliIO): (progress: unknown) => void {
  let last = 0;
  return (progress) => {
    const report = progress as { phase: string; done?: number; total?: number; file?: string };
    const now = Date.now();
    const finished = report.done !== undefined && report.done === report.total;
    if (!finished && report.done !== undefined && now - last < 1000) return;
    last = now;
    io.err(
      report.file !== undefined
        ? `reading ${report.file}`
        : `${report.phase}: ${report.done ?? 0}/${report.total ?? 0}${report.total ? ` (${Math.floor(((report.done ?? 0) / report.total) * 100)}%)` : ''}`,
    );
  };
}

interface EndpointShown {
  id: string;
  url: string;
  eventTypes: string[];
  disabledAt: string | null;
  disabledReason: string | null;
  secret?: string;
}

function registerWebhookCommands(program: Command, io: CliIO, operate: Operate): void {
  const webhooks = program
    .command('webhooks')
    .description("manage an organization's webhook endpoints (also in GraphQL; see docs/webhooks.md)");
  const events = () =>
    new Option('--event <type>', 'an event type to receive (repeat for more)')
      .choices(['transaction.completed', 'transaction.state_changed'])
      .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  const shown = (endpoint: EndpointShown) =>
    `${endpoint.id}  ${endpoint.url}  ${endpoint.eventTypes.join(',')}  ${endpoint.disabledAt ? `disabled (${endpoint.disabledReason ?? ''})` : 'enabled'}`;
  const withSecret = (endpoint: EndpointShown, what: string) =>
    [
      `${what} ${shown(endpoint)}`,
      '',
      `  ${endpoint.secret ?? ''}`,
      '',
      'The signing secret is shown this once: give it to the receiver, which verifies each message with it.',
    ].join('\n');

  webhooks
    .command('list')
    .description("list an organization's endpoints with their pending and failed deliveries")
    .requiredOption('--org <handle>', 'the organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; json?: boolean }, command: Command) => {
      const list = (await operate(command, 'webhooks.list', { org: options.org })) as (EndpointShown & {
        pending: number;
        failed: number;
      })[];
      print(io, list, options.json === true, () =>
        list.length === 0
          ? `${options.org} has no webhook endpoints.`
          : list.map((e) => `${shown(e)}  pending ${e.pending}  failed ${e.failed}`).join('\n'),
      );
    });
  webhooks
    .command('create')
    .description('register an https endpoint; its signing secret is shown once')
    .requiredOption('--org <handle>', 'the organization')
    .requiredOption('--url <url>', 'where messages are POSTed (https)')
    .addOption(events().makeOptionMandatory())
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print the result as JSON')
    .action(
      async (
        options: {
          org: string;
          url: string;
          event: ('transaction.completed' | 'transaction.state_changed')[];
          description?: string;
          json?: boolean;
        },
        command: Command,
      ) => {
        const created = (await operate(command, 'webhooks.create', {
          org: options.org,
          url: options.url,
          events: options.event,
          ...(options.description === undefined ? {} : { description: options.description }),
        })) as EndpointShown;
        print(io, created, options.json === true, () => withSecret(created, 'Created'));
      },
    );
  webhooks
    .command('update')
    .description("change an endpoint's URL, description or event types")
    .requiredOption('--org <handle>', 'the organization')
    .argument('<id>', 'the endpoint')
    .option('--url <url>', 'a new https URL')
    .option('--description <text>', 'a new description')
    .addOption(events())
    .option('--json', 'print the result as JSON')
    .action(
      async (
        id: string,
        options: {
          org: string;
          url?: string;
          description?: string;
          event?: ('transaction.completed' | 'transaction.state_changed')[];
          json?: boolean;
        },
        command: Command,
      ) => {
        const updated = (await operate(command, 'webhooks.update', {
          org: options.org,
          id,
          ...(options.url === undefined ? {} : { url: options.url }),
          ...(options.description === undefined ? {} : { description: options.description }),
          ...(options.event === undefined ? {} : { events: options.event }),
        })) as EndpointShown;
        print(io, updated, options.json === true, () => `Updated ${shown(updated)}`);
      },
    );
  for (const [name, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    webhooks
      .command(name)
      .description(enabled ? 'deliver to an endpoint again' : 'stop delivering to an endpoint')
      .requiredOption('--org <handle>', 'the organization')
      .argument('<id>', 'the endpoint')
      .option('--json', 'print the result as JSON')
      .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
        const endpoint = (await operate(command, 'webhooks.enable', {
          org: options.org,
          id,
          enabled,
        })) as EndpointShown;
        print(io, endpoint, options.json === true, () => shown(endpoint));
      });
  }
  webhooks
    .command('delete')
    .description('delete an endpoint with its deliveries')
    .requiredOption('--org <handle>', 'the organization')
    .argument('<id>', 'the endpoint')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
      const deleted = await operate(command, 'webhooks.delete', { org: options.org, id });
      print(io, deleted, options.json === true, () => `Deleted endpoint ${id}.`);
    });
  webhooks
    .command('rotate-secret')
    .description('give an endpoint a new signing secret; the old one keeps signing for 24 hours')
    .requiredOption('--org <handle>', 'the organization')
    .argument('<id>', 'the endpoint')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { org: string; json?: boolean }, command: Command) => {
      const rotated = (await operate(command, 'webhooks.rotate', { org: options.org, id })) as EndpointShown;
      print(io, rotated, options.json === true, () => withSecret(rotated, 'Rotated'));
    });
  webhooks
    .command('resend')
    .description('send a delivery again, or every failed delivery of an endpoint since a time')
    .requiredOption('--org <handle>', 'the organization')
    .option('--delivery <id>', 'one delivery')
    .option('--endpoint <id>', 'the endpoint whose failed deliveries to send again (with --since)')
    .option('--since <time>', 'ISO 8601: failed deliveries created at or after it')
    .option('--json', 'print the result as JSON')
    .action(
      async (
        options: { org: string; delivery?: string; endpoint?: string; since?: string; json?: boolean },
        command: Command,
      ) => {
        const { json, ...input } = options;
        const resent = (await operate(command, 'webhooks.resend', input)) as { count: number };
        print(
          io,
          resent,
          json === true,
          () => `Queued ${resent.count} deliver${resent.count === 1 ? 'y' : 'ies'} to send again.`,
        );
      },
    );
}

function registerPortfolioCommands(program: Command, io: CliIO, operate: Operate): void {
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
    .option('--json', 'print the result as JSON')
    .action(async (options: { slug: string; name: string; json?: boolean }, command: Command) => {
      const created = (await operate(command, 'portfolio.instances.create', options)) as {
        id: string;
        slug: string;
      };
      print(io, created, options.json === true, () => `Created instance ${created.slug} (${created.id}).`);
    });
  instances
    .command('list')
    .description('list the customer instances')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = (await operate(command, 'portfolio.instances.list', {})) as {
        id: string;
        slug: string;
        name: string;
      }[];
      print(io, list, options.json === true, () =>
        list.length === 0
          ? 'There are no instances.'
          : list.map((i) => `${i.slug.padEnd(24)} ${i.name}  (${i.id})`).join('\n'),
      );
    });

  const keys = portfolio.command('keys').description('manage Portfolio API keys');
  keys
    .command('create')
    .description('issue a Portfolio API key for an instance; the key is shown once')
    .requiredOption('--instance <slug>', 'the customer instance')
    .requiredOption('--name <name>', 'what the key is for, e.g. "data warehouse"')
    .option('--json', 'print the result as JSON')
    .action(async (options: { instance: string; name: string; json?: boolean }, command: Command) => {
      const created = (await operate(command, 'portfolio.keys.create', {
        instance: options.instance,
        name: options.name,
      })) as { key: string; id: string };
      print(io, created, options.json === true, () =>
        [
          `Created a Portfolio key for ${options.instance} (id ${created.id}):`,
          '',
          `  ${created.key}`,
          '',
          'Store it now: Portico keeps only its hash and cannot show it again.',
          'Send it as the header "Authorization: <key>", with no "Bearer".',
        ].join('\n'),
      );
    });
  keys
    .command('list')
    .description("list an instance's keys (prefixes only)")
    .requiredOption('--instance <slug>', 'the customer instance')
    .option('--json', 'print the result as JSON')
    .action(async (options: { instance: string; json?: boolean }, command: Command) => {
      const list = (await operate(command, 'portfolio.keys.list', { instance: options.instance })) as {
        id: string;
        displayPrefix: string;
        name: string;
        lastUsedAt: string | null;
        revokedAt: string | null;
      }[];
      print(io, list, options.json === true, () =>
        list.length === 0
          ? `${options.instance} has no keys.`
          : list
              .map(
                (k) =>
                  `${k.displayPrefix}…  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  last used ${k.lastUsedAt ?? 'never'}  ${k.name}  (${k.id})`,
              )
              .join('\n'),
      );
    });
  keys
    .command('revoke')
    .description('revoke a key; requests with it get 401 within a second')
    .requiredOption('--instance <slug>', 'the customer instance')
    .argument('<key>', 'the key id, or its prefix as `portfolio keys list` shows it')
    .option('--json', 'print the result as JSON')
    .action(async (key: string, options: { instance: string; json?: boolean }, command: Command) => {
      const revoked = (await operate(command, 'portfolio.keys.revoke', {
        instance: options.instance,
        key,
      })) as { id: string };
      print(io, revoked, options.json === true, () => `Revoked key ${revoked.id}.`);
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
      new Option('--type <type>', 'the record type of CSV files (default: told by their header)').choices([
        'companies',
        'updates',
        'investments',
      ]),
    )
    .option('--json', 'print the result as JSON')
    .action(
      async (
        files: string[],
        options: { instance: string; type?: 'companies' | 'updates' | 'investments'; json?: boolean },
        command: Command,
      ) => {
        const summary = (await operate(
          command,
          'portfolio.import',
          {
            instance: options.instance,
            files: files.map((file) => resolve(file)),
            ...(options.type === undefined ? {} : { type: options.type }),
          },
          progressPrinter(io),
        )) as {
          revision: string;
          created: Record<string, number>;
          updated: Record<string, number>;
          funds: { created: number; updated: number };
        };
        print(io, summary, options.json === true, () =>
          [
            `Imported into ${options.instance} (revision ${summary.revision}):`,
            ...['companies', 'updates', 'investments'].map(
              (type) =>
                `  ${type.padEnd(12)} ${summary.created[type] ?? 0} created, ${summary.updated[type] ?? 0} updated`,
            ),
            `  ${'funds'.padEnd(12)} ${summary.funds.created} created, ${summary.funds.updated} renamed`,
          ].join('\n'),
        );
      },
    );
}
