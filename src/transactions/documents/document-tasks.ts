import { Piscina } from 'piscina';
import { inspectPdf, type PdfInspection } from './agreement-pdf.ts';
import { makeDocumentPdf } from './document-pdf.ts';
import type { DocumentTask, PreflightOutcome } from './document-workers.ts';
import { AppError } from '../../errors.ts';
import { preflight } from '../console/closings/preflight.ts';
import { readTable } from '../console/closings/table-file.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import type { TemplateCheck } from '../templates/template-check.ts';

/** Reads and checks a closing's list (console/closings): the table of its file, then each row. */
async function preflightTask(definition: TemplateDefinition, bytes: Uint8Array): Promise<PreflightOutcome> {
  try {
    return { ok: true, preflight: preflight(definition, await readTable(bytes)) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { ok: false, code: error.code, message: error.message, details: error.details };
  }
}

/**
 * Runs one task in a document worker: a PDF made (a document or a certificate of completion, moved back to the
 * main thread, not copied), a fund's PDF read, a closing's list of investors read and checked, or a template file
 * read and checked.
 */
export async function runDocumentTask(
  task: DocumentTask,
): Promise<Uint8Array | PdfInspection | PreflightOutcome | TemplateCheck> {
  if (task.kind === 'checkTemplate') {
    // Loaded on a thread's first template check: a thread that only makes PDFs starts without the checker.
    const { checkTemplate } = await import('../templates/validation.ts');
    return checkTemplate(task.source);
  }
  if (task.kind === 'inspect') return inspectPdf(task.bytes);
  if (task.kind === 'preflight') return preflightTask(task.definition, task.bytes);
  if (task.kind === 'certify') {
    // Loaded on a thread's first certificate.
    const { makeCertificatePdf } = await import('../evidence/certificate-pdf.ts');
    return Piscina.move(await makeCertificatePdf(task.facts, task.seal)) as Uint8Array;
  }
  const pdf = await makeDocumentPdf(task.job, task.seal);
  return Piscina.move(pdf) as Uint8Array;
}
