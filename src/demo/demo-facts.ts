import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database, Queryable } from '../db/database.ts';
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

/** The banner `portico serve` prints: where the services are, the demo key, and a request that works. */
export function demoBanner(facts: DemoFacts, factsPath: string): string {
  const query = JSON.stringify({
    query:
      'query ($id: uuid!) { transaction(id: $id) { id state transactionRecipients { vulcanKey entity { name } } } }',
    variables: { id: facts.transactions.transactionId },
  });
  return [
    '',
    'Portico is running with demo data.',
    '',
    `  Transactions (GraphQL)  ${facts.transactions.url}`,
    `    demo API key          ${facts.transactions.apiKey}`,
    `    GraphiQL              ${facts.transactions.url.replace(/\/beta$/, '/graphiql')}`,
    ...(facts.transactions.recipientUrl
      ? [`    Recipient portal      ${facts.transactions.recipientUrl}`]
      : []),
    ...(facts.transactions.console
      ? [
          `    Console               ${facts.transactions.console.url}`,
          `    sign in as            ${facts.transactions.console.email}`,
          `    with the password     ${facts.transactions.console.password}`,
        ]
      : []),
    `  Portfolio (REST)        ${facts.portfolio.url}`,
    ...(facts.portfolio.apiKey ? [`    demo API key          ${facts.portfolio.apiKey}`] : []),
    `    OpenAPI document      ${facts.portfolio.url}/openapi.json`,
    ...(facts.portfolio.dashboard
      ? [
          `    Dashboard             ${facts.portfolio.dashboard.url}`,
          `    sign in as            ${facts.portfolio.dashboard.email}`,
          `    with the password     ${facts.portfolio.dashboard.password}`,
        ]
      : []),
    `  CA certificate          ${facts.caCertPath}`,
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
