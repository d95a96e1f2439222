import type { PDFDocument, PDFFont, PDFPage, StandardFonts } from 'pdf-lib';

/** The faces a document is written in: the PDF standard fonts, which every reader has. */
export type Face = 'regular' | 'bold' | 'italic' | 'boldItalic' | 'mono';

/** A stretch of text in one face. */
export interface Run {
  text: string;
  face?: Face;
}

/** The characters of Windows-1252 above 0x7f that are not Latin-1: what the standard fonts encode besides. */
const WIN_ANSI_EXTRA = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';

/** Each character the standard fonts cannot draw, astral ones whole (`u`), for {@link printable}. */
const UNPRINTABLE = new RegExp(`[^\\n\\x20-\\x7e\\xa0-\\xff${WIN_ANSI_EXTRA}]`, 'gu');

/**
 * Text the standard fonts can draw: they encode Windows-1252 only, so anything else is shown as '?', tabs as
 * spaces. One pass of a regular expression, so an answer of any length costs time in proportion to it.
 */
export function printable(text: string): string {
  return text.replace(/\t/g, ' ').replace(UNPRINTABLE, '?');
}

const PAGE: [number, number] = [612, 792];
const MARGIN = 72;

/**
 * Writes flowing text onto US Letter pages of a PDF: paragraphs of runs in several faces, wrapped at spaces,
 * with new pages as they fill. A preview stamps every page it makes, so nobody takes it for a signed copy.
 */
export class PdfWriter {
  page: PDFPage;
  y = 0;
  private readonly fonts = new Map<Face, PDFFont>();
  /** The width of each character met so far, per face, at size 1000 (the fonts' own unit). */
  private readonly characterWidths = new Map<Face, Map<string, number>>();
  private constructor(
    readonly document: PDFDocument,
    private readonly names: Record<Face, StandardFonts>,
    private readonly stamp: string | undefined,
  ) {
    this.page = this.newPage();
  }

  static async create(document: PDFDocument, options: { stamp?: string } = {}): Promise<PdfWriter> {
    const { StandardFonts } = await import('pdf-lib');
    const names = {
      regular: StandardFonts.Helvetica,
      bold: StandardFonts.HelveticaBold,
      italic: StandardFonts.HelveticaOblique,
      boldItalic: StandardFonts.HelveticaBoldOblique,
      mono: StandardFonts.Courier,
    };
    return new PdfWriter(document, names, options.stamp);
  }

  /** A face's font, embedded in the document the first time it is used (each costs time and bytes). */
  font(face: Face = 'regular'): PDFFont {
    let font = this.fonts.get(face);
    if (font === undefined) {
      font = this.document.embedStandardFont(this.names[face]);
      this.fonts.set(face, font);
    }
    return font;
  }

  /**
   * How wide `text` is drawn in `face` at `size`: the sum of its characters' widths, each asked of the font once
   * per document. pdf-lib draws without kerning, so this is the width on the page (its `widthOfTextAtSize` adds
   * kerning, and measures the whole text on every call).
   */
  widthOf(text: string, face: Face = 'regular', size = 11): number {
    let widths = this.characterWidths.get(face);
    if (widths === undefined) {
      widths = new Map();
      this.characterWidths.set(face, widths);
    }
    let total = 0;
    for (let index = 0; index < text.length; index += 1) {
      const character = text.charAt(index);
      let width = widths.get(character);
      if (width === undefined) {
        width = this.font(face).widthOfTextAtSize(character, 1000);
        widths.set(character, width);
      }
      total += width;
    }
    return (total * size) / 1000;
  }

  private newPage(): PDFPage {
    const page = this.document.addPage(PAGE);
    if (this.stamp !== undefined) stampPage(page, this.font('bold'), this.stamp);
    this.y = PAGE[1] - MARGIN;
    return page;
  }

  /** Starts a new page unless `height` points still fit on this one. */
  room(height: number): void {
    if (this.y - height < MARGIN) this.page = this.newPage();
  }

  breakPage(): void {
    if (this.y < PAGE[1] - MARGIN) this.page = this.newPage();
  }

  space(points: number): void {
    this.y -= points;
  }

  /**
   * A paragraph of runs, wrapped to the page width less `indent`; `marker` (a bullet or a number) hangs in the
   * indent before its first line.
   */
  paragraph(runs: Run[], options: { size?: number; indent?: number; marker?: string } = {}): void {
    const size = options.size ?? 11;
    const left = MARGIN + (options.indent ?? 0);
    const width = PAGE[0] - MARGIN - left;
    const lines = this.wrap(runs, size, width);
    lines.forEach((line, index) => {
      this.room(size + 6);
      if (index === 0 && options.marker !== undefined) {
        const marker = printable(options.marker);
        const markerWidth = this.widthOf(marker, 'regular', size);
        this.page.drawText(marker, { x: left - markerWidth - 6, y: this.y, size, font: this.font() });
      }
      let x = left;
      for (const piece of line) {
        const font = this.font(piece.face);
        this.page.drawText(piece.text, { x, y: this.y, size, font });
        x += this.widthOf(piece.text, piece.face, size);
      }
      this.y -= size + 6;
    });
  }

  /** Plain text in one face; `\n` starts a new line. */
  text(text: string, options: { size?: number; face?: Face; indent?: number } = {}): void {
    for (const line of text.split('\n')) {
      this.paragraph([{ text: line, face: options.face ?? 'regular' }], options);
    }
  }

  /** A thin line across the page. */
  rule(): void {
    this.room(12);
    this.page.drawLine({
      start: { x: MARGIN, y: this.y + 4 },
      end: { x: PAGE[0] - MARGIN, y: this.y + 4 },
      thickness: 0.5,
    });
    this.y -= 12;
  }

  /** The runs broken into lines no wider than `width` ({@link wrapRuns}). */
  private wrap(runs: Run[], size: number, width: number): Run[][] {
    return wrapRuns(runs, width, (character, face) => this.widthOf(character, face, size));
  }
}

/** How wide one character is drawn in a face, in the unit of the width it is wrapped to. */
export type MeasureCharacter = (character: string, face: Face | undefined) => number;

/**
 * Runs broken into lines no wider than `width`: at spaces (a line break drops the space before the word it moves),
 * a new line at each `\n`, and a word wider than a line cut where it fills one. Each character is measured once,
 * and a cut is found by adding up the widths already measured, so the work grows with the text, not faster: an
 * answer of one long word (say 200,000 characters) is laid out as quickly as as many short ones.
 *
 * @example
 * wrapRuns([{ text: 'one two three' }], 7, () => 1); // [[{ text: 'one two' }], [{ text: 'three' }]]
 */
export function wrapRuns(runs: readonly Run[], width: number, measure: MeasureCharacter): Run[][] {
  const lines: Run[][] = [[]];
  let used = 0;
  const newLine = () => {
    lines.push([]);
    used = 0;
  };
  const place = (text: string, face: Face | undefined, textWidth: number) => {
    const line = lines[lines.length - 1] ?? [];
    const last = line[line.length - 1];
    if (last !== undefined && last.face === face) last.text += text;
    else line.push({ text, face });
    used += textWidth;
  };
  for (const run of runs) {
    // Words keep the space before them, so a line break drops exactly that space.
    for (const piece of printable(run.text).split(/(?=[ \n])/)) {
      let word = piece;
      if (word.startsWith('\n')) {
        newLine();
        word = word.slice(1);
      }
      const widths: number[] = [];
      let wordWidth = 0;
      for (let index = 0; index < word.length; index += 1) {
        const characterWidth = measure(word.charAt(index), run.face);
        widths.push(characterWidth);
        wordWidth += characterWidth;
      }
      if (used > 0 && used + wordWidth <= width) {
        place(word, run.face, wordWidth);
        continue;
      }
      if (used > 0) newLine();
      // The word starts a line, without its space; where it is wider than the line, it is cut where it fills one.
      let start = word.startsWith(' ') ? 1 : 0;
      let filled = 0;
      for (let index = start; index < word.length; index += 1) {
        const characterWidth = widths[index] ?? 0;
        if (index > start && filled + characterWidth > width) {
          place(word.slice(start, index), run.face, filled);
          newLine();
          start = index;
          filled = 0;
        }
        filled += characterWidth;
      }
      place(word.slice(start), run.face, filled);
    }
  }
  return lines.map((line) => line.filter((piece) => piece.text !== ''));
}

/** Marks a page across its top, e.g. "PREVIEW — NOT SIGNED". */
export function stampPage(page: PDFPage, font: PDFFont, stamp: string): void {
  const size = 9;
  const text = printable(stamp);
  const { width, height } = page.getSize();
  page.drawText(text, {
    x: (width - font.widthOfTextAtSize(text, size)) / 2,
    y: height - 28,
    size,
    font,
  });
}
