import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { quote } from '../../errors.ts';
import { jsonSchemaValidator, onFirstUse } from '../../validation/json-schema.ts';
import { boundedSchema, dataSizeProblems, lengthProblem, MAX_DATA_BYTES } from './answer-bounds.ts';

/** What can be said of data entered into an item, given the item's JSON Schema and bounds. */
export interface ItemRules {
  /**
   * Problems of the data as far as it goes (a partial save may leave required fields out), as `path: message`:
   * what breaks the item's schema, with the bounds every answer keeps (answer-bounds.ts) written in.
   */
  problems(data: unknown): string[];
  /**
   * The share of the schema's required fields and consents present and valid, 0 to 100 (100 when nothing is
   * required).
   */
  completion(data: unknown): number;
  /** The item's consent fields ({@link consentFields}). */
  consents: readonly string[];
  /** The consent fields that `data` carries with anything but `true` (refused: only the recipient's true gives one). */
  withheldConsents(data: unknown): string[];
  /** The required fields and consents not yet present and valid in `data`, in the schema's order. */
  missing(data: unknown): string[];
}

/** The validator of templates and of the item data their schemas describe. */
export const itemSchemaValidator = onFirstUse(() => jsonSchemaValidator({ allErrors: true, strict: false }));
const cache = new Map<string, ItemRules>();

interface ObjectSchema {
  required?: string[];
  properties?: Record<string, unknown>;
  [keyword: string]: unknown;
}

/** What the rules of an item are made from: its schema, and the most its data may take (`maxDataBytes`). */
export interface ItemShape {
  schema: ObjectSchema;
  maxDataBytes?: number | undefined;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${quote((error.params as { additionalProperty: string }).additionalProperty)})`
        : '';
    const message =
      error.keyword === 'maxLength'
        ? lengthProblem((error.params as { limit: number }).limit)
        : (error.message ?? 'is not valid');
    return `${path || '(item)'}: ${message}${extra}`;
  });
}

/** How many problems a message lists; data with many more would make a message as long as the data. */
const LISTED_PROBLEMS = 10;
/** How many problems an error's `problems` detail holds at most. */
export const MAX_PROBLEM_DETAILS = 100;

/** Problems as a message lists them: the first ten, then how many more there are. */
export function listProblems(problems: readonly string[]): string {
  const listed = problems.slice(0, LISTED_PROBLEMS).join('; ');
  const more = problems.length - LISTED_PROBLEMS;
  return more > 0 ? `${listed}; and ${more} more` : listed;
}

/**
 * The consent fields of an item schema: its top-level booleans that must be `true` (`const: true`). A consent is
 * given only by the recipient sending `true`; nothing fills it in, and it counts as required for completion
 * whether or not the schema lists it in `required` (a consent that could stay unanswered would mean nothing).
 *
 * @example
 * consentFields({ type: 'object', properties: { confirmed: { type: 'boolean', const: true } } }); // ['confirmed']
 */
export function consentFields(schema: ObjectSchema): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => {
      const node = property as { type?: unknown; const?: unknown } | null;
      return typeof node === 'object' && node !== null && node.type === 'boolean' && node.const === true;
    })
    .map(([field]) => field);
}

const recordOf = (data: unknown): Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};

/**
 * The rules of an item, compiled once per distinct schema and bound. Data larger than the item takes is refused
 * before its schema reads it.
 */
export function itemRules(item: ItemShape): ItemRules {
  const maxBytes = Math.min(item.maxDataBytes ?? MAX_DATA_BYTES, MAX_DATA_BYTES);
  const cacheKey = JSON.stringify([item.schema, maxBytes]);
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const schema = boundedSchema(item.schema);
  const { required: listed = [], ...partialSchema } = schema;
  const partial = itemSchemaValidator().compile(partialSchema);
  const consents = consentFields(schema);
  const required = [...new Set([...listed, ...consents])];
  const fields = new Map<string, ValidateFunction>(
    required.map((field) => [field, itemSchemaValidator().compile(schema.properties?.[field] ?? {})]),
  );
  const missing = (data: unknown) => {
    const record = recordOf(data);
    return required.filter((field) => !(field in record && fields.get(field)?.(record[field]) === true));
  };
  const rules: ItemRules = {
    problems(data) {
      const tooLarge = dataSizeProblems(data, schema, maxBytes);
      if (tooLarge.length > 0) return tooLarge;
      return partial(data) ? [] : describe(partial.errors);
    },
    completion(data) {
      if (required.length === 0) return 100;
      return Math.floor((100 * (required.length - missing(data).length)) / required.length);
    },
    consents,
    withheldConsents(data) {
      const record = recordOf(data);
      return consents.filter((field) => field in record && record[field] !== true);
    },
    missing,
  };
  cache.set(cacheKey, rules);
  return rules;
}
