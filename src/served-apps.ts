import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { OperationServices } from './admin/operations.ts';
import { sessionLimitsOf } from './accounts/sessions.ts';
import type { Config } from './config.ts';
import type { FileStore } from './files/file-store.ts';
import { buildPortfolioApp, PORTFOLIO_BASE_PATH, type PortfolioAppDeps } from './portfolio/app.ts';
import { buildTransactionsApp, GRAPHQL_PATH } from './transactions/app.ts';
import type { DocumentWorkers } from './transactions/documents/document-workers.ts';
import type { RecipientNotices } from './transactions/recipients/notice-sender.ts';
import type { KickedRuns } from './jobs/kicked-runs.ts';

export type ServiceName = 'transactions' | 'portfolio';

/** A service's app as `portico serve` runs it: where it listens and the path its banner names. */
export interface ServedApp {
  name: ServiceName;
  app: FastifyInstance;
  port: number;
  path: string;
}

/** What the served apps are built from: the process's parts (database, files, mail, workers) and its config. */
export interface ServedAppsOptions {
  config: Pick<
    Config,
    | 'environment'
    | 'webhooksAllowInsecure'
    | 'graphqlLimits'
    | 'transactionsUrl'
    | 'portfolioUrl'
    | 'uploadMaxBytes'
    | 's3'
    | 'transactionsPort'
    | 'portfolioPort'
  > &
    Partial<Pick<Config, 'sessionIdleMinutes' | 'sessionMaxHours'>>;
  /** Build one service only. @default both */
  only?: ServiceName | undefined;
  /** What both apps take alike: the database, TLS, proxies, CORS, rate limits, metrics. */
  shared: Omit<PortfolioAppDeps, 'publicUrl' | 'dashboard' | 'logger'>;
  files: FileStore;
  mail: OperationServices;
  recipientNotices?: RecipientNotices | undefined;
  /** The runner of closings' rows, kicked when a closing is run. */
  closingRuns?: KickedRuns<unknown> | undefined;
  /** The runner of bulk actions, kicked when one is made. */
  bulkRuns?: KickedRuns<unknown> | undefined;
  documentWorkers?: DocumentWorkers | undefined;
  /** The built front end. @default web/dist of this checkout */
  webDistDir?: string | undefined;
  logger: Logger;
}

/**
 * The apps `portico serve` runs, with every surface on (GraphQL, the recipient portal, key delivery and the
 * console on Transactions; REST and the dashboard on Portfolio), not yet listening. The route tables of the
 * security tests read these very apps.
 */
export async function buildServedApps(options: ServedAppsOptions): Promise<ServedApp[]> {
  const { config, shared, files, mail, logger } = options;
  const apps: ServedApp[] = [];
  // The signed-in surfaces' session limits: both surfaces take the same settings.
  const sessionLimits = sessionLimitsOf(config);
  if (options.only !== 'portfolio') {
    const app = await buildTransactionsApp({
      ...shared,
      environment: config.environment,
      webhooksAllowInsecure: config.webhooksAllowInsecure,
      files,
      graphqlLimits: config.graphqlLimits,
      publicUrl: config.transactionsUrl,
      keyDelivery: { mailer: mail.mailer },
      console: {
        sessionLimits,
        mailer: mail.mailer,
        transactionsUrl: () => mail.transactionsUrl,
        closingRuns: options.closingRuns,
        bulkRuns: options.bulkRuns,
      },
      uploadMaxBytes: config.uploadMaxBytes,
      recipientNotices: options.recipientNotices,
      documentWorkers: options.documentWorkers,
      webDistDir: options.webDistDir,
      // Files in S3 are what every node shares: a node that cannot reach them is not ready.
      ...(config.s3 ? { readiness: { required: { files: () => files.check() } } } : {}),
      logger: logger.child({ service: 'transactions' }),
    });
    apps.push({ name: 'transactions', app, port: config.transactionsPort, path: GRAPHQL_PATH });
  }
  if (options.only !== 'transactions') {
    const app = await buildPortfolioApp({
      ...shared,
      publicUrl: config.portfolioUrl,
      dashboard: { mail, sessionLimits, distDir: options.webDistDir },
      logger: logger.child({ service: 'portfolio' }),
    });
    apps.push({ name: 'portfolio', app, port: config.portfolioPort, path: PORTFOLIO_BASE_PATH });
  }
  return apps;
}
