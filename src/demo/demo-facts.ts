import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TransactionsDemo } from './seed.ts';

/** `<data dir>/demo.json`, also printed by `portico demo --json`. */
export interface DemoFacts {
  transactions: TransactionsDemo & { url: string };
  portfolio: { url: string; apiKey: string | null; companyId: string | null };
  caCertPath: string;
}

export function demoFactsPath(dataDir: string): string {
  return join(dataDir, 'demo.json');
}

export async function readDemoFacts(dataDir: string): Promise<DemoFacts | undefined> {
  try {
    return JSON.parse(await readFile(demoFactsPath(dataDir), 'utf8')) as DemoFacts;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function writeDemoFacts(dataDir: string, facts: DemoFacts): Promise<void> {
  // It holds a demo key: readable by its owner only.
  await writeFile(demoFactsPath(dataDir), `${JSON.stringify(facts, null, 2)}\n`, { mode: 0o600 });
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
    `  Portfolio (REST)        ${facts.portfolio.url}`,
    ...(facts.portfolio.apiKey ? [`    demo API key          ${facts.portfolio.apiKey}`] : []),
    `    OpenAPI document      ${facts.portfolio.url}/openapi.json`,
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
