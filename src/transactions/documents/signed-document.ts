import type { Queryable } from '../../db/database.ts';
import { placeholdersOf } from './agreement-text.ts';
import type { DocumentSignature, RenderJob } from './document-pdf.ts';
import { documentWorkers, type DocumentWorkers } from './document-workers.ts';
import { templatePdf } from './template-pdfs.ts';
import { labelOf, readAnswers } from '../templates/answer-text.ts';
import type { DocumentDefinition, ProcessDefinition } from '../templates/schema.ts';

export type { DocumentSection, DocumentSignature } from './document-pdf.ts';

/** What a document is made from: a process's revision, its signatures so far, and whether it is a preview. */
export interface DocumentSource {
  organizationId: string;
  transactionId: string;
  process: ProcessDefinition;
  document: DocumentDefinition;
  items: { vulcanKey: string; data: unknown; consents?: Record<string, string> }[];
  signatures: DocumentSignature[];
  preview: boolean;
}

/**
 * Reads what a document shows (answers, file names, the fund's PDF) on the caller's transaction, as a plain job
 * that a document worker makes the PDF from (`makeDocument`).
 */
export async function documentJob(tx: Queryable, options: DocumentSource): Promise<RenderJob> {
  const { process, document: definition } = options;
  const answers = await readAnswers(tx, {
    organizationId: options.organizationId,
    process,
    items: options.items,
  });
  const agreement = definition.agreement;
  let made: RenderJob['agreement'];
  if (agreement?.pdf !== undefined && agreement.sha256 !== undefined) {
    const pdf = await templatePdf(tx, options.organizationId, agreement.sha256);
    if (!pdf) throw new Error(`the agreement PDF ${agreement.sha256} of ${definition.key} is missing`);
    const fields = agreement.fields ?? {};
    const given = Object.values(fields).flatMap((reference) => {
      const answer = answers.answer(reference);
      return answer === undefined ? [] : [[reference, answer] as const];
    });
    made = { pdf, fields, answers: new Map(given), places: agreement.signatures ?? {} };
  } else if (agreement?.text !== undefined) {
    const filled = placeholdersOf(agreement.text).map(({ reference: written }) => {
      const reference = written.trim();
      const answer = answers.answer(reference);
      return [
        reference,
        answer ? answer.text : `[${labelOf(process, reference)}: not answered yet]`,
      ] as const;
    });
    made = { text: agreement.text, filled: new Map(filled) };
  }
  return {
    organizationId: options.organizationId,
    transactionId: options.transactionId,
    name: definition.title ?? definition.key,
    preview: options.preview,
    signedBy: definition.signedBy,
    signatures: options.signatures,
    sections: answers.sections,
    ...(made === undefined ? {} : { agreement: made }),
  };
}

/**
 * A document's PDF made by a document worker (`workers`, the process's by default), off the event loop:
 * DOCUMENT_TOO_COMPLEX past its time limit, SERVICE_UNAVAILABLE when they are all busy. A preview is made after
 * its reads' transaction ends, so that no database connection waits for it.
 */
export function makeDocument(
  job: RenderJob,
  workers: DocumentWorkers = documentWorkers(),
): Promise<Uint8Array> {
  return workers.render(job);
}

/**
 * A document of a process as a PDF, made from a revision's items: the fund's agreement (its text, or its PDF
 * filled in) with the signatures made so far and the answers as an appendix; without an agreement, the answers
 * themselves. A preview is stamped as one on every page. Read on the caller's transaction (`documentJob`), made
 * by a document worker (`makeDocument`).
 */
export async function renderDocument(
  tx: Queryable,
  options: DocumentSource & { workers?: DocumentWorkers | undefined },
): Promise<Uint8Array> {
  return makeDocument(await documentJob(tx, options), options.workers);
}
