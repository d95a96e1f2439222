import type { Queryable } from '../../db/database.ts';
import type { Answer } from '../documents/agreement-pdf.ts';
import type { DocumentSection } from '../documents/document-pdf.ts';
import { formatMoney, type Money } from '../money.ts';
import { declaredProperties, isConditional } from './schema-properties.ts';
import type { ItemDefinition, ProcessDefinition, TemplateDefinition } from './schema.ts';

/**
 * Answers in words: a revision's answers as people read them, by the template's titles (fields, choices), with
 * money formatted, countries by name and uploads by their file names. What a signed document lists and fills in,
 * and what the console's review shows.
 */

/** The part of a field's JSON schema that answers in words read: its title, type, format, choices and parts. */
export interface PropertySchema {
  title?: string;
  type?: string;
  format?: string;
  oneOf?: { const?: unknown; title?: string }[];
  items?: PropertySchema;
  properties?: Record<string, PropertySchema>;
}

/** A value as a signer reads it: choices by their titles, yes/no, uploaded files by their names. */
export function shown(
  value: unknown,
  schema: PropertySchema | undefined,
  fileNames: ReadonlyMap<string, string>,
): string {
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

const dates = new Intl.DateTimeFormat('en', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** A date field's answer (`format: date`, `1979-04-18`) as `April 18, 1979`; anything else unchanged. */
function dateText(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? dates.format(new Date(`${value}T00:00:00Z`)) : value;
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** A country by its name in English, from its ISO 3166-1 alpha-2 code. */
export function countryName(code: string): string {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code; // not a well-formed code: the schema's pattern refuses those
  }
}

/** A money field's value, when it is one (money-fields.ts); saved data always is. */
export function asMoney(value: unknown): Money | undefined {
  const { currency, amount } = (value ?? {}) as { currency?: unknown; amount?: unknown };
  return typeof currency === 'string' && typeof amount === 'number' ? { currency, amount } : undefined;
}

/** The fields of an item in the order its form shows them (`ui.order`, then the schema's). */
export function orderedFields(item: ItemDefinition): string[] {
  const properties = Object.keys(declaredProperties(item.schema));
  const order = item.ui?.order ?? [];
  const listed = order.filter((field) => field !== '*' && properties.includes(field));
  return [...listed, ...properties.filter((field) => !listed.includes(field))];
}

/** What a document shows of a revision's answers: its sections, and any one answer by `item.field`. */
export interface Answers {
  sections: DocumentSection[];
  answer(reference: string): Answer | undefined;
  /**
   * Every field of an item as its form asks it, in the form's order, answered or not (a field the form asks
   * only under a condition, once answered): what a reviewer reads.
   */
  fields(vulcanKey: string): AnsweredField[];
}

/** A field of an item with its answer in words, as a reviewer reads it. */
export interface AnsweredField {
  /** The field's key in the item's data. */
  key: string;
  /** Its title in the template, else its key. */
  label: string;
  /** The answer in words (choices by their titles, money formatted, a file by its name); null when unanswered. */
  text: string | null;
  /** The uploaded file it names, for a link; null for any other field. */
  file: { id: string; name: string } | null;
}

/**
 * The answers of a revision's items as a document shows them: each item's title and its answered fields,
 * labelled by their schema titles; money formatted, choices by their titles, uploads by their file names, and
 * when each consent was given.
 */
export async function readAnswers(
  tx: Queryable,
  options: {
    organizationId: string;
    process: ProcessDefinition;
    items: readonly { vulcanKey: string; data: unknown; consents?: Record<string, string> | undefined }[];
  },
): Promise<Answers> {
  const { process, items } = options;
  const ids = items.flatMap((item) =>
    Object.values((item.data ?? {}) as Record<string, unknown>).filter(
      (value): value is string => typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value),
    ),
  );
  const files =
    ids.length === 0
      ? []
      : await tx.query<{ id: string; name: string }>(
          `select id, coalesce(override_filename, original_filename) as name from files
           where organization_id = $1 and id = any($2::uuid[])`,
          [options.organizationId, ids],
        );
  const fileNames = new Map(files.map((file) => [file.id, file.name]));
  interface Found {
    item: ItemDefinition;
    data: Record<string, unknown>;
    consents: Record<string, string>;
  }
  const itemOf = (vulcanKey: string): Found | undefined => {
    const item = process.items.find((candidate) => candidate.vulcanKey === vulcanKey);
    const row = items.find((candidate) => candidate.vulcanKey === vulcanKey);
    return (
      item && { item, data: (row?.data ?? {}) as Record<string, unknown>, consents: row?.consents ?? {} }
    );
  };
  // A consent says when it was given: the signer reads that it was an act, and when.
  const topLevel = (vulcanKey: string, field: string): Answer => {
    const { item, data, consents } = itemOf(vulcanKey) as Found;
    const properties = declaredProperties(item.schema) as Record<string, PropertySchema>;
    const money = item.money?.[field] === undefined ? undefined : asMoney(data[field]);
    const value = data[field];
    const country = item.ui?.fields?.[field]?.widget === 'country' && typeof value === 'string';
    const date = properties[field]?.format === 'date' && typeof value === 'string';
    const text = money
      ? formatMoney(money)
      : country
        ? `${countryName(value)} (${value})`
        : date
          ? dateText(value)
          : shown(value, properties[field], fileNames);
    const given = value === true ? consents[field] : undefined;
    const givenAt =
      given === undefined ? undefined : `${new Date(given).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    return { value, text: givenAt === undefined ? text : `${text}, given ${givenAt}` };
  };
  const answered = (value: unknown) => value !== undefined && value !== null && value !== '';
  return {
    sections: process.items.map((item) => {
      const data = itemOf(item.vulcanKey)?.data ?? {};
      const properties = declaredProperties(item.schema) as Record<string, PropertySchema>;
      return {
        title: item.title ?? item.vulcanKey,
        fields: orderedFields(item)
          .filter((field) => answered(data[field]))
          .map((field) => ({
            label: properties[field]?.title ?? field,
            value: topLevel(item.vulcanKey, field).text,
          })),
      };
    }),
    fields(vulcanKey) {
      const found = itemOf(vulcanKey);
      if (!found) return [];
      const properties = declaredProperties(found.item.schema) as Record<string, PropertySchema>;
      return orderedFields(found.item)
        .filter((field) => answered(found.data[field]) || !isConditional(found.item.schema, field))
        .map((field) => {
          const value = found.data[field];
          const name = found.item.uploads?.[field] !== undefined && typeof value === 'string';
          return {
            key: field,
            label: properties[field]?.title ?? field,
            text: answered(value) ? topLevel(vulcanKey, field).text : null,
            file: name && fileNames.has(value) ? { id: value, name: fileNames.get(value) ?? '' } : null,
          };
        });
    },
    answer(reference) {
      const [vulcanKey = '', field = '', ...nested] = reference.split('.');
      const found = itemOf(vulcanKey);
      if (!found) return undefined;
      if (nested.length === 0) return answered(found.data[field]) ? topLevel(vulcanKey, field) : undefined;
      let value: unknown = found.data[field];
      let schema = (declaredProperties(found.item.schema) as Record<string, PropertySchema>)[field];
      for (const name of nested) {
        value = (value as Record<string, unknown> | undefined)?.[name];
        schema = schema?.properties?.[name];
      }
      return answered(value) ? { value, text: shown(value, schema, fileNames) } : undefined;
    },
  };
}

/** The title of the field an answer reference names, for a blank in a preview. */
export function labelOf(process: ProcessDefinition, reference: string): string {
  const [vulcanKey = '', ...path] = reference.split('.');
  let schema = process.items.find((item) => item.vulcanKey === vulcanKey)?.schema as
    PropertySchema | undefined;
  for (const name of path) schema = schema?.properties?.[name];
  return schema?.title ?? path[path.length - 1] ?? reference;
}

/** `Full legal name (About you)`: a field of a template by its title and its item's, else by their keys. */
export function fieldInWords(definition: TemplateDefinition, vulcanKey: string, field: string): string {
  const item = definition.processes
    .flatMap((process) => process.items)
    .find((candidate) => candidate.vulcanKey === vulcanKey);
  const property = declaredProperties(item?.schema)[field] as { title?: unknown } | undefined;
  const title = typeof property?.title === 'string' ? property.title : field;
  return `${title} (${item?.title ?? vulcanKey})`;
}
