import type { PDFDocument, PDFFont, PDFPage, StandardFonts } from 'pdf-lib';

/** The faces a document is written in: the PDF standard fonts, which every reader has. */
export type Face = 'regular' | 'bold' | 'italic' | 'boldItalic' | 'mono';

/** A stretch of text in one face. */
export interface Run {
  text: string;
  face?: Face;
}

/** The characters of Windows-1252 above 0x7f that are not Latin-1: what the standard fonts encode besides. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/**
 * Text the standard fonts can draw: they encode Windows-1252 only, so anything else is shown as '?', tabs as
 * spaces.
 */
export function printable(text: string): string {
  let out = '';
  for (const character of text.replace(/\t/g, ' ')) {
    const code = character.codePointAt(0) ?? 0;
    const fits = (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || character === '\n';
    out += fits || WIN_ANSI_EXTRA.has(character) ? character : '?';
  }
  return out;
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
        const markerWidth = this.font().widthOfTextAtSize(marker, size);
        this.page.drawText(marker, { x: left - markerWidth - 6, y: this.y, size, font: this.font() });
      }
      let x = left;
      for (const piece of line) {
        const font = this.font(piece.face);
        this.page.drawText(piece.text, { x, y: this.y, size, font });
        x += font.widthOfTextAtSize(piece.text, size);
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

  /** The runs broken into lines no wider than `width`, breaking at spaces (a longer word is cut). */
  private wrap(runs: Run[], size: number, width: number): Run[][] {
    const lines: Run[][] = [[]];
    let used = 0;
    const widthOf = (text: string, face: Face | undefined) => this.font(face).widthOfTextAtSize(text, size);
    const add = (text: string, face: Face | undefined) => {
      const line = lines[lines.length - 1] ?? [];
      const last = line[line.length - 1];
      if (last !== undefined && last.face === face) last.text += text;
      else line.push({ text, face });
      used += widthOf(text, face);
    };
    for (const run of runs) {
      // Words keep the space before them, so a line break drops exactly that space.
      for (const word of printable(run.text).split(/(?=[ \n])/)) {
        if (word.startsWith('\n')) {
          lines.push([]);
          used = 0;
          if (word.length > 1) add(word.slice(1), run.face);
          continue;
        }
        const bare = word.trimStart();
        if (used > 0 && used + widthOf(word, run.face) > width) {
          lines.push([]);
          used = 0;
          add(bare, run.face);
        } else add(used === 0 ? bare : word, run.face);
        // A word wider than the line is cut where it fills it.
        const line = lines[lines.length - 1] ?? [];
        while (used > width && line.length === 1 && (line[0]?.text.length ?? 0) > 1) {
          const piece = line[0] as Run;
          let cut = piece.text.length - 1;
          while (cut > 1 && widthOf(piece.text.slice(0, cut), piece.face) > width) cut -= 1;
          const rest = piece.text.slice(cut);
          piece.text = piece.text.slice(0, cut);
          lines.push([]);
          used = 0;
          add(rest, piece.face);
        }
      }
    }
    return lines.map((line) => line.filter((piece) => piece.text !== ''));
  }
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
