import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createMailer } from './mail/mailer.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/open-database.ts';
import { startTracing } from './observability/tracing.ts';
import {
  demoBanner,
  demoFactsPath,
  readDemoFacts,
  writeDemoFacts,
  type DemoFacts,
} from './demo/demo-facts.ts';
import type { PortfolioDemo } from './demo/portfolio-seed.ts';
import type { SeededTransactionsDemo, TransactionsDemo } from './demo/seed.ts';
import { createFileStore } from './files/create-file-store.ts';
import { startOrphanSweep } from './files/orphan-sweep.ts';
import { loadTlsMaterial } from './http/tls.ts';
import { DASHBOARD_PATH } from './portfolio/dashboard/links.ts';
import { CONSOLE_PATH } from './transactions/console/links.ts';
import type { OperationServices } from './admin/operations.ts';
import { expireDeliveries } from './transactions/key-delivery/deliveries.ts';
import { recipientLink } from './transactions/recipients/mail.ts';
import { createRecipientNotices, type RecipientNotices } from './transactions/recipients/notices.ts';

export type ServiceName = 'transactions' | 'portfolio';

export interface ServeOptions {
  /** Run one service only. @default both */
  only?: ServiceName | undefined;
  /**
   * Seed demo data into an empty database. @default true on the embedded database in staging, else false
   */
  demo?: boolean | undefined;
  logger: Logger;
  /** Trace with OpenTelemetry (see `tracingWanted` in config.ts). @default false */
  tracing?: boolean | undefined;
  /** Where the banner goes. @default stdout */
  print?: (text: string) => void;
}

export interface RunningPortico {
  /** Base addresses on the ports actually used, e.g. `https://localhost:4000/beta`. */
  urls: Partial<Record<ServiceName, string>>;
  demo: DemoFacts | undefined;
  caCertPath: string;
  close(): Promise<void>;
}

/** The demo facts of a seeding: its transmit token goes into demo.json only as part of `recipientUrl`. */
function withoutToken(seeded: SeededTransactionsDemo): TransactionsDemo {
  const { apiKey, organizationId, templateId, senderEntityId, transactionId, consoleSignIn } = seeded;
  // The console's address is set where demo.json is written, as the recipient link's.
  return {
    apiKey,
    organizationId,
    templateId,
    senderEntityId,
    transactionId,
    console: { url: '', ...consoleSignIn },
  };
}

function publicHost(host: string): string {
  // The generated certificate names localhost; a wildcard address is reached as localhost too.
  if (['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * `portico serve`: opens the database (migrating it), seeds demo data on a fresh embedded database, and runs
 * both services over HTTPS. While it runs on the embedded database it answers CLI commands on a Unix socket.
 */
export async function serve(config: Config, options: ServeOptions): Promise<RunningPortico> {
  // Whenever Node's event loop runs out of handles, Node waits for every background task of V8 to finish. While
  // the embedded database starts, the loop can run empty for a moment (WebAssembly's promises are no handles),
  // and V8 is then compiling PGlite's busiest functions again, optimised, in the background: on two cores the
  // start waited about 0.3 s for that. A timer held until the services listen keeps the loop from running empty.
  const starting = setInterval(() => undefined, 60_000);
  try {
    return await startServing(config, options);
  } finally {
    clearInterval(starting);
  }
}

async function startServing(config: Config, options: ServeOptions): Promise<RunningPortico> {
  // Before the database opens and the apps are built: they are traced from the start.
  const tracing = await startTracing({
    enabled: options.tracing ?? false,
    serviceName: options.only === undefined ? 'portico' : `portico-${options.only}`,
  });
  try {
    const running = await startServices(config, options);
    return {
      ...running,
      async close() {
        await running.close();
        await tracing.stop();
      },
    };
  } catch (error) {
    await tracing.stop();
    throw error;
  }
}

async function startServices(config: Config, options: ServeOptions): Promise<RunningPortico> {
  const print = options.print ?? ((text: string) => void process.stdout.write(`${text}\n`));
  const { logger } = options;
  const tls = await loadTlsMaterial(config);
  const opening = openDatabase(config);
  // The services' modules load while the database opens (PGlite compiles its WebAssembly off this thread).
  const services = Promise.all([import('./transactions/app.ts'), import('./portfolio/app.ts')]);
  // Awaited below; if the database fails to open first, this must not be an unhandled rejection.
  services.catch(() => undefined);
  const opened = await opening;
  const [{ GRAPHQL_PATH, buildTransactionsApp }, { PORTFOLIO_BASE_PATH, buildPortfolioApp }] =
    await services.catch(async (error: unknown) => {
      await opened.close();
      throw error;
    });
  const closers: (() => Promise<void>)[] = [() => opened.close()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const { db } = opened;
    const files = await createFileStore(config, logger.child({ service: 'files' }));
    await files.check();
    // In the background: a large bucket takes a while to list, and nothing waits for what it removes.
    const sweep = startOrphanSweep({ db, store: files, logger: logger.child({ service: 'files' }) });
    closers.push(() => sweep.stop());
    const seedDemo = options.demo ?? (config.databaseUrl === undefined && config.environment === 'staging');
    let seeded: SeededTransactionsDemo | undefined;
    let seededPortfolio: PortfolioDemo | undefined;
    if (seedDemo) {
      const [anything] = await db.query('select 1 from organizations limit 1');
      if (!anything) {
        // The seeding modules load only for a fresh database.
        const { seedTransactionsDemo } = await import('./demo/seed.ts');
        seeded = await seedTransactionsDemo(db, files, config.environment);
        logger.info({ organizationId: seeded.organizationId }, 'seeded Transactions demo data');
      }
      const [anyInstance] = await db.query('select 1 from portfolio_instances limit 1');
      if (!anyInstance) {
        const { seedPortfolioDemo } = await import('./demo/portfolio-seed.ts');
        seededPortfolio = await seedPortfolioDemo(db);
        logger.info({ instanceId: seededPortfolio.instanceId }, 'seeded Portfolio demo data');
      }
    }

    const mailer = createMailer(config, logger.child({ service: 'mail' }));
    closers.push(() => {
      mailer.close();
      return Promise.resolve();
    });
    const urls: RunningPortico['urls'] = {};
    /** Links in mail go to a service's configured public address, else to its listener once it listens. */
    const publicOrigin = (name: ServiceName, configured: string | undefined, port: number) => {
      const listening = urls[name];
      return (
        configured ??
        (listening === undefined
          ? `https://${publicHost(config.host)}:${String(port)}`
          : new URL(listening).origin)
      );
    };
    const mail: OperationServices = {
      mailer,
      get portfolioUrl() {
        return publicOrigin('portfolio', config.portfolioUrl, config.portfolioPort);
      },
      get transactionsUrl() {
        return publicOrigin('transactions', config.transactionsUrl, config.transactionsPort);
      },
    };

    const common = {
      db,
      tls,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      rateLimit: {
        perKey: config.rateLimit,
        perAddress: config.rateLimitPerAddress,
        redisUrl: config.redisUrl,
      },
    };
    // Recipients' invitations and reminders: sent every minute, and at once after the mutation that queued one.
    let recipientNotices: RecipientNotices | undefined;
    if (options.only !== 'portfolio') {
      const notices = createRecipientNotices({
        db,
        mailer,
        transactionsUrl: () => mail.transactionsUrl,
        logger: logger.child({ service: 'transactions' }),
      });
      recipientNotices = notices;
      closers.push(() => notices.stop());
    }
    const apps: [ServiceName, FastifyInstance, number, string][] = [];
    if (options.only !== 'portfolio') {
      const app = await buildTransactionsApp({
        ...common,
        environment: config.environment,
        webhooksAllowInsecure: config.webhooksAllowInsecure,
        files,
        graphqlLimits: config.graphqlLimits,
        publicUrl: config.transactionsUrl,
        keyDelivery: { mailer },
        console: { mailer, transactionsUrl: () => mail.transactionsUrl },
        uploadMaxBytes: config.uploadMaxBytes,
        recipientNotices,
        logger: logger.child({ service: 'transactions' }),
      });
      apps.push(['transactions', app, config.transactionsPort, GRAPHQL_PATH]);
    }
    if (options.only !== 'transactions') {
      const app = await buildPortfolioApp({
        ...common,
        publicUrl: config.portfolioUrl,
        dashboard: { mail },
        logger: logger.child({ service: 'portfolio' }),
      });
      apps.push(['portfolio', app, config.portfolioPort, PORTFOLIO_BASE_PATH]);
    }
    for (const [name, app, port, path] of apps) {
      await app.listen({
        port,
        host: config.host,
        // Fastify names the address http:// because it does not know the polyglot server speaks TLS.
        listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, 'https:')}`,
      });
      closers.push(() => app.close());
      const { port: actual } = app.server.address() as AddressInfo;
      urls[name] = `https://${publicHost(config.host)}:${actual}${path}`;
    }

    // What was queued before the services listened (the demo's invitations, mail that failed before a restart),
    // now that links can name the port listened on.
    recipientNotices?.kick();

    // Webhooks report Transactions events: the service that runs them delivers them.
    if (config.webhookWorker === 'in-process' && options.only !== 'portfolio') {
      // Loaded once the services listen, like the admin server below: they answer without waiting for either.
      const { startConfiguredWebhookWorker } = await import('./worker.ts');
      const worker = startConfiguredWebhookWorker(db, config, logger);
      closers.push(() => worker.stop());
    }

    // Key deliveries past their hour lose their ciphertext, and the key of one nobody viewed is revoked.
    if (options.only !== 'portfolio') {
      const expire = () => {
        expireDeliveries(db).catch((error: unknown) => {
          logger.warn({ err: error }, 'expiring key deliveries failed; trying again in a minute');
        });
      };
      expire();
      const expiry = setInterval(expire, 60_000);
      expiry.unref();
      closers.push(() => {
        clearInterval(expiry);
        return Promise.resolve();
      });
    }

    if (config.databaseUrl === undefined) {
      const { startAdminServer } = await import('./admin/admin-server.ts');
      const admin = await startAdminServer({
        db,
        config,
        services: mail,
        logger: logger.child({ service: 'admin' }),
      });
      closers.push(() => admin.app.close());
      await opened.announce(admin.path);
    }

    const previous = await readDemoFacts(config.dataDir);
    // The recipient link of the demo transaction waiting for its investor, on the address links go to now.
    const waitingToken =
      seeded?.waitingTransmitToken ?? previous?.transactions.recipientUrl?.split('/r/').pop();
    const transactionsDemo = seeded ? withoutToken(seeded) : previous?.transactions;
    let demo: DemoFacts | undefined;
    if (transactionsDemo) {
      demo = {
        transactions: {
          ...transactionsDemo,
          url: urls.transactions ?? previous?.transactions.url ?? '',
          ...(waitingToken ? { recipientUrl: recipientLink(mail.transactionsUrl, waitingToken) } : {}),
          // On the address links go to now, as the recipient's link.
          ...(transactionsDemo.console
            ? { console: { ...transactionsDemo.console, url: `${mail.transactionsUrl}${CONSOLE_PATH}` } }
            : {}),
        },
        portfolio: {
          url: urls.portfolio ?? previous?.portfolio.url ?? '',
          apiKey: seededPortfolio?.apiKey ?? previous?.portfolio.apiKey ?? null,
          companyId: seededPortfolio?.companyId ?? previous?.portfolio.companyId ?? null,
          dashboard: seededPortfolio
            ? { url: `${mail.portfolioUrl}${DASHBOARD_PATH}`, ...seededPortfolio.dashboardSignIn }
            : (previous?.portfolio.dashboard ?? null),
        },
        caCertPath: tls.certPath,
      };
      await writeDemoFacts(config.dataDir, demo);
    }
    if ((seeded ?? seededPortfolio) && demo) print(demoBanner(demo, demoFactsPath(config.dataDir)));
    else {
      print(
        [
          '',
          'Portico is running.',
          ...Object.entries(urls).map(([name, url]) => `  ${name.padEnd(13)} ${url}`),
          `  CA certificate ${tls.certPath}`,
          ...(demo ? [`  Demo facts    ${demoFactsPath(config.dataDir)} (or: npx portico demo --json)`] : []),
          '',
        ].join('\n'),
      );
    }
    return { urls, demo, caCertPath: tls.certPath, close };
  } catch (error) {
    await close();
    throw error;
  }
}
