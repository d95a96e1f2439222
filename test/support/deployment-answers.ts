import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { verifyHistory } from '../../src/transactions/history/chain.ts';
import type { Database } from '../../src/db/database.ts';
import { createLocalFileStore } from '../../src/files/local-file-store.ts';
import type { FileStore } from '../../src/files/file-store.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { seedPortfolioDemo } from '../../src/demo/portfolio-seed.ts';
import { seedTransactionsDemo } from '../../src/demo/seed.ts';
import { companiesUrl, investmentsUrl, updatesUrl } from './data/portfolio.ts';

/** The demo's keys and ids, which the questions below ask with. */
export interface SeededDeployment {
  transactionsKey: string;
  transactionId: string;
  portfolioKey: string;
  companyId: string;
}

/** Seeds both services' demo data (transactions with uploads and a signed PDF, a portfolio) through the real code. */
export async function seedDeployment(db: Database, files: FileStore): Promise<SeededDeployment> {
  const transactions = await seedTransactionsDemo(db, files, 'staging');
  const portfolio = await seedPortfolioDemo(db);
  return {
    transactionsKey: transactions.apiKey,
    transactionId: transactions.transactionId,
    portfolioKey: portfolio.apiKey,
    companyId: portfolio.companyId,
  };
}

const FILE = 'id mimeType extension originalFilename overrideFilename createdAt uploadedAt signedUrl';

const VIEWER = `{ viewer { id handle name createdAt
  templates { id key name version createdAt }
  entities { id name email type createdAt }
  transactions(first: 50) { totalCount pageInfo { hasNextPage endCursor }
    nodes { id state isComplete createdAt updatedAt completedAt voidedAt noticeName noticeEmail inputData } } } }`;

const TRANSACTION = `query ($id: uuid!) { transaction(id: $id) {
  id state isComplete createdAt updatedAt completedAt inputData noticeName noticeEmail
  template { id name } senderEntity { id name }
  transactionRecipients { id vulcanKey createdAt entity { id name email } }
  transactionProcesses { id key createdAt }
  transactionProcessRevisions { id committedAt context transactionItems { id vulcanKey data completionPercentage createdAt } }
  transactionFiles { id vulcanKey createdAt file { ${FILE} } }
  transactionSignatureContainers { id documentKey state completedAt
    transactionSignatures { id state signedName signedAt createdAt } }
  transactionSignatureFiles { id createdAt file { ${FILE} } }
  events { id eventKey sourceStateKey targetStateKey actorType actorId message createdAt } } }`;

/** A signed link's expiry and signature are made fresh at each answer: the one part of an answer let differ. */
function normalised(text: string): string {
  return text.replace(/expires=\d+&signature=[\w-]+/g, 'expires=<e>&signature=<s>');
}

/**
 * What both services answer on `db` (and the local files of `dataDir`) to a fixed list of questions: the
 * Transactions API's viewer and the demo transaction whole, every Portfolio list walked page by page, and every
 * file the transaction links to, downloaded (as its type and SHA-256). Signed links are normalised; everything
 * else is compared as the bytes the APIs sent.
 */
export async function askDeployment(
  db: Database,
  dataDir: string,
  seeded: SeededDeployment,
): Promise<Record<string, string>> {
  const files = createLocalFileStore(join(dataDir, 'files'));
  const transactions = await buildTransactionsApp({ db, files, environment: 'staging' });
  const portfolio = await buildPortfolioApp({ db });
  const answers: Record<string, string> = {};
  try {
    const ask = async (name: string, query: string, variables?: Record<string, unknown>) => {
      const response = await transactions.inject({
        method: 'POST',
        url: '/beta',
        headers: { authorization: `Bearer ${seeded.transactionsKey}` },
        payload: { query, variables },
      });
      answers[name] = `${String(response.statusCode)} ${normalised(response.body)}`;
      return response.body;
    };
    await ask('viewer', VIEWER);
    const transaction = await ask('transaction', TRANSACTION, { id: seeded.transactionId });
    // Its history's hash chain, head included: a copy keeps each entry's hashes as they were.
    answers.history = JSON.stringify(await verifyHistory(db, { transactionId: seeded.transactionId }));
    for (const link of transaction.match(/\/files\/[^"]+/g) ?? []) {
      const download = await transactions.inject({ method: 'GET', url: link });
      answers[`download ${normalised(link)}`] =
        `${String(download.statusCode)} ${String(download.headers['content-type'])} ${createHash('sha256').update(download.rawPayload).digest('hex')}`;
    }
    const walk = async (name: string, first: string) => {
      let url: string | undefined = first;
      for (let page = 0; url !== undefined; page += 1) {
        const response: LightMyRequestResponse = await portfolio.inject({
          method: 'GET',
          url,
          headers: { authorization: seeded.portfolioKey },
        });
        answers[`${name} page ${String(page)}`] = `${String(response.statusCode)} ${response.body}`;
        const next: string | undefined =
          response.json<{ nextCursor?: string | null }>().nextCursor ?? undefined;
        url = next === undefined ? undefined : `${first}&cursor=${encodeURIComponent(next)}`;
      }
    };
    await walk('companies', companiesUrl({ limit: 15 }));
    await walk('updates', updatesUrl(seeded.companyId, { limit: 3 }));
    await walk('investments', investmentsUrl(seeded.companyId, { limit: 2 }));
  } finally {
    await transactions.close();
    await portfolio.close();
  }
  return answers;
}
