import type { PDFDocument, PDFField, PDFForm, PDFPage } from 'pdf-lib';
import { printable, stampPage } from './pdf-writer.ts';
import type { SignaturePlacement } from '../templates/schema.ts';

/** What a form field of a fund's PDF takes. */
export type PdfFieldKind = 'text' | 'checkbox' | 'choice' | 'other';

export interface PdfField {
  name: string;
  kind: PdfFieldKind;
  /** The values a choice (radio group, dropdown, list) offers. */
  options: string[];
}

export type PdfInspection =
  { ok: true; pageCount: number; fields: PdfField[] } | { ok: false; message: string };

/** An answer as the agreement fills it in: the value saved, and the words a reader sees. */
export interface Answer {
  value: unknown;
  text: string;
}

export interface PlacedSignature {
  role: string;
  signedName: string;
  signedAt: Date;
}

/** `%PDF-` within the first kilobyte, where readers look for it. */
function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-', 0, 'latin1');
}

/** Reads a fund's PDF as a template import checks it: a PDF, not encrypted, and the form fields it has. */
export async function inspectPdf(bytes: Uint8Array): Promise<PdfInspection> {
  if (!looksLikePdf(bytes)) return { ok: false, message: 'is not a PDF (it does not start with %PDF-)' };
  const { PDFDocument } = await import('pdf-lib');
  try {
    // Loaded even when encrypted, to say so: pdf-lib's own error for it cannot be told apart reliably.
    const document = await PDFDocument.load(bytes, {
      updateMetadata: false,
      ignoreEncryption: true,
      throwOnInvalidObject: true,
    });
    if (document.isEncrypted) {
      return {
        ok: false,
        message:
          'is encrypted: Portico cannot fill or sign it. Save a copy without a password or restrictions',
      };
    }
    const pageCount = document.getPageCount();
    if (pageCount === 0) return { ok: false, message: 'has no pages' };
    return { ok: true, pageCount, fields: await fieldsOf(document.getForm()) };
  } catch {
    return { ok: false, message: 'could not be read as a PDF: it is damaged or not a PDF' };
  }
}

async function fieldsOf(form: PDFForm): Promise<PdfField[]> {
  const { PDFTextField, PDFCheckBox, PDFRadioGroup, PDFDropdown, PDFOptionList } = await import('pdf-lib');
  return form.getFields().map((field) => {
    const name = field.getName();
    if (field instanceof PDFTextField) return { name, kind: 'text', options: [] };
    if (field instanceof PDFCheckBox) return { name, kind: 'checkbox', options: [] };
    if (field instanceof PDFRadioGroup || field instanceof PDFDropdown || field instanceof PDFOptionList) {
      return { name, kind: 'choice', options: field.getOptions() };
    }
    return { name, kind: 'other', options: [] };
  });
}

interface Box {
  page: PDFPage;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The page a field's first widget is on, and its box. */
function boxOfField(document: PDFDocument, field: PDFField): Box | undefined {
  const widget = field.acroField.getWidgets()[0];
  if (!widget) return undefined;
  const ref = document.context.getObjectRef(widget.dict);
  const page = document
    .getPages()
    .find(
      (candidate) =>
        candidate.ref === widget.P() ||
        (ref !== undefined && candidate.node.Annots()?.indexOf(ref) !== undefined),
    );
  return page && { page, ...widget.getRectangle() };
}

/**
 * The fund's PDF filled in: each mapped form field set from its answer (text, a ticked box, a chosen option),
 * the form flattened so the copy cannot be edited, and each signature written in its box. A preview stamps every
 * page and marks the empty signature boxes.
 */
export async function fillAgreementPdf(
  bytes: Uint8Array,
  options: {
    fields: Record<string, string>;
    answer: (reference: string) => Answer | undefined;
    places: Record<string, SignaturePlacement>;
    signatures: PlacedSignature[];
    preview: boolean;
  },
): Promise<PDFDocument> {
  const pdfLib = await import('pdf-lib');
  const {
    PDFDocument,
    PDFTextField,
    PDFCheckBox,
    PDFRadioGroup,
    PDFDropdown,
    PDFOptionList,
    StandardFonts,
    rgb,
  } = pdfLib;
  const document = await PDFDocument.load(bytes, { updateMetadata: false });
  const form = document.getForm();
  const font = document.embedStandardFont(StandardFonts.Helvetica);
  const italic = document.embedStandardFont(StandardFonts.HelveticaOblique);
  const bold = document.embedStandardFont(StandardFonts.HelveticaBold);

  for (const [name, reference] of Object.entries(options.fields)) {
    const field = form.getField(name);
    const answer = options.answer(reference);
    if (field instanceof PDFTextField) {
      field.setMaxLength(undefined);
      field.setText(printable(answer?.text ?? '').replace(/\n/g, ' '));
    } else if (field instanceof PDFCheckBox) {
      if (answer?.value === true) field.check();
      else field.uncheck();
    } else if (
      field instanceof PDFRadioGroup ||
      field instanceof PDFDropdown ||
      field instanceof PDFOptionList
    ) {
      const choices = field.getOptions();
      // The option named by the saved value (a choice's const), else by the words shown (its title).
      const saved = typeof answer?.value === 'string' ? answer.value : '';
      const chosen = [saved, answer?.text ?? ''].find((option) => choices.includes(option));
      if (chosen !== undefined) field.select(chosen);
    }
  }

  // pdf-lib 1.17 leaves a flattened or removed field's widgets in its page's annotations, pointing at deleted
  // objects (readers then complain or repair the file): they are taken out by hand once the form is flat.
  const widgets = form
    .getFields()
    .flatMap((field) => field.acroField.getWidgets())
    .map((widget) => document.context.getObjectRef(widget.dict))
    .filter((ref) => ref !== undefined);

  // Boxes named by a field are read before the fields are flattened away; the field itself is then removed,
  // so what it drew (a signature field's border, an empty text box) does not cover the signature.
  const boxes = new Map<string, Box>();
  for (const [role, place] of Object.entries(options.places)) {
    if ('field' in place) {
      const field = form.getField(place.field);
      const box = boxOfField(document, field);
      if (box) boxes.set(role, box);
      form.removeField(field);
    } else {
      const page = document.getPage(place.page - 1);
      boxes.set(role, { page, x: place.x, y: place.y, width: place.width, height: place.height });
    }
  }
  form.updateFieldAppearances(font);
  form.flatten();
  for (const page of document.getPages()) for (const ref of widgets) page.node.removeAnnot(ref);

  for (const [role, box] of boxes) {
    const signature = options.signatures.find((candidate) => candidate.role === role);
    if (signature) {
      const name = printable(signature.signedName);
      const size = Math.max(
        6,
        Math.min(16, box.height * 0.5, (box.width / Math.max(1, italic.widthOfTextAtSize(name, 1))) * 0.95),
      );
      box.page.drawText(name, { x: box.x + 2, y: box.y + box.height * 0.35, size, font: italic });
      const when = `Signed electronically ${signature.signedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`;
      box.page.drawText(when, { x: box.x + 2, y: box.y + 2, size: Math.min(7, box.height * 0.25), font });
    } else if (options.preview) {
      box.page.drawRectangle({ ...box, borderColor: rgb(0.6, 0.6, 0.6), borderWidth: 0.75 });
      box.page.drawText(`To be signed by the ${role}`, {
        x: box.x + 2,
        y: box.y + 2,
        size: Math.min(8, box.height * 0.3),
        font: italic,
        color: rgb(0.4, 0.4, 0.4),
      });
    }
  }
  if (options.preview) for (const page of document.getPages()) stampPage(page, bold, 'PREVIEW - NOT SIGNED');
  return document;
}
