import type { Queryable } from '../../db/database.ts';
import type { Answer } from './agreement-pdf.ts';
import { placeholdersOf } from './agreement-text.ts';
import type { DocumentSection, DocumentSignature, RenderJob } from './document-pdf.ts';
import { documentWorkers, type DocumentWorkers } from './document-workers.ts';
import { templatePdf } from './template-pdfs.ts';
import { formatMoney, type Money } from '../money.ts';
import { declaredProperties } from '../templates/schema-properties.ts';
import type { DocumentDefinition, ItemDefinition, ProcessDefinition } from '../templates/schema.ts';

export type { DocumentSection, DocumentSignature } from './document-pdf.ts';

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

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** A country by its name in English, from its ISO 3166-1 alpha-2 code. */
function countryName(code: string): string {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code; // not a well-formed code: the schema's pattern refuses those
  }
}

/** A money field's value, when it is one (money-fields.ts); saved data always is. */
function asMoney(value: unknown): Money | undefined {
  const { currency, amount } = (value ?? {}) as { currency?: unknown; amount?: unknown };
  return typeof currency === 'string' && typeof amount === 'number' ? { currency, amount } : undefined;
}

/** The fields of an item in the order its form shows them (`ui.order`, then the schema's). */
function orderedFields(item: ItemDefinition): string[] {
  const properties = Object.keys(declaredProperties(item.schema));
  const order = item.ui?.order ?? [];
  const listed = order.filter((field) => field !== '*' && properties.includes(field));
  return [...listed, ...properties.filter((field) => !listed.includes(field))];
}

/** What a document shows of a revision's answers: its sections, and any one answer by `item.field`. */
export interface Answers {
  sections: DocumentSection[];
  answer(reference: string): Answer | undefined;
}

/**
 * The answers of a revision's items as a document shows them: each item's title and its answered fields,
 * labelled by their schema titles; money formatted, choices by their titles, uploads by their file names, and
 * when each consent was given.
 */
export async function readAnswers(
  tx: Queryable,
  process: ProcessDefinition,
  items: { vulcanKey: string; data: unknown; consents?: Record<string, string> }[],
): Promise<Answers> {
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
    const text = money
      ? formatMoney(money)
      : country
        ? `${countryName(value)} (${value})`
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

/** What a document is made from: a process's revision, its signatures so far, and whether it is a preview. */
export interface DocumentSource {
  organizationId: string;
  transactionId: string;
  process: ProcessDefinition;
  document: DocumentDefinition;
  items: { vulcanKey: string; data: unknown; consents?: Record<string, string> }[];
  signatures: DocumentSignature[];
  preview: boolean;
}

/**
 * Reads what a document shows (answers, file names, the fund's PDF) on the caller's transaction, as a plain job
 * that a document worker makes the PDF from (`makeDocument`).
 */
export async function documentJob(tx: Queryable, options: DocumentSource): Promise<RenderJob> {
  const { process, document: definition } = options;
  const answers = await readAnswers(tx, process, options.items);
  const agreement = definition.agreement;
  let made: RenderJob['agreement'];
  if (agreement?.pdf !== undefined && agreement.sha256 !== undefined) {
    const pdf = await templatePdf(tx, options.organizationId, agreement.sha256);
    if (!pdf) throw new Error(`the agreement PDF ${agreement.sha256} of ${definition.key} is missing`);
    const fields = agreement.fields ?? {};
    const given = Object.values(fields).flatMap((reference) => {
      const answer = answers.answer(reference);
      return answer === undefined ? [] : [[reference, answer] as const];
    });
    made = { pdf, fields, answers: new Map(given), places: agreement.signatures ?? {} };
  } else if (agreement?.text !== undefined) {
    const filled = placeholdersOf(agreement.text).map(({ reference: written }) => {
      const reference = written.trim();
      const answer = answers.answer(reference);
      return [
        reference,
        answer ? answer.text : `[${labelOf(process, reference)}: not answered yet]`,
      ] as const;
    });
    made = { text: agreement.text, filled: new Map(filled) };
  }
  return {
    transactionId: options.transactionId,
    name: definition.title ?? definition.key,
    preview: options.preview,
    signedBy: definition.signedBy,
    signatures: options.signatures,
    sections: answers.sections,
    ...(made === undefined ? {} : { agreement: made }),
  };
}

/**
 * A document's PDF made by a document worker (`workers`, the process's by default), off the event loop:
 * DOCUMENT_TOO_COMPLEX past its time limit, SERVICE_UNAVAILABLE when they are all busy. A preview is made after
 * its reads' transaction ends, so that no database connection waits for it.
 */
export function makeDocument(
  job: RenderJob,
  workers: DocumentWorkers = documentWorkers(),
): Promise<Uint8Array> {
  return workers.render(job);
}

/**
 * A document of a process as a PDF, made from a revision's items: the fund's agreement (its text, or its PDF
 * filled in) with the signatures made so far and the answers as an appendix; without an agreement, the answers
 * themselves. A preview is stamped as one on every page. Read on the caller's transaction (`documentJob`), made
 * by a document worker (`makeDocument`).
 */
export async function renderDocument(
  tx: Queryable,
  options: DocumentSource & { workers?: DocumentWorkers | undefined },
): Promise<Uint8Array> {
  return makeDocument(await documentJob(tx, options), options.workers);
}
