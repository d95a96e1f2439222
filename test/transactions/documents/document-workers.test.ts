import { readFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDocumentWorkers,
  DOCUMENT_TIME_LIMIT_MS,
} from '../../../src/transactions/documents/document-workers.ts';
import { inflatedSize } from '../../../src/transactions/documents/pdf-inflation.ts';
import { pdfText } from '../../support/pdf-text.ts';
import { useTransactionsSuite } from '../../support/data/transactions-suite.ts';

const EXAMPLE_TEMPLATE = new URL('../../../templates/examples/subscription.yaml', import.meta.url);
const suite = useTransactionsSuite();
// A pool of the test's own, so that its time limit can be shortened without touching the process's.
const workers = createDocumentWorkers({ threads: 1 });
afterAll(() => workers.close());

describe('documents made in worker threads', () => {
  it('answers DOCUMENT_TOO_COMPLEX for a preview past its time limit, and makes the next one on a new thread', async () => {
    // A pool of its own whose thread has made nothing yet: its first document loads pdf-lib and its fonts, tens of
    // milliseconds however loaded the machine, so the 1 ms limit passes while it is being made. (A warm thread
    // makes this preview in a few milliseconds, and on a busy machine its answer could beat the late timer.)
    const cold = createDocumentWorkers({ threads: 1, timeLimitMs: 1 });
    try {
      const app = await suite.buildApp({ documentWorkers: cold });
      const story = await suite.tenant({ transactions: ['sent'] });
      const token = story.transactions[0]?.transmitToken ?? '';
      const preview = () =>
        app.inject({ url: `/recipient/${token}/documents/subscription_agreement/preview` });

      const late = await preview();
      cold.timeLimitMs = DOCUMENT_TIME_LIMIT_MS;
      expect(late.statusCode).toBe(422);
      expect(late.json()).toMatchObject({
        error: {
          code: 'DOCUMENT_TOO_COMPLEX',
          message:
            "The document could not be made within 1 ms: an answer or the fund's PDF is too large. Shorten the longest answers, or ask the organization to check its agreement.",
          details: { limit: '1 ms' },
        },
      });

      const next = await preview();
      expect(next.statusCode).toBe(200);
      expect(pdfText(next.rawPayload)).toContain('PREVIEW - NOT SIGNED');
    } finally {
      await cold.close();
    }
  });

  it('checks a template file in a worker, and refuses one whose check passes the time limit with DOCUMENT_TOO_COMPLEX', async () => {
    const example = await readFile(EXAMPLE_TEMPLATE, 'utf8');
    expect(await workers.checkTemplate(example)).toMatchObject({ ok: true });
    // Tens of thousands of keys: seconds of reading on the thread, none on the event loop.
    const huge = Array.from({ length: 20_000 }, (_, index) => `k${String(index)}: x`).join('\n');
    workers.timeLimitMs = 50;
    const late = workers.checkTemplate(huge);
    await expect(late).rejects.toMatchObject({
      code: 'DOCUMENT_TOO_COMPLEX',
      message: 'The template could not be checked within 50 ms: it is far larger than a template is.',
    });
    workers.timeLimitMs = DOCUMENT_TIME_LIMIT_MS;
    expect(await workers.checkTemplate(example)).toMatchObject({ ok: true });
  });

  it('refuses what is asked of closed workers with SERVICE_UNAVAILABLE and Retry-After', async () => {
    const closing = createDocumentWorkers({ threads: 1 });
    const app = await suite.buildApp({ documentWorkers: closing });
    const story = await suite.tenant({ transactions: ['sent'] });
    await closing.close({ graceMs: 0 });
    const answer = await app.inject({
      url: `/recipient/${story.transactions[0]?.transmitToken ?? ''}/documents/subscription_agreement/preview`,
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});

describe("what a fund PDF's streams inflate to", () => {
  const cap = 1024 * 1024;
  const pdfWith = (...streams: Buffer[]) =>
    Buffer.concat([
      Buffer.from('%PDF-1.7\n'),
      ...streams.map((data, index) =>
        Buffer.concat([
          Buffer.from(`${String(index + 1)} 0 obj\n<< /Filter /FlateDecode >>\nstream\r\n`),
          data,
          Buffer.from('\nendstream\nendobj\n'),
        ]),
      ),
      Buffer.from('%%EOF\n'),
    ]);

  it('sums every Flate stream, and stops counting just past the cap', async () => {
    const small = deflateSync(Buffer.alloc(1000, 'a'));
    expect(await inflatedSize(pdfWith(small, small), cap)).toBe(2000);
    const bomb = deflateSync(Buffer.alloc(50 * cap));
    const counted = await inflatedSize(pdfWith(small, bomb, small), cap);
    expect(counted).toBeGreaterThan(cap);
    expect(counted).toBeLessThan(2 * cap);
  });

  it('counts Flate inside Flate, a stream broken half-way up to where it breaks, and nothing for other filters', async () => {
    const nested = deflateSync(deflateSync(Buffer.alloc(10 * cap)));
    expect(await inflatedSize(pdfWith(nested), cap)).toBeGreaterThan(cap);
    const whole = deflateSync(Buffer.alloc(10 * cap));
    const broken = Buffer.concat([whole.subarray(0, whole.length / 2), Buffer.alloc(64, 0xff)]);
    expect(await inflatedSize(pdfWith(broken), cap)).toBeGreaterThan(cap);
    expect(await inflatedSize(pdfWith(Buffer.from('BT /F1 12 Tf (plain) Tj ET')), cap)).toBe(0);
  });
});
