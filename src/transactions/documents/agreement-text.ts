import type { Token, Tokens } from 'marked';
import type { Face, PdfWriter, Run } from './pdf-writer.ts';

/** `{{ item.field }}` in an agreement's text: an answer, by its item's vulcanKey and its field's path. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The placeholders of a text with their line (1-based, in the text), in order. */
export function placeholdersOf(text: string): { reference: string; line: number }[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => ({
    reference: match[1] ?? '',
    line: text.slice(0, match.index).split('\n').length,
  }));
}

// While Markdown is read, each placeholder stands as a private-use marker, so that an answer is never read as
// Markdown (a name with asterisks stays a name) and Markdown never splits a placeholder.
const MARK_START = '\uE000';
const MARK_END = '\uE001';
const MARKER = /\uE000(\d+)\uE001/g;

/**
 * Writes an agreement's Markdown text with its placeholders replaced by `answer(reference)`: headings,
 * paragraphs with strong, emphasis and code, lists, quotes, rules and tables. HTML is written as the text it is.
 */
export async function writeAgreementText(
  writer: PdfWriter,
  text: string,
  answer: (reference: string) => string,
): Promise<void> {
  const { Lexer } = await import('marked');
  const references: string[] = [];
  const marked = text.replace(PLACEHOLDER, (_, reference: string) => {
    references.push(reference.trim());
    return `${MARK_START}${references.length - 1}${MARK_END}`;
  });
  const fill = (value: string) =>
    value.replace(MARKER, (_, index: string) => oneLine(answer(references[Number(index)] ?? '')));
  const tokens = new Lexer({ gfm: true }).lex(marked);
  writeBlocks(writer, tokens, { indent: 0, fill });
}

/**
 * An answer of several lines (an address) as one, for the sentence it fills: its lines, without the spaces around
 * each line break, joined by commas. Split at each `\n` and trimmed rather than at a pattern of spaces around a
 * line break, whose every attempt runs over all the spaces that follow: an answer of 64,000 spaces took 11 s so.
 */
function oneLine(answer: string): string {
  const lines = answer.split('\n');
  return lines
    .map((line, index) => {
      const after = index === 0 ? line : line.trimStart();
      return index === lines.length - 1 ? after : after.trimEnd();
    })
    .filter((line) => line !== '')
    .join(', ');
}

interface BlockContext {
  indent: number;
  fill: (value: string) => string;
}

const HEADING_SIZES = [18, 15, 13, 12, 11, 11];

function writeBlocks(writer: PdfWriter, tokens: Token[], context: BlockContext): void {
  for (const token of tokens) writeBlock(writer, token, context);
}

function writeBlock(writer: PdfWriter, token: Token, context: BlockContext): void {
  const { indent, fill } = context;
  switch (token.type) {
    case 'space':
    case 'def':
      return;
    case 'heading': {
      const heading = token as Tokens.Heading;
      const size = HEADING_SIZES[heading.depth - 1] ?? 11;
      writer.space(size / 2);
      writer.room(size * 3);
      writer.paragraph(runsOf(heading.tokens, 'bold', fill), { size, indent });
      writer.space(2);
      return;
    }
    case 'paragraph':
      writer.paragraph(runsOf((token as Tokens.Paragraph).tokens, 'regular', fill), { indent });
      writer.space(6);
      return;
    case 'text': {
      const inline = token as Tokens.Text;
      writer.paragraph(
        inline.tokens ? runsOf(inline.tokens, 'regular', fill) : [{ text: fill(inline.text) }],
        { indent },
      );
      return;
    }
    case 'list': {
      const list = token as Tokens.List;
      const start = typeof list.start === 'number' ? list.start : 1;
      list.items.forEach((item, index) => {
        const marker = list.ordered ? `${start + index}.` : '•';
        writeListItem(writer, item, marker, { indent: indent + 24, fill });
      });
      writer.space(6);
      return;
    }
    case 'blockquote':
      writeBlocks(writer, (token as Tokens.Blockquote).tokens, { indent: indent + 18, fill });
      return;
    case 'code':
      writer.text(fill((token as Tokens.Code).text), { face: 'mono', size: 10, indent: indent + 12 });
      writer.space(6);
      return;
    case 'hr':
      writer.rule();
      return;
    case 'table': {
      const table = token as Tokens.Table;
      const row = (cells: Tokens.TableCell[], face: Face) =>
        cells.flatMap((cell, index) => [
          ...(index === 0 ? [] : [{ text: '  |  ', face }]),
          ...runsOf(cell.tokens, face, fill),
        ]);
      writer.paragraph(row(table.header, 'bold'), { indent });
      for (const cells of table.rows) writer.paragraph(row(cells, 'regular'), { indent });
      writer.space(6);
      return;
    }
    default:
      // HTML, and anything else Markdown may add: the text as it was written.
      writer.paragraph([{ text: fill(token.raw.trimEnd()) }], { indent });
      writer.space(6);
  }
}

function writeListItem(
  writer: PdfWriter,
  item: Tokens.ListItem,
  marker: string,
  context: BlockContext,
): void {
  let marked = false;
  for (const child of item.tokens) {
    if (!marked && (child.type === 'text' || child.type === 'paragraph')) {
      const inline = child as Tokens.Text | Tokens.Paragraph;
      const runs = inline.tokens
        ? runsOf(inline.tokens, 'regular', context.fill)
        : [{ text: context.fill(inline.text) }];
      const checkbox = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
      writer.paragraph([{ text: checkbox }, ...runs], { indent: context.indent, marker });
      marked = true;
    } else writeBlock(writer, child, context);
  }
}

const STRONGER: Record<Face, Face> = {
  regular: 'bold',
  bold: 'bold',
  italic: 'boldItalic',
  boldItalic: 'boldItalic',
  mono: 'mono',
};
const SLANTED: Record<Face, Face> = {
  regular: 'italic',
  bold: 'boldItalic',
  italic: 'italic',
  boldItalic: 'boldItalic',
  mono: 'mono',
};

/** Inline tokens as runs of text in faces; a link shows its address after its text. */
function runsOf(tokens: Token[], face: Face, fill: (value: string) => string): Run[] {
  return tokens.flatMap((token): Run[] => {
    switch (token.type) {
      case 'strong':
        return runsOf((token as Tokens.Strong).tokens, STRONGER[face], fill);
      case 'em':
        return runsOf((token as Tokens.Em).tokens, SLANTED[face], fill);
      case 'del':
        return runsOf((token as Tokens.Del).tokens, face, fill);
      case 'codespan':
        return [{ text: fill((token as Tokens.Codespan).text), face: 'mono' }];
      case 'br':
        return [{ text: '\n', face }];
      case 'link': {
        const link = token as Tokens.Link;
        const shown = runsOf(link.tokens, face, fill);
        return link.href === link.text ? shown : [...shown, { text: ` (${link.href})`, face }];
      }
      case 'text': {
        const text = token as Tokens.Text;
        // A line break inside a paragraph is a space, as Markdown reads it (a hard break is `br`).
        const words = decode(text.text).replace(/\n/g, ' ');
        return text.tokens ? runsOf(text.tokens, face, fill) : [{ text: fill(words), face }];
      }
      case 'escape':
        return [{ text: (token as Tokens.Escape).text, face }];
      default:
        // Inline HTML and images: the text as it was written.
        return [{ text: fill(token.raw), face }];
    }
  });
}

/** The few character references Markdown text keeps as written. */
function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
