import type { PDFDocument } from 'pdf-lib';
import { fillAgreementPdf, type Answer } from './agreement-pdf.ts';
import { writeAgreementText } from './agreement-text.ts';
import { PdfWriter } from './pdf-writer.ts';
import type { SignaturePlacement } from '../templates/schema.ts';
import type { SealCredential } from '../evidence/seal-credential.ts';

/** One item of a document as people read it: its title and each answered field's label and value. */
export interface DocumentSection {
  title: string;
  fields: { label: string; value: string }[];
}

export interface DocumentSignature {
  role: string;
  signedName: string;
  signedAt: Date;
}

/**
 * Everything a document's PDF is made from, read from the database beforehand (signed-document.ts): plain data
 * that a document worker receives by structured clone, so that no query runs off the main thread.
 */
export interface RenderJob {
  /** The organization whose seal seals the document (evidence/seal-keeper.ts). */
  organizationId: string;
  transactionId: string;
  /** The document's title, or its key. */
  name: string;
  preview: boolean;
  /** The roles that sign, in signing order. */
  signedBy: string[];
  signatures: DocumentSignature[];
  sections: DocumentSection[];
  agreement?:
    | {
        /** The agreement's Markdown, and the words each of its placeholders is replaced by. */
        text: string;
        filled: Map<string, string>;
      }
    | {
        /** The fund's PDF (shared with the main thread's cache, never changed) and how it is filled in. */
        pdf: Uint8Array;
        fields: Record<string, string>;
        answers: Map<string, Answer>;
        places: Record<string, SignaturePlacement>;
      };
}

/** When a signature was made, as the document prints it. */
function signedWhen(at: Date): string {
  return `${at.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

/** The answers, item by item. */
function writeAnswers(writer: PdfWriter, sections: DocumentSection[]): void {
  for (const section of sections) {
    writer.room(40);
    writer.text(section.title, { size: 13, face: 'bold' });
    if (section.fields.length === 0) writer.text('(not answered)', { indent: 12 });
    for (const field of section.fields) {
      writer.paragraph([{ text: `${field.label}: `, face: 'bold' }, { text: field.value }], { indent: 12 });
    }
    writer.space(8);
  }
}

/** Who signed and when, role by role in signing order; a role yet to sign gets a line. */
function writeSignatures(writer: PdfWriter, signedBy: string[], signatures: DocumentSignature[]): void {
  writer.room(60);
  writer.text('Signatures', { size: 13, face: 'bold' });
  for (const role of signedBy) {
    const signature = signatures.find((candidate) => candidate.role === role);
    writer.room(40);
    if (signature) {
      writer.paragraph(
        [
          { text: 'Signed electronically by ' },
          { text: signature.signedName, face: 'italic' },
          { text: ` (${role}) on ${signedWhen(signature.signedAt)}` },
        ],
        { indent: 12 },
      );
    } else {
      writer.space(14);
      writer.text(`______________________________  (${role}): not signed yet`, { indent: 12 });
    }
    writer.space(6);
  }
}

/**
 * A document's PDF: the fund's agreement (its text, or its PDF filled in) with the signatures made so far and the
 * answers as an appendix; without an agreement, the answers themselves. A preview is stamped as one on every
 * page; a signed document is sealed with `seal` when one is given (evidence/pades.ts). Runs in a document worker
 * (document-tasks.ts).
 *
 * The fund's PDF is parsed again for each document: pdf-lib's `copy()` drops the form, and filling changes the
 * parsed document in place, so a parsed copy cannot be kept and reused. Measured on a 6 MB, 1,500-page PDF:
 * parsing 0.57 s, filling 0.03 s, saving 0.48 s; what is kept instead are its bytes (template-pdfs.ts), so that
 * no fill reads them from the database again.
 */
export async function makeDocumentPdf(job: RenderJob, seal?: SealCredential): Promise<Uint8Array> {
  const { preview, agreement } = job;
  const title = `${job.name} (${preview ? 'preview, not signed' : 'signed'})`;
  const stamp = preview ? 'PREVIEW - NOT SIGNED' : undefined;
  const { PDFDocument } = await import('pdf-lib');

  let pdf: PDFDocument;
  let writer: PdfWriter;
  if (agreement !== undefined && 'pdf' in agreement) {
    pdf = await fillAgreementPdf(agreement.pdf, {
      fields: agreement.fields,
      answer: (reference) => agreement.answers.get(reference),
      places: agreement.places,
      signatures: job.signatures,
      preview,
    });
    writer = await PdfWriter.create(pdf, { stamp });
  } else {
    pdf = await PDFDocument.create();
    writer = await PdfWriter.create(pdf, { stamp });
    if (agreement !== undefined) {
      await writeAgreementText(writer, agreement.text, (reference) => agreement.filled.get(reference) ?? '');
      writer.space(12);
    } else {
      writer.text(title, { size: 18, face: 'bold' });
      writer.text(`Transaction ${job.transactionId}`, { size: 9 });
      writer.space(10);
      writeAnswers(writer, job.sections);
    }
  }
  pdf.setTitle(title);
  writeSignatures(writer, job.signedBy, job.signatures);
  if (agreement !== undefined) {
    writer.breakPage();
    writer.text('Appendix: the answers given', { size: 15, face: 'bold' });
    writer.text(`Transaction ${job.transactionId}`, { size: 9 });
    writer.space(10);
    writeAnswers(writer, job.sections);
  }
  if (seal === undefined || preview) return pdf.save();
  // Loaded by a thread's first seal: a thread that makes only previews starts without it.
  const { sealPdf } = await import('../evidence/pades.ts');
  return sealPdf(pdf, seal, {
    reason: `${job.name}: signed by each party, sealed by Portico`,
    signingTime: new Date(),
  });
}
