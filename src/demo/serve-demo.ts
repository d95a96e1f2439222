// The demo of `portico serve`: seeded once into an empty database, whichever of several nodes gets there first,
// and its facts (demo.json) written on the addresses this node's links go to.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { FileStore } from '../files/file-store.ts';
import { DASHBOARD_PATH } from '../portfolio/dashboard/links.ts';
import { CONSOLE_PATH } from '../transactions/console/links.ts';
import { recipientLink } from '../transactions/recipients/mail.ts';
import type { DocumentWorkers } from '../transactions/documents/document-workers.ts';
import type { Logger } from 'pino';
import {
  demoBanner,
  demoFactsPath,
  keepDemoFacts,
  readDemoFacts,
  readKeptDemoFacts,
  underDemoLock,
  writeDemoFacts,
  type DemoFacts,
} from './demo-facts.ts';
import { demoSignInNow, type DemoSignIn, type DemoSignInNow } from './demo-sign-in.ts';
import type { PortfolioDemo } from './portfolio-seed.ts';
import type { SeededTransactionsDemo, TransactionsDemo } from './seed.ts';

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

/** What this node seeded: nothing when the database already held the demo (or other data). */
export interface DemoSeeding {
  seeded: SeededTransactionsDemo | undefined;
  seededPortfolio: PortfolioDemo | undefined;
}

/** Seeds each service's demo into the database if it holds none of that service's data yet. */
export async function seedDemoOnce(
  db: Database,
  files: FileStore,
  environment: Config['environment'],
  logger: Logger,
  workers?: DocumentWorkers,
): Promise<DemoSeeding> {
  let seeded: SeededTransactionsDemo | undefined;
  let seededPortfolio: PortfolioDemo | undefined;
  // Nodes started at once on an empty PostgreSQL database seed it once: one at a time, each looks first.
  await underDemoLock(db, async () => {
    const [anything] = await db.query('select 1 from organizations limit 1');
    if (!anything) {
      // The demo's signed documents are made by a document worker: its thread starts now, loading its modules on
      // the other core while the demo's first rows are written, rather than when the first document is signed.
      workers?.start();
      // The seeding modules load only for a fresh database.
      const { seedTransactionsDemo } = await import('./seed.ts');
      seeded = await seedTransactionsDemo(db, files, environment, { workers });
      logger.info({ organizationId: seeded.organizationId }, 'seeded Transactions demo data');
    }
    const [anyInstance] = await db.query('select 1 from portfolio_instances limit 1');
    if (!anyInstance) {
      const { seedPortfolioDemo } = await import('./portfolio-seed.ts');
      seededPortfolio = await seedPortfolioDemo(db);
      logger.info({ instanceId: seededPortfolio.instanceId }, 'seeded Portfolio demo data');
    }
    // Kept before the lock is released, for the nodes that wait on it and find no demo.json of their own:
    // the facts without this node's addresses, which each node fills in below.
    if (seeded) {
      await keepDemoFacts(db, {
        transactions: {
          ...withoutToken(seeded),
          url: '',
          recipientUrl: recipientLink('', seeded.waitingTransmitToken),
        },
        portfolio: {
          url: '',
          apiKey: seededPortfolio?.apiKey ?? null,
          companyId: seededPortfolio?.companyId ?? null,
          dashboard: seededPortfolio ? { url: '', ...seededPortfolio.dashboardSignIn } : null,
        },
        caCertPath: '',
      });
    }
  });
  return { seeded, seededPortfolio };
}

/**
 * The demo facts on this node's addresses, written to `<data dir>/demo.json`: from this node's seeding, else from
 * its data dir's demo.json, else (a node that did not seed, with a data dir of its own) from those the seeding
 * node kept in the database. Undefined when there is no demo.
 */
export async function demoFactsNow(
  options: DemoSeeding & {
    config: Config;
    db: Database;
    seedDemo: boolean;
    /** The service's listening addresses (banner and demo.json). */
    urls: { transactions?: string; portfolio?: string };
    /** The public addresses links go to. */
    linksTo: { transactionsUrl: string; portfolioUrl: string };
    caCertPath: string;
  },
): Promise<DemoFacts | undefined> {
  const { config, db, seedDemo, seeded, seededPortfolio, urls, linksTo, caCertPath } = options;
  const previous =
    (await readDemoFacts(config.dataDir)) ?? (seedDemo ? await readKeptDemoFacts(db) : undefined);
  // The recipient link of the demo transaction waiting for its investor, on the address links go to now.
  const waitingToken =
    seeded?.waitingTransmitToken ?? previous?.transactions.recipientUrl?.split('/r/').pop();
  const transactionsDemo = seeded ? withoutToken(seeded) : previous?.transactions;
  if (!transactionsDemo) return undefined;
  const demo: DemoFacts = {
    transactions: {
      ...transactionsDemo,
      url: urls.transactions ?? previous?.transactions.url ?? '',
      ...(waitingToken ? { recipientUrl: recipientLink(linksTo.transactionsUrl, waitingToken) } : {}),
      // On the address links go to now, as the recipient's link.
      ...(transactionsDemo.console
        ? { console: { ...transactionsDemo.console, url: `${linksTo.transactionsUrl}${CONSOLE_PATH}` } }
        : {}),
    },
    portfolio: {
      url: urls.portfolio ?? previous?.portfolio.url ?? '',
      apiKey: seededPortfolio?.apiKey ?? previous?.portfolio.apiKey ?? null,
      companyId: seededPortfolio?.companyId ?? previous?.portfolio.companyId ?? null,
      // On the address links go to now, as the console's.
      dashboard: seededPortfolio
        ? { url: `${linksTo.portfolioUrl}${DASHBOARD_PATH}`, ...seededPortfolio.dashboardSignIn }
        : previous?.portfolio.dashboard
          ? { ...previous.portfolio.dashboard, url: `${linksTo.portfolioUrl}${DASHBOARD_PATH}` }
          : null,
    },
    caCertPath,
  };
  await writeDemoFacts(config.dataDir, demo);
  return demo;
}

/**
 * The banner of this start with demo facts, the first or any later one: the facts with each demo sign-in as it
 * is now. A sign-in this start seeded works; any other (a restart, another node) is checked against the database,
 * both at once (one argon2id check each, about 50 ms), so that a password changed since is left out and the banner
 * says where to reset it instead, and a person deactivated or removed since is named as such.
 */
export async function demoBannerNow(
  options: DemoSeeding & {
    db: Database;
    config: Config;
    demo: DemoFacts;
    /** Where Prometheus scrapes this process, when it listens. */
    metricsUrl?: string | undefined;
  },
): Promise<string> {
  const { db, config, demo, seeded, seededPortfolio } = options;
  const now = (
    kind: 'organization' | 'instance',
    signIn: DemoSignIn | null | undefined,
    seededHere: boolean,
  ): Promise<DemoSignInNow> =>
    !signIn || seededHere ? Promise.resolve('works') : demoSignInNow(db, kind, signIn);
  const [consoleNow, dashboardNow] = await Promise.all([
    now('organization', demo.transactions.console, seeded !== undefined),
    now('instance', demo.portfolio.dashboard, seededPortfolio !== undefined),
  ]);
  return demoBanner(demo, demoFactsPath(config.dataDir), {
    signIns: { console: consoleNow, dashboard: dashboardNow },
    metricsUrl: options.metricsUrl,
    // Without SMTP, a reset link is written to the data dir's mail, as every other.
    mailReadWith: config.smtpUrl === undefined ? 'npx portico mail list' : undefined,
  });
}
