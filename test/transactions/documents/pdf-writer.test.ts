import { PDFDocument, PDFFont } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { fillAgreementPdf } from '../../../src/transactions/documents/agreement-pdf.ts';
import {
  PdfWriter,
  printable,
  wrapRuns,
  type MeasureCharacter,
  type Run,
} from '../../../src/transactions/documents/pdf-writer.ts';
import { pdfText } from '../../support/pdf-text.ts';

/** The text of each line. */
const texts = (lines: Run[][]) => lines.map((line) => line.map((piece) => piece.text).join(''));

/** Every character one unit wide: a line of width 10 holds 10 characters. */
const oneUnit: MeasureCharacter = () => 1;

/**
 * A measure that counts the characters it is asked about and throws once asked about more than `budget`: a
 * layout that measures a long word again and again fails at once, by count, rather than running for minutes.
 */
function countingMeasure(budget: number): MeasureCharacter & { measured: () => number } {
  let measured = 0;
  const measure = (character: string) => {
    measured += character.length;
    if (measured > budget) throw new Error(`more than ${String(budget)} characters measured`);
    return 1;
  };
  return Object.assign(measure, { measured: () => measured });
}

/** A word of `length` characters of several widths, no spaces. */
const longWord = (length: number) => 'Wm1il.-@'.repeat(Math.ceil(length / 8)).slice(0, length);

describe('wrapping text into lines', () => {
  it('breaks lines at spaces, dropping the space before the word it moves to the next line', () => {
    expect(texts(wrapRuns([{ text: 'one two three four' }], 9, oneUnit))).toEqual([
      'one two',
      'three',
      'four',
    ]);
  });

  it('starts a new line at each line break', () => {
    expect(texts(wrapRuns([{ text: 'one\ntwo\n\nthree' }], 100, oneUnit))).toEqual([
      'one',
      'two',
      '',
      'three',
    ]);
  });

  it('keeps each run in its face and joins neighbours of the same face', () => {
    const lines = wrapRuns(
      [
        { text: 'Sign ', face: 'regular' },
        { text: 'here', face: 'bold' },
        { text: ' now', face: 'bold' },
      ],
      100,
      oneUnit,
    );
    expect(lines).toEqual([
      [
        { text: 'Sign ', face: 'regular' },
        { text: 'here now', face: 'bold' },
      ],
    ]);
  });

  it('cuts a word wider than the line where it fills each line, keeping every character in order', async () => {
    const writer = await PdfWriter.create(await PDFDocument.create());
    const width = 200;
    const word = longWord(5_000);
    const lines = texts(
      wrapRuns([{ text: word }], width, (character, face) => writer.widthOf(character, face)),
    );
    expect(lines.join('')).toBe(word);
    expect(lines.length).toBeGreaterThan(50);
    lines.forEach((line, index) => {
      expect(writer.widthOf(line)).toBeLessThanOrEqual(width);
      // Filled: the next character would not have fitted.
      const next = lines[index + 1]?.charAt(0);
      if (next) expect(writer.widthOf(line + next)).toBeGreaterThan(width);
    });
  });

  it('gives a long word that follows other words lines of its own, and goes on after its last piece', () => {
    const lines = texts(wrapRuns([{ text: `to ${'x'.repeat(25)} and on` }], 10, oneUnit));
    expect(lines).toEqual(['to', 'x'.repeat(10), 'x'.repeat(10), 'xxxxx and', 'on']);
  });

  it('measures each character of a 200,000-character word once', () => {
    const word = longWord(200_000);
    const measure = countingMeasure(2 * word.length);
    const lines = texts(wrapRuns([{ text: `Address: ${word}` }], 80, measure));
    expect(measure.measured()).toBe('Address: '.length + word.length);
    expect(lines.join('')).toBe(`Address:${word}`);
    expect(lines.every((line) => line.length <= 80)).toBe(true);
  });

  it('asks the font the width of each character once per document, however long the word it writes', async () => {
    const writer = await PdfWriter.create(await PDFDocument.create(), { stamp: 'PREVIEW' });
    const font = writer.font('regular');
    const widthOfTextAtSize = font.widthOfTextAtSize.bind(font);
    let measured = 0;
    font.widthOfTextAtSize = (text, size) => {
      measured += text.length;
      if (measured > 10_000) throw new Error('more than 10,000 characters measured');
      return widthOfTextAtSize(text, size);
    };
    const written = [`Address: ${longWord(200_000)}`, 'The same characters again: Wm1il.-@'];
    for (const text of written) writer.paragraph([{ text }]);
    expect(measured).toBe(new Set(written.join('')).size);
    expect(writer.document.getPageCount()).toBeGreaterThan(10);
  });
});

describe('printable text', () => {
  it('shows what the standard fonts cannot draw as "?", one per character, and tabs as spaces', () => {
    expect(printable('Zoë\t€5 — 東京 😀 ok\n')).toBe('Zoë €5 — ?? ? ok\n');
  });
});

describe("filling a fund PDF's text fields", () => {
  /** "…" as pdfText reads it: WinAnsi's 0x85, decoded as Latin-1. */
  const ELLIPSIS = '\x85';

  /** A one-page PDF with a multi-line field `Address` (250 × 60) and a single-line field `Name` (200 × 20). */
  async function formPdf(): Promise<Uint8Array> {
    const document = await PDFDocument.create();
    const page = document.addPage([612, 792]);
    const form = document.getForm();
    const address = form.createTextField('Address');
    address.enableMultiline();
    address.addToPage(page, { x: 60, y: 600, width: 250, height: 60 });
    form.createTextField('Name').addToPage(page, { x: 60, y: 700, width: 200, height: 20 });
    return document.save();
  }

  /** Fills `Address` and `Name` with these answers, counting the font's measures; throws past `budget` of them. */
  async function fill(answers: { address: string; name: string }, budget: number): Promise<Uint8Array> {
    const widthOfTextAtSize = Reflect.get<PDFFont, 'widthOfTextAtSize'>(
      PDFFont.prototype,
      'widthOfTextAtSize',
    );
    let measured = 0;
    PDFFont.prototype.widthOfTextAtSize = function (this: PDFFont, text: string, size: number): number {
      measured += 1;
      if (measured > budget)
        throw new Error(`the fields' text was measured more than ${String(budget)} times`);
      return widthOfTextAtSize.call(this, text, size);
    };
    try {
      const filled = await fillAgreementPdf(await formPdf(), {
        fields: { Address: 'item.address', Name: 'item.name' },
        answer: (reference) => {
          const text = reference === 'item.address' ? answers.address : answers.name;
          return { value: text, text };
        },
        places: {},
        signatures: [],
        preview: false,
      });
      return await filled.save();
    } finally {
      PDFFont.prototype.widthOfTextAtSize = widthOfTextAtSize;
    }
  }

  it('lays out a long answer of many words in a multi-line field with each line measured about once, ending in an ellipsis', async () => {
    const words = Array.from({ length: 4000 }, (_, index) => `word${String(index)}`).join(' ');
    const pdf = await fill({ address: words, name: 'Grace Hopper' }, 4000);
    const text = pdfText(pdf);
    expect(text).toContain('word0 word1 word2');
    expect(text).toContain(ELLIPSIS);
    expect(text).not.toContain('word3999');
  });

  it('draws a short answer whole, and cuts a single-line answer wider than its box with an ellipsis', async () => {
    const pdf = await fill({ address: '1 Infinite Loop, Cupertino', name: 'G'.repeat(20_000) }, 4000);
    const text = pdfText(pdf);
    expect(text).toContain('1 Infinite Loop, Cupertino');
    expect(text).toMatch(new RegExp(`^G+${ELLIPSIS}$`, 'm'));
  });
});
