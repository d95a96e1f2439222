import type { PDFDocument, PDFField, PDFFont, PDFForm, PDFPage, PDFTextField } from 'pdf-lib';
import { printable, stampPage, wrapRuns } from './pdf-writer.ts';
import { inflatedSize, MAX_INFLATED_MEGABYTES } from './pdf-inflation.ts';
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

/**
 * Reads a fund's PDF as a template import checks it: a PDF, no more than MAX_INFLATED_MEGABYTES once inflated,
 * not encrypted, and the form fields it has. Runs in a document worker (document-workers.ts).
 */
export async function inspectPdf(bytes: Uint8Array): Promise<PdfInspection> {
  if (!looksLikePdf(bytes)) return { ok: false, message: 'is not a PDF (it does not start with %PDF-)' };
  // Before pdf-lib reads it: pdf-lib inflates object streams as it parses, with no bound.
  const cap = MAX_INFLATED_MEGABYTES * 1024 * 1024;
  if ((await inflatedSize(bytes, cap)) > cap) {
    return {
      ok: false,
      message: `inflates to more than ${String(MAX_INFLATED_MEGABYTES)} MB once its compressed contents are read: save it with JPEG images, or with fewer pages`,
    };
  }
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

/** The font sizes a filled-in text field is drawn in: pdf-lib's smallest, and the largest Portico lets it pick. */
const FIELD_FONT_SIZES = { smallest: 4, largest: 12 } as const;
/** What pdf-lib keeps free inside a field's box (its border and padding), on each side, and then some. */
const FIELD_INSET = 2;

/**
 * Fills a text field with `text` laid out for its box, so that pdf-lib only draws it. Left to itself, pdf-lib
 * picks a multi-line field's font size by laying the text out at every size from 4 up, measuring each line one
 * word shorter at a time: cubic in the answer's length (2,000 characters took 5.7 s). Here the text is wrapped
 * once per size (each character measured once), from 12 points down to the first size at which it fits; the
 * field gets that size and those lines. What does not fit even at 4 points ends in an ellipsis: the box shows
 * what it can, and the appendix gives the answer whole. A single-line field is cut the same way to its width.
 */
function fillTextField(field: PDFTextField, text: string, font: PDFFont): void {
  const widget = field.acroField.getWidgets()[0];
  if (widget === undefined || text === '') {
    field.setText(text);
    return;
  }
  const box = widget.getRectangle();
  const width = Math.max(1, box.width - 2 * FIELD_INSET);
  const height = Math.max(1, box.height - 2 * FIELD_INSET);
  const unitWidths = new Map<string, number>();
  const measureAt = (size: number) => (character: string) => {
    let unit = unitWidths.get(character);
    if (unit === undefined) {
      unit = font.widthOfTextAtSize(character, 1);
      unitWidths.set(character, unit);
    }
    return unit * size;
  };
  const linesAt = (size: number, of: string) =>
    wrapRuns([{ text: of }], width, measureAt(size)).map((line) => line.map((run) => run.text).join(''));
  const rows = (size: number) =>
    field.isMultiline() ? Math.floor(height / (font.heightAtSize(size) * 1.2)) : 1;

  // At the smallest size the box holds the most; what is past that is never drawn at any size.
  const smallest = linesAt(FIELD_FONT_SIZES.smallest, text);
  const room = Math.max(1, rows(FIELD_FONT_SIZES.smallest));
  const shown =
    smallest.length > room
      ? [
          ...smallest.slice(0, room - 1),
          ellipsized(smallest[room - 1] ?? '', width, measureAt(FIELD_FONT_SIZES.smallest)),
        ]
      : smallest;
  if (!field.isMultiline()) {
    field.setText(shown.join(''));
    return;
  }
  // Text that needs every row at the smallest size is drawn at it; shorter text at the largest size it fits.
  let size: number = FIELD_FONT_SIZES.smallest;
  let lines = shown;
  for (
    let candidate: number = FIELD_FONT_SIZES.largest;
    candidate > size && shown === smallest;
    candidate -= 1
  ) {
    const wrapped = linesAt(candidate, text);
    if (wrapped.length <= rows(candidate)) {
      size = candidate;
      lines = wrapped;
      break;
    }
  }
  field.setFontSize(size);
  field.setText(lines.join('\n'));
}

/** A line's start with `…` after it, as much of it as fits `width` with the ellipsis. */
function ellipsized(line: string, width: number, measure: (character: string) => number): string {
  let used = measure('…');
  let end = 0;
  while (end < line.length && used + measure(line.charAt(end)) <= width) {
    used += measure(line.charAt(end));
    end += 1;
  }
  return `${line.slice(0, end)}…`;
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
      fillTextField(field, printable(answer?.text ?? '').replace(/\n/g, ' '), font);
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
