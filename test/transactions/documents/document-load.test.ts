import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDocument } from '../../../src/transactions/documents/signed-document.ts';
import { importTemplateSource } from '../../../src/transactions/templates/templates.ts';
import { fundAgreementPdf, withAgreement } from '../../support/data/fund-pdf.ts';
import { CREATE_TRANSACTION, graphql, transactionInput } from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';

/**
 * Reading and filling a large fund PDF takes seconds of CPU; done in a document worker, it must not hold the
 * event loop: its delay stays under 100 ms, and `/healthz` answers all along. Timed, so this file runs alone
 * (vitest.config.ts). The delay is what a client's `/healthz` waits for: one sent in-process (`inject`) only
 * starts once the loop is free again, so its own time says nothing of a stall.
 */
const MAX_LOOP_DELAY_MS = 100;

const suite = useTransactionsSuite();
let tenant: EmptyTenant;
let source: string;
/** The fund's PDF with an array of 150,000 numbers, 1 MB: about half a second of pdf-lib's work to parse. */
let largePdf: Uint8Array;

beforeAll(async () => {
  tenant = await suite.emptyTenant();
  source = withAgreement(
    await readFile(new URL('../../../templates/examples/subscription.yaml', import.meta.url), 'utf8'),
  );
  const { PDFDocument } = await import('pdf-lib');
  const document = await PDFDocument.load(await fundAgreementPdf());
  // One long array: pdf-lib parses an object in one go (it yields to the event loop between objects only), while
  // the bytes the database stores stay few (PGlite runs on the main thread; a bytea of megabytes holds it too).
  document.context.register(document.context.obj(Array.from({ length: 150_000 }, (_, index) => index)));
  largePdf = await document.save({ useObjectStreams: false });
  // What runs once per process is paid before anything is timed: compiling the template checks and the routes,
  // starting the process's document workers.
  await suite.app.inject({ url: '/healthz' });
  await importFund(await fundAgreementPdf());
});

function importFund(pdf: Uint8Array) {
  return importTemplateSource(suite.db, {
    organizationId: tenant.organizationId,
    source,
    filename: 'fund.yaml',
    files: new Map([['fund-agreement.pdf', pdf]]),
  });
}

/** Up to three tries of `timed`, until one keeps the loop's delay under the limit: the best of them. */
async function leastDelay<Timed extends { delayMs: number }>(timed: () => Promise<Timed>): Promise<Timed> {
  const tries: Timed[] = [];
  while (tries.length < 3 && !tries.some((tried) => tried.delayMs < MAX_LOOP_DELAY_MS))
    tries.push(await timed());
  return tries.reduce((best, tried) => (tried.delayMs < best.delayMs ? tried : best));
}

/** Runs `work` while `/healthz` is asked every 20 ms; how long each answer took, and the loop's longest delay. */
async function probedWhile<T>(
  work: () => Promise<T>,
): Promise<{ result: T; healthzMs: number[]; delayMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const healthzMs: number[] = [];
  const probe = { done: false };
  const probing = (async () => {
    while (!probe.done) {
      const start = performance.now();
      const answer = await suite.app.inject({ url: '/healthz' });
      expect(answer.statusCode).toBe(200);
      healthzMs.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  loop.enable();
  try {
    const result = await work();
    return { result, healthzMs, delayMs: loop.max / 1e6 };
  } finally {
    loop.disable();
    probe.done = true;
    await probing;
  }
}

describe('a large fund PDF, read and filled in a document worker', () => {
  let templateId: string;

  it('is read at import with the event loop free (delay under 100 ms), /healthz answering', async () => {
    // Timed up to three times: on a machine busy with other work, one try can wait for a core.
    const { result, healthzMs, delayMs } = await leastDelay(() => probedWhile(() => importFund(largePdf)));
    templateId = result.id;
    expect(healthzMs.length).toBeGreaterThan(0);
    expect(delayMs, `healthz answered in ${Math.max(...healthzMs).toFixed(0)} ms at most`).toBeLessThan(
      MAX_LOOP_DELAY_MS,
    );
  });

  it('is filled for a preview with the event loop free (delay under 100 ms), /healthz answering', async () => {
    const created = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput({ ...tenant, templateId }, { inputData: {} }),
    });
    const { transmitToken } = created.body.data?.createTransaction as { transmitToken: string };
    const url = `/recipient/${transmitToken}/documents/subscription_agreement/preview`;
    const { result, healthzMs, delayMs } = await leastDelay(() =>
      probedWhile(() => suite.app.inject({ url })),
    );
    expect(result.statusCode).toBe(200);
    expect(healthzMs.length).toBeGreaterThan(0);
    expect(delayMs, `healthz answered in ${Math.max(...healthzMs).toFixed(0)} ms at most`).toBeLessThan(
      MAX_LOOP_DELAY_MS,
    );
  });
});

describe('a document of long answers, laid out in a document worker', () => {
  it('is made with the event loop free (delay under 100 ms), /healthz answering', async () => {
    // Half a megabyte of words: laying them out on pages is a second of CPU, on the event loop before.
    const job = {
      organizationId: 'organization',
      transactionId: 'transaction',
      name: 'Subscription agreement',
      preview: true,
      signedBy: ['investor'],
      signatures: [],
      sections: [
        { title: 'Investor details', fields: [{ label: 'Address', value: 'Navy Way '.repeat(60_000) }] },
      ],
    };
    const { result, healthzMs, delayMs } = await leastDelay(() => probedWhile(() => makeDocument(job)));
    expect(result.byteLength).toBeGreaterThan(0);
    expect(delayMs, `healthz answered in ${Math.max(...healthzMs).toFixed(0)} ms at most`).toBeLessThan(
      MAX_LOOP_DELAY_MS,
    );
  });
});
