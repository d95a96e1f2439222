import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { quote } from '../errors.ts';
import { jsonSchemaValidator, onFirstUse } from '../validation/json-schema.ts';

/** What can be said of data entered into an item, given the item's JSON Schema. */
export interface ItemRules {
  /** Problems of the data as far as it goes (a partial save may leave required fields out), as `path: message`. */
  problems(data: unknown): string[];
  /** The share of the schema's required fields present and valid, 0 to 100 (100 when nothing is required). */
  completion(data: unknown): number;
}

/** The validator of templates and of the item data their schemas describe. */
export const itemSchemaValidator = onFirstUse(() => jsonSchemaValidator({ allErrors: true, strict: false }));
const cache = new Map<string, ItemRules>();

interface ObjectSchema {
  required?: string[];
  properties?: Record<string, unknown>;
  [keyword: string]: unknown;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${quote((error.params as { additionalProperty: string }).additionalProperty)})`
        : '';
    return `${path || '(item)'}: ${error.message ?? 'is not valid'}${extra}`;
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

/** The rules of an item schema, compiled once per distinct schema. */
export function itemRules(schema: ObjectSchema): ItemRules {
  const cacheKey = JSON.stringify(schema);
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const { required = [], ...partialSchema } = schema;
  const partial = itemSchemaValidator().compile(partialSchema);
  const fields = new Map<string, ValidateFunction>(
    required.map((field) => [field, itemSchemaValidator().compile(schema.properties?.[field] ?? {})]),
  );
  const rules: ItemRules = {
    problems: (data) => (partial(data) ? [] : describe(partial.errors)),
    completion(data) {
      if (required.length === 0) return 100;
      const record = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
      const done = required.filter((field) => field in record && fields.get(field)?.(record[field]) === true);
      return Math.floor((100 * done.length) / required.length);
    },
  };
  cache.set(cacheKey, rules);
  return rules;
}
