import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import { printable, wrapRuns } from '../documents/pdf-writer.ts';

/**
 * How a certificate of completion is laid out (certificate-pdf.ts writes it): US Letter pages written top to
 * bottom, headings, label-value lists, wrapped text and tables whose rows run over pages with their header repeated,
 * every string drawn in the characters the standard fonts encode (`printable`); and how its times and user agents
 * read.
 */

const PAGE: [number, number] = [612, 792];
const MARGIN = 40;
const WIDTH = PAGE[0] - 2 * MARGIN;
/** The most lines one cell of a table takes; what is longer ends in an ellipsis. */
const CELL_LINES = 8;
const TABLE_SIZE = 7;
const BODY_SIZE = 9;

export type Face = 'regular' | 'bold' | 'mono';

/** A column of a table: its heading, its share of the page's width (they add up to 1), and its face. */
interface Column {
  title: string;
  share: number;
  face?: Face;
}

/** When something happened, in UTC, to the second: `2026-11-28T14:03:07Z`. */
export function utc(at: Date): string {
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
}

const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/CriOS\/(\d+)/, 'Chrome'],
  [/Chrome\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Windows NT/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];
const SHORT_USER_AGENT = 60;

/**
 * A user agent as a reader takes it in: a known browser as "Chrome 131 on macOS", anything else (a script, an API
 * client) as it came, cut to 60 characters. The history keeps the whole of it.
 */
export function shortUserAgent(userAgent: string): string {
  const browser = BROWSERS.map(([pattern, name]) => [pattern.exec(userAgent), name] as const).find(
    ([match]) => match !== null,
  );
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser?.[0] && userAgent.startsWith('Mozilla/')) {
    return `${browser[1]} ${browser[0][1] ?? ''}${system === undefined ? '' : ` on ${system}`}`;
  }
  return userAgent.length > SHORT_USER_AGENT ? `${userAgent.slice(0, SHORT_USER_AGENT - 1)}…` : userAgent;
}

/** Pages of the certificate, written top to bottom: headings, label-value lists, text and paginated tables. */
export class CertificateLayout {
  page!: PDFPage;
  y = 0;
  private readonly widths = new Map<Face, Map<string, number>>();
  constructor(
    readonly pdf: PDFDocument,
    private readonly fonts: Record<Face, PDFFont>,
  ) {
    this.newPage();
  }

  newPage(): void {
    this.page = this.pdf.addPage(PAGE);
    this.y = PAGE[1] - MARGIN;
  }

  room(height: number): void {
    if (this.y - height < MARGIN + 14) this.newPage();
  }

  widthOf(text: string, face: Face, size: number): number {
    let cache = this.widths.get(face);
    if (cache === undefined) {
      cache = new Map();
      this.widths.set(face, cache);
    }
    let total = 0;
    for (const character of text) {
      let width = cache.get(character);
      if (width === undefined) {
        width = this.fonts[face].widthOfTextAtSize(character, 1000);
        cache.set(character, width);
      }
      total += width;
    }
    return (total * size) / 1000;
  }

  /** `text` broken into lines no wider than `width`, at most `max` of them. */
  lines(text: string, face: Face, size: number, width: number, max = Infinity): string[] {
    const lines = wrapRuns([{ text, face: face === 'mono' ? 'mono' : 'regular' }], width, (character) =>
      this.widthOf(character, face, size),
    ).map((line) => line.map((run) => run.text).join(''));
    if (lines.length <= max) return lines;
    const kept = lines.slice(0, max);
    kept[max - 1] = `${(kept[max - 1] ?? '').slice(0, -1)}…`;
    return kept;
  }

  draw(text: string, x: number, face: Face, size: number): void {
    this.page.drawText(printable(text), { x, y: this.y, size, font: this.fonts[face] });
  }

  heading(text: string, size = 12): void {
    this.room(size + 30);
    this.y -= 10;
    this.draw(text, MARGIN, 'bold', size);
    this.y -= size + 6;
  }

  text(text: string, options: { size?: number; face?: Face } = {}): void {
    const size = options.size ?? BODY_SIZE;
    const face = options.face ?? 'regular';
    for (const line of this.lines(text, face, size, WIDTH)) {
      this.room(size + 4);
      this.draw(line, MARGIN, face, size);
      this.y -= size + 4;
    }
  }

  /** Labels in bold on the left, each with its value wrapped beside it. */
  facts(rows: [string, string, Face?][]): void {
    const labelWidth = 120;
    for (const [label, value, face = 'regular'] of rows) {
      const lines = this.lines(value, face, BODY_SIZE, WIDTH - labelWidth, CELL_LINES);
      this.room((BODY_SIZE + 4) * lines.length);
      this.draw(label, MARGIN, 'bold', BODY_SIZE);
      for (const line of lines) {
        this.draw(line, MARGIN + labelWidth, face, BODY_SIZE);
        this.y -= BODY_SIZE + 4;
      }
    }
  }

  /** A table whose rows run over pages as they fill, its header at the top of each; `empty` when it has none. */
  table(columns: Column[], rows: string[][], empty: string): void {
    if (rows.length === 0) {
      this.text(empty, { face: 'regular' });
      return;
    }
    const lineHeight = TABLE_SIZE + 2.5;
    const widths = columns.map((column) => column.share * WIDTH);
    const header = () => {
      this.room(lineHeight * 3);
      let x = MARGIN;
      columns.forEach((column, index) => {
        this.draw(column.title, x, 'bold', TABLE_SIZE);
        x += widths[index] ?? 0;
      });
      this.y -= 3;
      this.page.drawLine({
        start: { x: MARGIN, y: this.y },
        end: { x: MARGIN + WIDTH, y: this.y },
        thickness: 0.5,
      });
      this.y -= lineHeight;
    };
    header();
    for (const row of rows) {
      const cells = columns.map((column, index) =>
        this.lines(
          row[index] ?? '',
          column.face ?? 'regular',
          TABLE_SIZE,
          (widths[index] ?? 0) - 4,
          CELL_LINES,
        ),
      );
      const height = Math.max(1, ...cells.map((cell) => cell.length)) * lineHeight + 2;
      if (this.y - height < MARGIN + 14) {
        this.newPage();
        header();
      }
      const top = this.y;
      let x = MARGIN;
      cells.forEach((cell, index) => {
        this.y = top;
        for (const line of cell) {
          this.draw(line, x, columns[index]?.face ?? 'regular', TABLE_SIZE);
          this.y -= lineHeight;
        }
        x += widths[index] ?? 0;
      });
      this.y = top - height;
    }
    this.y -= 4;
  }

  /** Each page's foot: what it is, and its page of how many. */
  footers(transactionId: string): void {
    const pages = this.pdf.getPages();
    pages.forEach((page, index) => {
      page.drawText(
        printable(
          `Certificate of completion - transaction ${transactionId} - page ${String(index + 1)} of ${String(pages.length)}`,
        ),
        { x: MARGIN, y: MARGIN - 14, size: 7, font: this.fonts.regular },
      );
    });
  }
}
