import { Piscina } from 'piscina';
import { inspectPdf, type PdfInspection } from './agreement-pdf.ts';
import { makeDocumentPdf, type RenderJob } from './document-pdf.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { preflight, type Preflight } from '../console/closings/preflight.ts';
import { readTable } from '../console/closings/table-file.ts';
import type { TemplateDefinition } from '../templates/schema.ts';
import { checkTemplate, type TemplateCheck } from '../templates/validation.ts';

export type { RenderJob } from './document-pdf.ts';

/** What a document worker is asked to do (document-workers.ts). */
export type DocumentTask =
  | { kind: 'render'; job: RenderJob }
  | { kind: 'inspect'; bytes: Uint8Array }
  | { kind: 'preflight'; definition: TemplateDefinition; bytes: Uint8Array }
  | { kind: 'checkTemplate'; source: string };

/**
 * A closing's list read and checked, or the refusal of its file as it crosses back to the main thread (an
 * AppError arrives there as a plain Error).
 */
export type PreflightOutcome =
  | { ok: true; preflight: Preflight }
  | { ok: false; code: ErrorCode; message: string; details: Record<string, unknown> | undefined };

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
 * Runs one task in a document worker: a PDF made (moved back to the main thread, not copied), a fund's PDF read,
 * a closing's list of investors read and checked, or a template file read and checked.
 */
export async function runDocumentTask(
  task: DocumentTask,
): Promise<Uint8Array | PdfInspection | PreflightOutcome | TemplateCheck> {
  if (task.kind === 'checkTemplate') return checkTemplate(task.source);
  if (task.kind === 'inspect') return inspectPdf(task.bytes);
  if (task.kind === 'preflight') return preflightTask(task.definition, task.bytes);
  const pdf = await makeDocumentPdf(task.job);
  return Piscina.move(pdf) as Uint8Array;
}
