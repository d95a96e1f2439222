/**
 * The seal suite (issue 41): what sealing adds to a signed document. The example template's subscription agreement,
 * signed by its two parties with its answers as an appendix, is made BENCH_SEAL_DOCUMENTS times (40 by default)
 * by a document worker of its own, unsealed (the floor) and sealed with a self-signed EC P-256 seal (PAdES
 * baseline B, evidence/pades.ts), in turns; the median of each and their difference, beside the target "under
 * 100 ms added per document". See bench/README.md, "The seal suite".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadExampleTemplate } from '../src/demo/seed.ts';
import type { RenderJob } from '../src/transactions/documents/document-pdf.ts';
import { createDocumentWorkers } from '../src/transactions/documents/document-workers.ts';
import { loadSealCredential } from '../src/transactions/evidence/seal-credential.ts';
import { median, printMarkdownTable, targetResult, type TargetResult } from './table.ts';

/** The target: sealing adds less than this to a document. */
const TARGET_MS = 100;

export interface SealReport {
  documents: number;
  unsealedMs: number;
  sealedMs: number;
  bytesUnsealed: number;
  bytesSealed: number;
  targets: TargetResult[];
}

/** The example's agreement as its signed copy is made: both signatures, a page of answers. */
async function signedAgreement(): Promise<RenderJob> {
  const definition = await loadExampleTemplate();
  const document = definition.processes.flatMap((process) => process.documents ?? [])[0];
  const text = document?.agreement?.text;
  if (document === undefined || text === undefined)
    throw new Error('the example template has no agreement text');
  return {
    organizationId: '00000000-0000-4000-8000-000000000040',
    transactionId: '00000000-0000-4000-8000-000000000041',
    name: document.title ?? document.key,
    preview: false,
    signedBy: document.signedBy,
    signatures: [
      { role: 'investor', signedName: 'Jane Q. Doe', signedAt: new Date() },
      {
        role: 'countersigner',
        signedName: 'Alex Morgan for Demo Capital Fund I, L.P.',
        signedAt: new Date(),
      },
    ],
    sections: Array.from({ length: 8 }, (_, index) => ({
      title: `Section ${String(index + 1)}`,
      fields: Array.from({ length: 6 }, (__, field) => ({
        label: `Answer ${String(field + 1)}`,
        value: 'A typical answer of a few words',
      })),
    })),
    agreement: { text, filled: new Map() },
  };
}

/** The suite: see the file's comment. */
export async function benchSeal(documents: number): Promise<SealReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-bench-seal-'));
  const unsealed = createDocumentWorkers({ threads: 1 });
  const sealed = createDocumentWorkers({ threads: 1, seal: await loadSealCredential({ dataDir }) });
  try {
    const job = await signedAgreement();
    // A thread's first document loads its modules: not measured.
    const [plain, seal] = [await unsealed.render(job), await sealed.render(job)];
    const times = { unsealed: [] as number[], sealed: [] as number[] };
    for (let made = 0; made < documents; made += 1) {
      for (const [pool, into] of [
        [unsealed, times.unsealed],
        [sealed, times.sealed],
      ] as const) {
        const started = performance.now();
        await pool.render(job);
        into.push(performance.now() - started);
      }
    }
    const unsealedMs = median(times.unsealed);
    const sealedMs = median(times.sealed);
    const added = Math.max(sealedMs - unsealedMs, 0.001);
    console.log(`\nseal: ${String(documents)} documents each way, one worker thread each`);
    return {
      documents,
      unsealedMs,
      sealedMs,
      bytesUnsealed: plain.byteLength,
      bytesSealed: seal.byteLength,
      targets: [
        targetResult(
          `sealing adds under ${String(TARGET_MS)} ms to a signed document`,
          `${added.toFixed(1)} ms (${sealedMs.toFixed(1)} ms sealed, ${unsealedMs.toFixed(1)} ms unsealed)`,
          TARGET_MS / added,
        ),
      ],
    };
  } finally {
    await Promise.all([unsealed.close(), sealed.close()]);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The suite's table: each way's median and size, and what sealing adds. */
export function printSealReport(report: SealReport): TargetResult[] {
  printMarkdownTable(
    ['document', 'made', 'median', 'size', 'added by the seal'],
    [
      [
        'unsealed (floor)',
        String(report.documents),
        `${report.unsealedMs.toFixed(1)} ms`,
        `${String(report.bytesUnsealed)} B`,
        '',
      ],
      [
        'sealed',
        String(report.documents),
        `${report.sealedMs.toFixed(1)} ms`,
        `${String(report.bytesSealed)} B`,
        `${(report.sealedMs - report.unsealedMs).toFixed(1)} ms`,
      ],
    ],
  );
  return report.targets;
}
