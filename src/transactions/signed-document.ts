import type { PDFFont } from 'pdf-lib';
import type { Queryable } from '../db/database.ts';
import { formatMoney, type Money } from './money.ts';
import type { ItemDefinition, ProcessDefinition } from './template-schema.ts';

/** One item of a document as people read it: its title and each answered field's label and value. */
export interface DocumentSection {
  title: string;
  fields: { label: string; value: string }[];
}

export interface SignedDocumentContent {
  title: string;
  transactionId: string;
  /** What the signers agree to: the items of the revision, as labelled answers. */
  sections: DocumentSection[];
  signatures: { role: string; signedName: string; signedAt: Date }[];
}

interface PropertySchema {
  title?: string;
  type?: string;
  oneOf?: { const?: unknown; title?: string }[];
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
}

/** A value as a signer reads it: choices by their titles, yes/no, uploaded files by their names. */
function shown(value: unknown, schema: PropertySchema | undefined, fileNames: Map<string, string>): string {
  const titleOf = (choice: unknown, of: PropertySchema | undefined) =>
    of?.oneOf?.find((option) => option.const === choice)?.title ?? String(choice);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.map((entry) => titleOf(entry, schema?.items)).join('; ');
  if (typeof value === 'string' && fileNames.has(value))
    return `${fileNames.get(value) ?? ''} (uploaded file)`;
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(
        ([key, inner]) =>
          `${schema?.properties?.[key]?.title ?? key}: ${shown(inner, schema?.properties?.[key], fileNames)}`,
      )
      .join(', ');
  }
  return titleOf(value, schema);
}

/** A money field's value, when it is one (money-fields.ts); saved data always is. */
function asMoney(value: unknown): Money | undefined {
  const { currency, amount } = (value ?? {}) as { currency?: unknown; amount?: unknown };
  return typeof currency === 'string' && typeof amount === 'number' ? { currency, amount } : undefined;
}

/** The fields of an item in the order its form shows them (`ui.order`, then the schema's). */
function orderedFields(item: ItemDefinition): string[] {
  const properties = Object.keys((item.schema as PropertySchema).properties ?? {});
  const order = item.ui?.order ?? [];
  const listed = order.filter((field) => field !== '*' && properties.includes(field));
  return [...listed, ...properties.filter((field) => !listed.includes(field))];
}

/**
 * The sections of a document of `process` from the data of a revision's items: each item's title and its
 * answered fields, labelled by their schema titles; uploads named by their file names.
 */
export async function documentSections(
  tx: Queryable,
  process: ProcessDefinition,
  items: { vulcanKey: string; data: unknown; consents?: Record<string, string> }[],
): Promise<DocumentSection[]> {
  const ids = items.flatMap((item) =>
    Object.values((item.data ?? {}) as Record<string, unknown>).filter(
      (value): value is string => typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value),
    ),
  );
  const files =
    ids.length === 0
      ? []
      : await tx.query<{ id: string; name: string }>(
          'select id, original_filename as name from files where id = any($1::uuid[])',
          [ids],
        );
  const fileNames = new Map(files.map((file) => [file.id, file.name]));
  return process.items.map((item) => {
    const row = items.find((candidate) => candidate.vulcanKey === item.vulcanKey);
    const data = (row?.data ?? {}) as Record<string, unknown>;
    const consents = row?.consents ?? {};
    const properties = (item.schema as PropertySchema).properties ?? {};
    // A consent says when it was given: the signer reads that it was an act, and when.
    const valueOf = (field: string) => {
      const money = item.money?.[field] === undefined ? undefined : asMoney(data[field]);
      const value = money ? formatMoney(money) : shown(data[field], properties[field], fileNames);
      const given = data[field] === true ? consents[field] : undefined;
      return given === undefined ? value : `${value}. Given at ${given}`;
    };
    return {
      title: item.title ?? item.vulcanKey,
      fields: orderedFields(item)
        .filter((field) => data[field] !== undefined && data[field] !== null && data[field] !== '')
        .map((field) => ({
          label: properties[field]?.title ?? field,
          value: valueOf(field),
        })),
    };
  });
}

/** Lines of at most `width` points in `font` at `size`, breaking at spaces. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (line !== '' && font.widthOfTextAtSize(candidate, size) > width) {
        lines.push(line);
        line = word;
      } else line = candidate;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * A PDF of a document: its title, the labelled answers it was made from, and who signed it when (or, for a
 * preview, that nobody has yet).
 */
export async function renderSignedDocument(content: SignedDocumentContent): Promise<Uint8Array> {
  // Loaded when a document is first signed or previewed, not at every start (about 100 ms).
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  document.setTitle(content.title);
  let page = document.addPage([612, 792]);
  let y = 720;
  const write = (text: string, options: { size?: number; strong?: boolean; indent?: number } = {}) => {
    const size = options.size ?? 11;
    const face = options.strong ? bold : font;
    const x = 72 + (options.indent ?? 0);
    // The standard fonts encode WinAnsi only: anything else is shown as '?'.
    const printable = text.replace(/[^\x20-\x7e\xa0-\xff\n]/g, '?');
    for (const line of wrap(printable, face, size, 540 - x)) {
      if (y < 72) {
        page = document.addPage([612, 792]);
        y = 720;
      }
      page.drawText(line, { x, y, size, font: face });
      y -= size + 6;
    }
  };
  write(content.title, { size: 18, strong: true });
  write(`Transaction ${content.transactionId}`, { size: 9 });
  y -= 10;
  for (const section of content.sections) {
    write(section.title, { size: 13, strong: true });
    if (section.fields.length === 0) write('(not answered)', { indent: 12 });
    for (const field of section.fields) write(`${field.label}: ${field.value}`, { indent: 12 });
    y -= 8;
  }
  write('Signatures', { size: 13, strong: true });
  if (content.signatures.length === 0) write('Not signed yet.', { indent: 12 });
  for (const signature of content.signatures) {
    write(
      `Signed electronically by ${signature.signedName} (${signature.role}) on ${signature.signedAt.toISOString().replace('T', ' ').slice(0, 16)} UTC`,
      { indent: 12 },
    );
  }
  return document.save();
}
