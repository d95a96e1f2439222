import { Piscina } from 'piscina';
import { inspectPdf, type PdfInspection } from './agreement-pdf.ts';
import { makeDocumentPdf, type RenderJob } from './document-pdf.ts';

export type { RenderJob } from './document-pdf.ts';

/** What a document worker is asked to do (document-workers.ts). */
export type DocumentTask = { kind: 'render'; job: RenderJob } | { kind: 'inspect'; bytes: Uint8Array };

/**
 * Runs one task in a document worker. A PDF made is moved back to the main thread, not copied.
 */
export async function runDocumentTask(task: DocumentTask): Promise<Uint8Array | PdfInspection> {
  if (task.kind === 'inspect') return inspectPdf(task.bytes);
  const pdf = await makeDocumentPdf(task.job);
  return Piscina.move(pdf) as Uint8Array;
}
