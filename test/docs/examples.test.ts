import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { DemoFacts } from '../../src/demo/demo-facts.ts';
import { seedPortfolioDemo } from '../../src/demo/portfolio-seed.ts';
import { seedTransactionsDemo } from '../../src/demo/seed.ts';
import { buildPortfolioApp } from '../../src/portfolio/app.ts';
import { buildTransactionsApp } from '../../src/transactions/app.ts';
import { ROOT } from '../support/cli.ts';
import { testDatabaseAndFiles } from '../support/data/transactions.ts';
import { madeBeforeAll } from '../support/made-before-all.ts';
import { listenHttps, testTls } from '../support/peers/tls-listener.ts';
import { Webhook } from 'standardwebhooks';
import {
  codeBlocksOf,
  examplesOf,
  guideFiles,
  isTypeScript,
  shapeOf,
  type DocExample,
} from './doc-examples.ts';
import { bundleExample, runNode, withReceiver, type ExampleRun } from './typescript-examples.ts';

const run = promisify(execFile);

// The guides' shell examples, run as a reader runs them after `npm start`: in a directory with the demo's
// `.portico/demo.json` and `.portico/tls/localhost-cert.pem`, with the variables the guides set up (CA, BASE,
// KEY, COMPANY, TOKEN), and curl sending `localhost:4000` and `localhost:4001` (the demo's ports) to the
// services this file starts on free ports. The TypeScript examples run as an integrator's program using
// `@portico/client`, with Node.js trusting the demo's certificate (NODE_EXTRA_CA_CERTS), the variables the
// guides name (PORTICO_API_KEY, PORTICO_PORTFOLIO_KEY, PORTICO_WEBHOOK_SECRET), and the demo's ports sent to the
// services as curl's are (demo-ports.mjs).
const blocks = guideFiles(ROOT).flatMap((file) => codeBlocksOf(ROOT, file));
const examples = examplesOf(blocks);

/**
 * How long an example may take: the incremental sync walks all 40 companies (about 80 requests and 300 processes,
 * 8 s alone), which takes several times as long beside the rest of the suite on two cores.
 */
const EXAMPLE_TIMEOUT_MS = 150_000;

/** The demo's ports, which the guides name. */
const DEMO_PORTS = { transactions: 4000, portfolio: 4001 };

const demo = madeBeforeAll('the demo instance', async (closeAfterAll) => {
  const { db, files } = await testDatabaseAndFiles(closeAfterAll);
  const tls = await testTls();
  const transactions = await seedTransactionsDemo(db, files, 'staging');
  const portfolio = await seedPortfolioDemo(db);
  const apps = {
    transactions: await buildTransactionsApp({ db, files, environment: 'staging', tls }),
    portfolio: await buildPortfolioApp({ db, tls }),
  };
  for (const app of Object.values(apps)) closeAfterAll(() => app.close());
  const ports = {
    transactions: (await listenHttps(apps.transactions)).port,
    portfolio: (await listenHttps(apps.portfolio)).port,
  };
  const home = await mkdtemp(join(tmpdir(), 'portico-examples-'));
  closeAfterAll(() => rm(home, { recursive: true, force: true }));
  const caCertPath = join(home, '.portico/tls/localhost-cert.pem');
  await mkdir(join(home, '.portico/tls'), { recursive: true });
  await writeFile(caCertPath, tls.cert);
  const transactionsUrl = `https://localhost:${DEMO_PORTS.transactions}`;
  const portfolioUrl = `https://localhost:${DEMO_PORTS.portfolio}/v1/external`;
  const facts: DemoFacts = {
    transactions: {
      apiKey: transactions.apiKey,
      organizationId: transactions.organizationId,
      templateId: transactions.templateId,
      senderEntityId: transactions.senderEntityId,
      transactionId: transactions.transactionId,
      url: transactionsUrl,
      recipientUrl: `${transactionsUrl}/r/${transactions.waitingTransmitToken}`,
      console: null,
    },
    portfolio: {
      url: portfolioUrl,
      apiKey: portfolio.apiKey,
      companyId: portfolio.companyId,
      dashboard: null,
    },
    caCertPath,
  };
  await writeFile(join(home, '.portico/demo.json'), JSON.stringify(facts, null, 2));
  // The upload example's file.
  await writeFile(join(home, 'W-9.pdf'), '%PDF-1.4\n%%EOF\n');
  const connectTo = (service: keyof typeof DEMO_PORTS) =>
    `connect-to = "localhost:${DEMO_PORTS[service]}:127.0.0.1:${ports[service]}"`;
  const curlrc = (failOnHttpError: boolean) =>
    [
      connectTo('transactions'),
      connectTo('portfolio'),
      'max-time = 20',
      ...(failOnHttpError ? ['fail-with-body'] : []),
    ]
      .join('\n')
      .concat('\n');
  // curl reads `$CURL_HOME/.curlrc`: one that fails on an HTTP error, one that shows it.
  for (const [dir, fail] of [
    ['curl-fails', true],
    ['curl-shows', false],
  ] as const) {
    await mkdir(join(home, dir));
    await writeFile(join(home, dir, '.curlrc'), curlrc(fail));
  }
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    CA: caCertPath,
    BASE: portfolioUrl,
    KEY: portfolio.apiKey,
    COMPANY: portfolio.companyId,
    TOKEN: transactions.waitingTransmitToken,
  };
  const nodeEnv = {
    PATH: env.PATH,
    HOME: home,
    NODE_EXTRA_CA_CERTS: caCertPath,
    PORTICO_API_KEY: transactions.apiKey,
    PORTICO_PORTFOLIO_KEY: portfolio.apiKey,
    PORTICO_EXAMPLE_PORTS: JSON.stringify({
      [DEMO_PORTS.transactions]: ports.transactions,
      [DEMO_PORTS.portfolio]: ports.portfolio,
    }),
    PORTICO_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
  return { home, env, nodeEnv, transactionId: transactions.transactionId };
});

/** The signing secret the receiver examples are given: what `createWebhookEndpoint` answers once. */
const WEBHOOK_SECRET = `whsec_${Buffer.from('portico-example-receiver-secret!').toString('base64')}`;

/** The example `example` needs (`needs=<name>`), if any. */
function neededBy(example: DocExample): DocExample | undefined {
  const needed = example.needs
    ? examples.find((each) => each.file === example.file && each.name === example.needs)
    : undefined;
  if (example.needs && !needed) throw new Error(`${example.file} has no example=${example.needs}`);
  return needed;
}

/** Runs a TypeScript example (after the example it needs) with Node.js: its exit code and output. */
async function runTypeScriptExample(example: DocExample): Promise<ExampleRun> {
  const file = await bundleExample(example, CLIENT_SOURCE, demo.home, neededBy(example));
  return runNode(file, demo.nodeEnv, demo.home, EXAMPLE_TIMEOUT_MS - 10_000);
}

/** The client's source: the examples import it as `@portico/client`. */
const CLIENT_SOURCE = join(ROOT, 'clients/typescript/src/index.ts');

/** A message as Portico sends it, signed with `secret` now. */
function signedMessage(
  secret: string,
  transactionId: string,
): { body: string; headers: Record<string, string> } {
  const id = `msg_${crypto.randomUUID().replaceAll('-', '')}`;
  const now = new Date();
  const body = JSON.stringify({
    id,
    type: 'transaction.completed',
    timestamp: now.toISOString(),
    data: {
      transactionId,
      organizationId: crypto.randomUUID(),
      state: 'countersigning',
      completedAt: now.toISOString(),
    },
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, now, body),
    },
  };
}

/** Runs `example` (after the example it needs) in a fresh `bash -euo pipefail`: its exit code and output. */
async function runExample(example: DocExample): Promise<{ code: number; stdout: string; stderr: string }> {
  const needed = neededBy(example);
  const script = [needed?.code, example.code].filter(Boolean).join('\n');
  const curlHome = join(demo.home, example.httpErrors ? 'curl-shows' : 'curl-fails');
  try {
    const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: demo.home,
      env: { ...demo.env, CURL_HOME: curlHome },
      timeout: EXAMPLE_TIMEOUT_MS - 10_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('the marking of examples', () => {
  it('reads a block’s words, its answer and a reason not to run it, and counts only `example` blocks', async () => {
    const root = await mkdtemp(join(tmpdir(), 'portico-marking-'));
    try {
      await writeFile(
        join(root, 'guide.md'),
        [
          '# Guide',
          '## Walk',
          '```sh example=walk',
          'walk() { curl "$BASE/companies"; }',
          '```',
          '## Sync',
          '```sh example needs=walk http-errors',
          'walk',
          '```',
          '',
          'The answer:',
          '',
          '```json',
          '{ "data": [] }',
          '```',
          '## Production',
          '<!-- no-run: needs a live key -->',
          '```sh',
          'curl https://portico.example.com/beta',
          '```',
          '```bash',
          'curl https://portico.example.com/beta',
          '```',
          '```ts example receiver',
          'await fetch(url);',
          '```',
        ].join('\n'),
      );
      const found = codeBlocksOf(root, 'guide.md');
      expect(
        found.map(({ heading, line, words, noRun, answer }) => ({ heading, line, words, noRun, answer })),
      ).toEqual([
        { heading: 'Walk', line: 3, words: ['example=walk'], noRun: undefined, answer: undefined },
        {
          heading: 'Sync',
          line: 7,
          words: ['example', 'needs=walk', 'http-errors'],
          noRun: undefined,
          answer: '{ "data": [] }',
        },
        { heading: 'Production', line: 18, words: [], noRun: 'needs a live key', answer: undefined },
        { heading: 'Production', line: 21, words: [], noRun: undefined, answer: undefined },
        {
          heading: 'Production',
          line: 24,
          words: ['example', 'receiver'],
          noRun: undefined,
          answer: undefined,
        },
      ]);
      expect(found.map(isTypeScript)).toEqual([false, false, false, false, true]);
      expect(
        examplesOf(found).map(({ name, needs, httpErrors, receiver }) => ({
          name,
          needs,
          httpErrors,
          receiver,
        })),
      ).toEqual([
        { name: 'walk', needs: undefined, httpErrors: false, receiver: false },
        { name: undefined, needs: 'walk', httpErrors: true, receiver: false },
        { name: undefined, needs: undefined, httpErrors: false, receiver: true },
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('the guides’ examples', () => {
  it('are found in the guides, so that removing the markers does not pass silently', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect([...new Set(examples.map((example) => example.file))]).toEqual(
      expect.arrayContaining(['README.md', 'docs/portfolio.md', 'docs/transactions.md']),
    );
  });

  it('leave no block calling an API unmarked (curl, or the client): each runs, or says why it cannot', () => {
    const unmarked = blocks.filter(
      (block) =>
        /\bcurl\b|from '@portico\/client'/.test(block.code) && !examplesOf([block]).length && !block.noRun,
    );
    expect(unmarked.map((block) => `${block.file}:${block.line}`)).toEqual([]);
  });

  it('include TypeScript with the client and a webhook receiver', () => {
    const typescript = examples.filter(isTypeScript);
    expect(typescript.filter((example) => example.receiver).length).toBeGreaterThanOrEqual(1);
    expect(typescript.filter((example) => !example.receiver).length).toBeGreaterThanOrEqual(3);
  });

  for (const example of examples.filter(isTypeScript)) {
    it(
      `${example.file}, “${example.heading}”: runs with the client against a real instance (line ${example.line})`,
      async () => {
        if (!example.receiver) {
          const { code, stdout, stderr } = await runTypeScriptExample(example);
          expect(code, `exit code ${code}\n${stderr}\n${stdout}`).toBe(0);
          expect(stdout.trim()).not.toBe('');
          return;
        }
        // A receiver: a message signed as Portico signs it is accepted, once more as a duplicate, and the same
        // message with one byte changed is refused.
        const file = await bundleExample(example, CLIENT_SOURCE, demo.home, neededBy(example));
        const message = signedMessage(WEBHOOK_SECRET, demo.transactionId);
        const { result, stderr } = await withReceiver(file, demo.nodeEnv, demo.home, async (port) => {
          const post = (body: string) =>
            fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: message.headers, body }).then(
              (response) => response.status,
            );
          const tampered = message.body.replace('countersigning', 'countersignin9');
          return [await post(message.body), await post(message.body), await post(tampered)];
        });
        expect(result, stderr).toEqual([204, 204, 400]);
      },
      EXAMPLE_TIMEOUT_MS,
    );
  }

  for (const example of examples.filter((each) => !isTypeScript(each))) {
    const sameHeading = examples.filter(
      (each) => each.file === example.file && each.heading === example.heading,
    );
    const which =
      sameHeading.length > 1 ? ` (${sameHeading.indexOf(example) + 1} of ${sameHeading.length})` : '';
    it(
      `${example.file}, “${example.heading}”${which}: runs against a real instance (line ${example.line})`,
      async () => {
        const { code, stdout, stderr } = await runExample(example);
        expect(code, `exit code ${code}\n${stderr}\n${stdout}`).toBe(0);
        expect(stdout.trim()).not.toBe('');
        if (example.httpErrors) {
          // Each refusal the example shows in its comments is answered.
          const codes = [...example.code.matchAll(/"code":"(\w+)"/g)].map((match) => match[1]);
          expect(codes.length).toBeGreaterThan(0);
          for (const errorCode of codes) expect(stdout).toContain(`"code":"${errorCode}"`);
        } else {
          // A GraphQL answer with errors comes with 200: it fails the example too.
          expect(stdout).not.toMatch(/"errors"\s*:/);
        }
        if (example.answer !== undefined) {
          // The answer the guide shows (with `[ … ]` for a list left out) has the shape of the one given.
          const shown = JSON.parse(example.answer.replace(/\[\s*…\s*\]/g, '[]')) as unknown;
          expect(shapeOf(JSON.parse(stdout))).toEqual(shapeOf(shown));
        }
      },
      EXAMPLE_TIMEOUT_MS,
    );
  }
});
