import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Queryable } from '../db/database.ts';
import type { DemoSignIn, DemoSignInNow } from './demo-sign-in.ts';
import type { TransactionsDemo } from './seed.ts';

/** `<data dir>/demo.json`, also printed by `portico demo --json`. */
export interface DemoFacts {
  /**
   * The demo organization's ids and key, the Transactions GraphQL endpoint, and the recipient link of the
   * transaction waiting for its investor (`<Transactions origin>/r/<token>`; absent in a demo.json of an older
   * Portico).
   */
  transactions: TransactionsDemo & { url: string; recipientUrl?: string };
  /**
   * The Portfolio API's base address, and the demo instance's key and a company of it: null when Portfolio
   * was not seeded with the demo (it had a customer instance already).
   */
  portfolio: {
    url: string;
    apiKey: string | null;
    companyId: string | null;
    /** The customer dashboard, and the demo admin's sign-in (absent in a demo.json of an older Portico). */
    dashboard?: { url: string; email: string; password: string } | null;
  };
  /** The certificate clients should trust (`curl --cacert`). */
  caCertPath: string;
}

/** Where the demo facts of a data dir are kept: `<data dir>/demo.json`. */
export function demoFactsPath(dataDir: string): string {
  return join(dataDir, 'demo.json');
}

/**
 * The demo facts of a data dir, or undefined when it has no `demo.json` (no demo was seeded there). Other
 * read errors and invalid JSON throw; the content is not checked against {@link DemoFacts}.
 */
export async function readDemoFacts(dataDir: string): Promise<DemoFacts | undefined> {
  try {
    return JSON.parse(await readFile(demoFactsPath(dataDir), 'utf8')) as DemoFacts;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes `demo.json`, created readable by its owner only (mode 0600): it holds the demo API keys. */
export async function writeDemoFacts(dataDir: string, facts: DemoFacts): Promise<void> {
  // On PostgreSQL with a certificate of its own, nothing else may have made the data dir.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // It holds a demo key: readable by its owner only.
  await writeFile(demoFactsPath(dataDir), `${JSON.stringify(facts, null, 2)}\n`, { mode: 0o600 });
}

/** The name of the demo facts in `instance_secrets`. */
const KEPT_DEMO_FACTS = 'demo_facts';

/**
 * Keeps the demo facts of a seeding in the database, beside the deployment's other secrets (`instance_secrets`),
 * so that a node that finds the database seeded but no `demo.json` in its data dir (another node, a restart on
 * a fresh disk) can still name the demo's keys and sign-ins: they exist only as hashes elsewhere. Whoever
 * reads this row could act as the demo's people, as whoever reads `instance_secrets` could forge file links.
 */
export async function keepDemoFacts(db: Queryable, facts: DemoFacts): Promise<void> {
  await db.query(
    `insert into instance_secrets (name, value) values ($1, $2)
     on conflict (name) do update set value = excluded.value`,
    [KEPT_DEMO_FACTS, Buffer.from(JSON.stringify(facts), 'utf8')],
  );
}

/** The demo facts {@link keepDemoFacts} kept, or undefined when no seeding kept any. */
export async function readKeptDemoFacts(db: Queryable): Promise<DemoFacts | undefined> {
  const [row] = await db.query<{ value: Uint8Array }>('select value from instance_secrets where name = $1', [
    KEPT_DEMO_FACTS,
  ]);
  return row && (JSON.parse(Buffer.from(row.value).toString('utf8')) as DemoFacts);
}

/**
 * Runs `work` (look whether the database is empty, seed it) while holding the demo seeding's advisory lock, so
 * that nodes started at once on one empty PostgreSQL database seed it once: the second looks after the first has
 * committed. The embedded database has one process by construction.
 */
export async function underDemoLock(db: Database, work: () => Promise<void>): Promise<void> {
  if (db.kind === 'pglite') {
    await work();
    return;
  }
  // A transaction-scoped lock on one pooled connection, released by its commit; the seeding uses others.
  await db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock(hashtext('portico:demo-seeding'))");
    await work();
  });
}

/** What the banner says beside the facts: what each demo sign-in is now, and what else this process serves. */
export interface DemoBannerNow {
  /**
   * What each demo sign-in is now: `works` only for one this start seeded, else as `demoSignInNow` found it in
   * the database, so that the banner never prints a password that no longer works.
   */
  signIns: { console: DemoSignInNow; dashboard: DemoSignInNow };
  /** Where Prometheus scrapes this process (`PORTICO_METRICS_PORT`), when it listens. */
  metricsUrl?: string | undefined;
  /**
   * How to read a password reset's mail when it is written to the data dir rather than sent (no
   * `PORTICO_SMTP_URL`), e.g. `npx portico mail list`.
   */
  mailReadWith?: string | undefined;
}

/** Where each page that people sign in to asks for a reset link ("Forgot your password?"), under its address. */
const FORGOT_PASSWORD_PATH = '/forgot-password';

/** A line of the banner under a service: `label` in a column of its own, then `value`. */
const item = (label: string, value: string) => `    ${label.padEnd(22)}${value}`;

/**
 * The lines of a page people sign in to: its address, then the demo person's sign-in while it works. A password
 * changed since is never printed (nor known): the lines say where to reset it instead. A person who can no longer
 * sign in is named with why.
 */
function pageLines(
  name: string,
  page: ({ url: string } & DemoSignIn) | null | undefined,
  now: DemoSignInNow,
  mailReadWith: string | undefined,
): string[] {
  if (!page) return [];
  const address = item(name, page.url);
  switch (now) {
    case 'works':
      return [address, item('sign in as', page.email), item('with the password', page.password)];
    case 'changed':
      return [
        address,
        item('sign in as', page.email),
        item('password changed', `reset it at ${page.url}${FORGOT_PASSWORD_PATH}`),
        ...(mailReadWith ? [item('', `(its link is written to the data dir: ${mailReadWith})`)] : []),
      ];
    case 'deactivated':
      return [address, item('no demo sign-in', `${page.email} has been deactivated`)];
    case 'removed':
      return [address, item('no demo sign-in', `${page.email} has been removed`)];
    case 'invited':
      return [address, item('no demo sign-in', `${page.email} was invited again and has no password yet`)];
  }
}

/**
 * The banner `portico serve` prints at every start with demo facts: where the services and their pages are, the
 * demo keys and sign-ins (those that still work, see {@link DemoBannerNow}), and a request that works.
 */
export function demoBanner(facts: DemoFacts, factsPath: string, now: DemoBannerNow): string {
  const query = JSON.stringify({
    query:
      'query ($id: uuid!) { transaction(id: $id) { id state transactionRecipients { vulcanKey entity { name } } } }',
    variables: { id: facts.transactions.transactionId },
  });
  const { signIns, metricsUrl, mailReadWith } = now;
  return [
    '',
    'Portico is running with demo data.',
    '',
    `  Transactions (GraphQL)  ${facts.transactions.url}`,
    item('demo API key', facts.transactions.apiKey),
    item('GraphiQL', facts.transactions.url.replace(/\/beta$/, '/graphiql')),
    ...(facts.transactions.recipientUrl ? [item('Recipient portal', facts.transactions.recipientUrl)] : []),
    ...pageLines('Console', facts.transactions.console, signIns.console, mailReadWith),
    `  Portfolio (REST)        ${facts.portfolio.url}`,
    ...(facts.portfolio.apiKey ? [item('demo API key', facts.portfolio.apiKey)] : []),
    item('OpenAPI document', `${facts.portfolio.url}/openapi.json`),
    ...pageLines('Dashboard', facts.portfolio.dashboard, signIns.dashboard, mailReadWith),
    `  CA certificate          ${facts.caCertPath}`,
    ...(metricsUrl ? [`  Metrics                 ${metricsUrl}`] : []),
    `  These facts, as JSON    ${factsPath} (or: npx portico demo --json)`,
    '',
    'Try it:',
    '',
    `  curl --cacert ${facts.caCertPath} ${facts.transactions.url} \\`,
    `    -H 'Authorization: Bearer ${facts.transactions.apiKey}' -H 'Content-Type: application/json' \\`,
    `    -d '${query}'`,
    ...(facts.portfolio.apiKey
      ? [
          '',
          `  curl --cacert ${facts.caCertPath} '${facts.portfolio.url}/companies?limit=5' \\`,
          `    -H 'Authorization: ${facts.portfolio.apiKey}'`,
        ]
      : []),
    '',
  ].join('\n');
}
