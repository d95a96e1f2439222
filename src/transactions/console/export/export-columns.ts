import { minorDigits } from '../../money.ts';
import {
  asMoney,
  countryName,
  orderedFields,
  shown,
  type PropertySchema,
} from '../../templates/answer-text.ts';
import { words } from '../../templates/key-words.ts';
import { declaredProperties } from '../../templates/schema-properties.ts';
import type { ItemDefinition, TemplateDefinition } from '../../templates/schema.ts';
import { inWords } from '../../workflow.ts';

/**
 * The columns of a queue export (export.ts) and each row's cells: the transaction's own facts first, then a
 * column per answer field of the templates the rows use, in the forms' order, each answer as a spreadsheet
 * reads it (money as an amount and a currency, dates as dates, choices by their titles, uploads by their file
 * names). Pure: the rows, answers and file names are read by export.ts.
 */

/** An amount of money in its currency's major units (250000 for $250,000.00), shown with `digits` decimals. */
export interface AmountCell {
  amount: number;
  digits: number;
}

/** A date without a time, as ISO 8601 (`1979-04-18`). */
export interface DateCell {
  date: string;
}

/** A cell: text, a number, a time (a `Date`, in UTC), an amount, a date, or nothing. */
export type Cell = string | number | Date | AmountCell | DateCell | null;

/** A column: its machine key (the second header row), its title (the first) and its width in characters. */
export interface ExportColumn {
  key: string;
  title: string;
  width: number;
}

/** A template of the rows, with its whole definition. */
export interface ExportTemplate {
  id: string;
  key: string;
  name: string;
  version: number;
  definition: TemplateDefinition;
}

/** A transaction as the export reads it (export.ts). */
export interface ExportRow {
  id: string;
  templateId: string;
  state: string;
  investorName: string;
  noticeName: string;
  noticeEmail: string;
  senderName: string;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** A transaction's current answers: each item's data by its `vulcanKey`. */
export type ExportAnswers = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** What a row is turned into cells with. */
export interface ExportSheet {
  columns: ExportColumn[];
  /** The ids of the files a row's upload answers name, whose names its cells show. */
  fileIdsOf(row: ExportRow, answers: ExportAnswers): string[];
  /** A row's cells, one per column. */
  cellsOf(row: ExportRow, answers: ExportAnswers, fileNames: ReadonlyMap<string, string>): Cell[];
}

/** The fixed columns, and the cell each takes from a row and its template. */
const FIXED: {
  key: string;
  title: string;
  width: number;
  cell: (row: ExportRow, template: ExportTemplate | undefined) => Cell;
}[] = [
  { key: 'id', title: 'Transaction', width: 38, cell: (row) => row.id },
  { key: 'investor_name', title: 'Investor', width: 30, cell: (row) => row.investorName },
  { key: 'contact_name', title: 'Contact name', width: 24, cell: (row) => row.noticeName },
  { key: 'contact_email', title: 'Contact e-mail', width: 30, cell: (row) => row.noticeEmail },
  {
    key: 'state_title',
    title: 'State',
    width: 18,
    cell: (row, template) => stateTitle(template, row.state),
  },
  { key: 'template_name', title: 'Template', width: 24, cell: (_, template) => template?.name ?? null },
  {
    key: 'template_version',
    title: 'Template version',
    width: 10,
    cell: (_, template) => template?.version ?? null,
  },
  { key: 'sender_name', title: 'Sender', width: 28, cell: (row) => row.senderName },
  { key: 'created_at', title: 'Created (UTC)', width: 20, cell: (row) => row.createdAt },
  { key: 'updated_at', title: 'Last changed (UTC)', width: 20, cell: (row) => row.updatedAt },
  { key: 'completed_at', title: 'Completed (UTC)', width: 20, cell: (row) => row.completedAt },
];

/** A state's title in its template (as the queue shows it: `stateTitle`), each looked up once per template. */
const stateTitles = new WeakMap<ExportTemplate, Map<string, string>>();
function stateTitle(template: ExportTemplate | undefined, state: string): string {
  if (template === undefined) return words(state);
  const titles = stateTitles.get(template) ?? new Map<string, string>();
  stateTitles.set(template, titles);
  let title = titles.get(state);
  if (title === undefined) {
    title = inWords(template.definition.workflow).state(state);
    titles.set(state, title);
  }
  return title;
}

/** Countries by name, each looked up once (Intl's names cost a few microseconds a time). */
const countries = new Map<string, string>();
function countryCell(code: string): string {
  let name = countries.get(code);
  if (name === undefined) {
    name = countryName(code);
    if (countries.size < 1000) countries.set(code, name);
  }
  return name;
}

/** How a field's answer is read: money, an upload (a file id), a country code, a date, or anything else. */
type FieldKind = 'money' | 'upload' | 'country' | 'date' | 'value';

/** A top-level field of an item of a template. */
interface TemplateField {
  vulcanKey: string;
  field: string;
  kind: FieldKind;
  schema: PropertySchema | undefined;
  title: string;
  itemTitle: string;
}

/** An answer field's place in the export: one column, or two for money (the amount, then the currency). */
interface Slot {
  key: string;
  vulcanKey: string;
  field: string;
  title: string;
  itemTitle: string;
  money: boolean;
}

const NO_FILES: ReadonlyMap<string, string> = new Map();
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Each currency's decimals, looked up once (`minorDigits` asks Intl each time). */
const digitsOf = new Map<string, number>();
function currencyDigits(currency: string): number {
  let digits = digitsOf.get(currency);
  if (digits === undefined) {
    try {
      digits = minorDigits(currency);
    } catch {
      digits = 2; // not a currency Intl knows: the import refuses those
    }
    digitsOf.set(currency, digits);
  }
  return digits;
}

function kindOf(item: ItemDefinition, field: string, schema: PropertySchema | undefined): FieldKind {
  if (item.money?.[field] !== undefined) return 'money';
  if (item.uploads?.[field] !== undefined) return 'upload';
  if (item.ui?.fields?.[field]?.widget === 'country') return 'country';
  if (schema?.format === 'date') return 'date';
  return 'value';
}

/** Every top-level field of every item of every process of a template, in the forms' order. */
function fieldsOf(definition: TemplateDefinition): TemplateField[] {
  return definition.processes.flatMap((process) =>
    process.items.flatMap((item) => {
      const properties = declaredProperties(item.schema) as Record<string, PropertySchema | undefined>;
      return orderedFields(item).map((field) => {
        const schema = properties[field];
        return {
          vulcanKey: item.vulcanKey,
          field,
          kind: kindOf(item, field, schema),
          schema,
          title: schema?.title ?? field,
          itemTitle: item.title ?? item.vulcanKey,
        };
      });
    }),
  );
}

/**
 * The headers of the answer columns: each field's title, with its item's title when another column has the same
 * title ("Amount (Subscription amount)"), or its key when even that is not unique.
 */
function headersOf(slots: readonly Slot[]): string[] {
  const count = (titles: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const title of [...FIXED.map((column) => column.title), ...titles]) {
      counts.set(title.toLowerCase(), (counts.get(title.toLowerCase()) ?? 0) + 1);
    }
    return (title: string) => counts.get(title.toLowerCase()) ?? 0;
  };
  const plain = count(slots.map((slot) => slot.title));
  const withItem = slots.map((slot) =>
    plain(slot.title) > 1 ? `${slot.title} (${slot.itemTitle})` : slot.title,
  );
  const again = count(withItem);
  return slots.map((slot, index) => {
    const header = withItem[index] ?? slot.title;
    return again(header) > 1 ? `${slot.title} (${slot.key})` : header;
  });
}

/** A width that fits a header, within reason. */
const widthOf = (header: string, least = 12) => Math.min(40, Math.max(least, header.length + 2));

/**
 * The sheet of an export over `templates` (the templates the rows use, each key's newest version first): the
 * fixed columns, then each answer field once (by `<vulcanKey>.<field>`, where the first template that has it
 * puts it), a money field as two columns wherever any template makes it money.
 */
export function exportSheet(templates: readonly ExportTemplate[]): ExportSheet {
  const byId = new Map(templates.map((template) => [template.id, template]));
  const slots = new Map<string, Slot>();
  const fieldsByTemplate = new Map<string, Map<string, TemplateField>>();
  for (const template of templates) {
    const fields = new Map<string, TemplateField>();
    for (const field of fieldsOf(template.definition)) {
      const key = `${field.vulcanKey}.${field.field}`;
      if (fields.has(key)) continue; // a vulcanKey twice in one template: the first item answers
      fields.set(key, field);
      const slot = slots.get(key);
      if (slot === undefined) {
        const { vulcanKey, title, itemTitle } = field;
        slots.set(key, {
          key,
          vulcanKey,
          field: field.field,
          title,
          itemTitle,
          money: field.kind === 'money',
        });
      } else if (field.kind === 'money') slot.money = true;
    }
    fieldsByTemplate.set(template.id, fields);
  }
  const answerSlots = [...slots.values()];
  const headers = headersOf(answerSlots);
  const columns: ExportColumn[] = [
    ...FIXED.map(({ key, title, width }) => ({ key, title, width })),
    ...answerSlots.flatMap((slot, index): ExportColumn[] => {
      const title = headers[index] ?? slot.title;
      if (!slot.money) return [{ key: slot.key, title, width: widthOf(title) }];
      return [
        { key: slot.key, title, width: widthOf(title, 14) },
        { key: `${slot.key}.currency`, title: `${title} currency`, width: 10 },
      ];
    }),
  ];
  const uploads = new Map(
    [...fieldsByTemplate].map(([id, fields]) => [
      id,
      [...fields.values()].filter((field) => field.kind === 'upload'),
    ]),
  );

  return {
    columns,
    fileIdsOf(row, answers) {
      return (uploads.get(row.templateId) ?? []).flatMap((field) => {
        const value = answers.get(field.vulcanKey)?.[field.field];
        return typeof value === 'string' && UUID.test(value) ? [value] : [];
      });
    },
    cellsOf(row, answers, fileNames) {
      const template = byId.get(row.templateId);
      const fields = fieldsByTemplate.get(row.templateId);
      const cells = FIXED.map((column) => column.cell(row, template));
      for (const slot of answerSlots) {
        const field = fields?.get(slot.key);
        const value = field === undefined ? undefined : answers.get(slot.vulcanKey)?.[slot.field];
        const money = field?.kind === 'money' ? asMoney(value) : undefined;
        if (money !== undefined) {
          const digits = currencyDigits(money.currency);
          cells.push({ amount: money.amount / 10 ** digits, digits }, money.currency);
          continue;
        }
        cells.push(field === undefined ? null : answerCell(value, field, fileNames));
        if (slot.money) cells.push(null);
      }
      return cells;
    },
  };
}

/**
 * An answer as a cell: unanswered as nothing; an upload by its file's name; a country by its name; a date as a
 * date; a number as a number; anything else in words as the review shows it (yes/no, choices by their titles).
 */
function answerCell(value: unknown, field: TemplateField, fileNames: ReadonlyMap<string, string>): Cell {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string') {
    if (field.kind === 'upload') return fileNames.get(value) ?? value;
    if (field.kind === 'country') return countryCell(value);
    if (field.kind === 'date' && ISO_DATE.test(value)) return { date: value };
  }
  if (typeof value === 'number' && field.schema?.oneOf === undefined) return value;
  return shown(value, field.schema, NO_FILES);
}
