import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createMailer } from './mail/mailer.ts';
import { startProcessMetrics } from './process-metrics.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/open-database.ts';
import { compilePGlite } from './db/pglite-database.ts';
import { startTracing } from './observability/tracing.ts';
import type { DemoFacts } from './demo/demo-facts.ts';
import { demoBannerNow, demoFactsNow, seedDemoOnce } from './demo/serve-demo.ts';
import { createFileStore } from './files/create-file-store.ts';
import { startOrphanSweep } from './files/orphan-sweep.ts';
import { startRetention } from './admin/retention.ts';
import { loadTlsMaterial, warnOfCertificatePerNode } from './http/tls.ts';
import { loadSeals, sealKeeper } from './transactions/evidence/seal-keeper.ts';
import type { OperationServices } from './admin/operations.ts';
import { expireDeliveries } from './transactions/key-delivery/deliveries.ts';
import { createRecipientNotices, type RecipientNotices } from './transactions/recipients/notice-sender.ts';
import { createClosingRuns } from './transactions/console/closings/closing-runs.ts';
import { createAlertDigests } from './transactions/console/alerts/digest-job.ts';
import { createBulkRuns } from './transactions/console/bulk/bulk-runs.ts';
import { startCertificateRuns } from './transactions/evidence/certificate-runs.ts';
import type { KickedRuns } from './jobs/kicked-runs.ts';
import { createDocumentWorkers } from './transactions/documents/document-workers.ts';
import type { ServiceName } from './served-apps.ts';
import { startPageDrawing } from './http/drawing/page-drawing.ts';

export interface ServeOptions {
  /** Run one service only. @default both */
  only?: ServiceName | undefined;
  /** Seed demo data into an empty database. @default true on the embedded database in staging, else false */
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
  /** Where Prometheus scrapes this process (`PORTICO_METRICS_PORT`), e.g. `http://127.0.0.1:9464/metrics`. */
  metricsUrl?: string | undefined;
  /**
   * The first step of stopping: `/readyz` answers 503 on both services from now on, while every other route
   * still serves (see `stopOnSignal` in cli/context.ts for the whole sequence).
   */
  drain(): void;
  /**
   * Stops accepting, lets requests in flight finish (ending the console's live streams), lets background work
   * finish its batch, and closes the database.
   */
  close(): Promise<void>;
  /**
   * What `close` is still waiting for, e.g. `requests in flight (transactions)`: for the log line of a stop that
   * did not finish in time.
   */
  closing(): string | undefined;
}

/** A step of closing, named for the log line of a stop that did not finish in time. */
interface Closer {
  what: string;
  close: () => Promise<void>;
  /** What of it is still running, e.g. which services still have requests in flight. */
  detail?: () => string;
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
  // Compiled off the main thread while it reads the TLS material and the seals and loads the services' modules.
  if (config.databaseUrl === undefined) void compilePGlite();
  // The services' modules load while the TLS material and the seals are read and the database opens (PGlite
  // compiles its WebAssembly off this thread).
  const services = import('./served-apps.ts');
  // Awaited below; if a step before fails first, this must not be an unhandled rejection.
  services.catch(() => undefined);
  const tls = await loadTlsMaterial(config);
  // Checked before anything starts: a seal that cannot seal stops the start with one line.
  const seals = options.only === 'portfolio' ? undefined : await loadSeals(config, logger);
  const opened = await openDatabase(config);
  const { buildServedApps } = await services.catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  const closers: Closer[] = [{ what: 'the database', close: () => opened.close() }];
  let closing: Closer | undefined;
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) {
      closing = closer;
      logger.debug({ step: closer.what }, 'stopping');
      await closer.close();
    }
    closing = undefined;
  };
  let draining = false;
  try {
    const { db } = opened;
    const files = await createFileStore(config, logger.child({ service: 'files' }));
    await files.check();
    if (config.databaseUrl !== undefined) {
      // The embedded database has one node by construction; on PostgreSQL a node with files in its data dir
      // refuses to start beside another (files/shared-storage-check.ts).
      const { registerServingNode } = await import('./files/shared-storage-check.ts');
      const node = await registerServingNode(db, config, logger.child({ service: 'files' }), {
        servesFiles: options.only !== 'portfolio',
      });
      closers.push({ what: 'the node registry', close: () => node.stop() });
      warnOfCertificatePerNode(config, tls, logger);
    }
    // In the background: a large bucket takes a while to list, and nothing waits for what it removes.
    const sweep = startOrphanSweep({ db, store: files, logger: logger.child({ service: 'files' }) });
    closers.push({ what: 'the orphan-file sweep', close: () => sweep.stop() });
    const retention = startRetention({ db, dataDir: config.dataDir, settings: config.retention, logger });
    closers.push({ what: 'the retention cleanup', close: () => retention.stop() });
    const keeper = seals && (await sealKeeper(db, seals, logger));
    const documentWorkers =
      keeper && createDocumentWorkers({ seals: keeper, timestampAuthority: config.tsaUrl, logger });
    const seedDemo = options.demo ?? (config.databaseUrl === undefined && config.environment === 'staging');
    const { seeded, seededPortfolio } = seedDemo
      ? await seedDemoOnce(db, files, config.environment, logger, documentWorkers)
      : { seeded: undefined, seededPortfolio: undefined };
    const observed = await startProcessMetrics(config, db);
    if (observed) closers.push({ what: 'the metrics listener', close: () => observed.close() });
    const metrics = observed && { metrics: observed.metrics, token: config.metricsToken };
    const created = createMailer(config, logger.child({ service: 'mail' }));
    const mailer = observed ? observed.metered(created) : created;
    closers.push({
      what: 'the mailer',
      close: () => {
        mailer.close();
        return Promise.resolve();
      },
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
      draining: () => draining,
      corsOrigins: config.corsOrigins,
      rateLimit: {
        perKey: config.rateLimit,
        perAddress: config.rateLimitPerAddress,
        redisUrl: config.redisUrl,
        redisPrefix: config.redisPrefix,
      },
      metrics,
    };
    // Recipients' invitations and reminders: sent every minute, and at once after the mutation that queued one.
    let recipientNotices: RecipientNotices | undefined;
    let closingRuns: KickedRuns<unknown> | undefined;
    let bulkRuns: KickedRuns<unknown> | undefined;
    if (options.only !== 'portfolio') {
      const notices = createRecipientNotices({
        db,
        mailer,
        transactionsUrl: () => mail.transactionsUrl,
        logger: logger.child({ service: 'transactions' }),
      });
      recipientNotices = notices;
      closers.push({ what: "recipients' invitations and reminders", close: () => notices.stop() });
      // Closings' rows: created every few seconds (a closing another node left running too), and at once when
      // a closing is run here; each transaction made sends its invitation now.
      const closings = createClosingRuns({
        db,
        logger: logger.child({ service: 'transactions' }),
        onCreated: () => {
          notices.kick();
        },
      });
      closingRuns = closings;
      closers.push({ what: 'the closings being run', close: () => closings.stop() });
      // The console's alert digests: looked for every minute, at most one per person per quarter of an hour.
      const digests = createAlertDigests({
        db,
        mailer,
        transactionsUrl: () => mail.transactionsUrl,
        logger: logger.child({ service: 'transactions' }),
      });
      closers.push({ what: "the console's alert digests", close: () => digests.stop() });
      // Bulk actions: run every few seconds (a job another node left running too), and at once when one is made
      // here; each batch done sends the mail it queued (reminders) now.
      const bulk = createBulkRuns({
        db,
        logger: logger.child({ service: 'transactions' }),
        onBatch: () => {
          notices.kick();
        },
      });
      bulkRuns = bulk;
      closers.push({ what: 'the bulk actions being run', close: () => bulk.stop() });
    }
    const apps = await buildServedApps({
      config,
      only: options.only,
      shared: common,
      files,
      mail,
      recipientNotices,
      closingRuns,
      bulkRuns,
      documentWorkers,
      logger,
    });
    // Both services stop accepting at once, and each waits for its own requests in flight.
    const inFlight = new Set(apps.map(({ name }) => name));
    const requestsInFlight: Closer = {
      what: 'requests in flight',
      close: async () => {
        await Promise.all(
          apps.map(async ({ name, app }) => {
            await app.close();
            inFlight.delete(name);
          }),
        );
      },
      detail: () => [...inFlight].join(' and '),
    };
    closers.push(requestsInFlight);
    // The document workers close before the services wait for their requests in flight: a document still being
    // made is given a moment and then terminated (its request answers 503), so that it does not hold the stop.
    if (documentWorkers) {
      closers.push({ what: 'the document workers', close: () => documentWorkers.close() });
      closers.push(startCertificateRuns({ db, files, workers: documentWorkers, logger })); // stops first
    }

    for (const { name, app, port, path } of apps) {
      await app.listen({
        port,
        host: config.host,
        // Fastify names the address http:// because it does not know the polyglot server speaks TLS.
        listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, 'https:')}`,
      });
      const { port: actual } = app.server.address() as AddressInfo;
      urls[name] = `https://${publicHost(config.host)}:${actual}${path}`;
    }

    // What was queued before the services listened (the demo's invitations, mail that failed before a restart),
    // now that links can name the port listened on; and the first threads of the documents and pages, early.
    recipientNotices?.kick();
    documentWorkers?.start();
    closers.push({ what: 'the page drawer', close: startPageDrawing(options.only) });
    // Webhooks report Transactions events: the service that runs them delivers them.
    if (config.webhookWorker === 'in-process' && options.only !== 'portfolio') {
      // Loaded once the services listen, like the admin server below: they answer without waiting for either.
      const { startConfiguredWebhookWorker } = await import('./worker.ts');
      const worker = startConfiguredWebhookWorker(db, config, logger, observed?.metrics);
      // Stopped once the services have closed (closers run last to first), so that a stopping node stops
      // accepting requests without waiting for the deliveries the worker has claimed, and the events its last
      // requests queue can still go out from it.
      closers.splice(closers.indexOf(requestsInFlight), 0, {
        what: 'the webhook worker',
        close: () => worker.stop(),
      });
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
      closers.push({
        what: 'the expiry of key deliveries',
        close: () => {
          clearInterval(expiry);
          return Promise.resolve();
        },
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
      closers.push({ what: 'the admin socket', close: () => admin.app.close() });
      await opened.announce(admin.path);
    }

    // A data dir without demo.json (a new node, a container's fresh disk) takes the facts its seeding kept.
    const demo = await demoFactsNow({
      config,
      db,
      seedDemo,
      seeded,
      seededPortfolio,
      urls,
      linksTo: mail,
      caCertPath: tls.certPath,
    });
    // Every start with demo facts prints them whole, its sign-ins as they are now; a deployment, where it runs.
    if (demo) {
      print(await demoBannerNow({ db, config, demo, seeded, seededPortfolio, metricsUrl: observed?.url }));
    } else {
      print(
        [
          '',
          'Portico is running.',
          ...Object.entries(urls).map(([name, url]) => `  ${name.padEnd(13)} ${url}`),
          `  CA certificate ${tls.certPath}`,
          ...(observed?.url ? [`  metrics       ${observed.url}`] : []),
          '',
        ].join('\n'),
      );
    }
    if (observed?.url) logger.info({ url: observed.url }, 'metrics listening');
    return {
      urls,
      demo,
      caCertPath: tls.certPath,
      metricsUrl: observed?.url,
      drain: () => {
        draining = true;
      },
      close,
      closing: () => closing && `${closing.what}${closing.detail ? ` (${closing.detail()})` : ''}`,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
