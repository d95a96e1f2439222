// Checks data against a JSON Schema with @cfworker/json-schema, which reads the schema as it goes: Ajv compiles
// each schema into a function with `new Function`, which the page's Content-Security-Policy forbids
// (`script-src 'self'`, no 'unsafe-eval'), and item schemas come from the server at run time, so they cannot be
// compiled at build time either. The server (Ajv 2020, src/transactions/templates/item-data.ts) stays the judge, this
// catches mistakes before a round trip. What is ours is turning the validator's errors into problems of fields.

import { dereference, format, validate, type OutputUnit, type Schema } from '@cfworker/json-schema';
import type { Format } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** A schema as JSON Schema allows it: an object of keywords, or `true` / `false`. */
export type SchemaNode = boolean | { [keyword: string]: unknown };

/** One way the data breaks the schema. */
export interface SchemaProblem {
  /**
   * The field the problem is about, from the root of the data: for `required`, the missing field (so that its
   * message shows next to it); otherwise the value that breaks the keyword.
   */
  path: (string | number)[];
  /** The value the keyword is about: the object, for `required`. */
  dataPath: (string | number)[];
  /** The keyword broken: `required`, `pattern`, `format`, `minLength`, `oneOf`, `type`… */
  keyword: string;
  /** The keyword's value, named as Ajv names it: `{ limit: 3 }`, `{ format: 'email' }`, `{ missingProperty }`. */
  params: Record<string, unknown>;
  /** The schema of the field the problem is about (for `required`, the missing property's, when known). */
  schema: { [keyword: string]: unknown };
}

type Lookup = Record<string, Schema | boolean>;

// The library's formats are looser than Ajv's (its e-mail takes `ada@example`, which the server refuses): it
// checks with Ajv's own (ajv-formats: regular expressions and functions, no `eval`) so that the page refuses
// what the server would. The library checks formats of strings only, as do all the formats item forms use.
for (const name of Object.keys(format)) Reflect.deleteProperty(format, name);
for (const [name, definition] of Object.entries(fullFormats as Record<string, Format>)) {
  if (definition === true || typeof definition === 'string') continue;
  const { validate: holds, type = 'string' } =
    definition instanceof RegExp || typeof definition === 'function' ? { validate: definition } : definition;
  if (type !== 'string') continue;
  const test = typeof holds === 'string' ? new RegExp(holds, 'u') : holds;
  format[name] = (value) =>
    test instanceof RegExp ? test.test(value) : (test as (value: string) => unknown)(value) === true;
}

/** The keywords whose value a problem carries, under Ajv's name for it. */
const PARAM_NAMES: Record<string, string | undefined> = {
  type: 'type',
  format: 'format',
  pattern: 'pattern',
  multipleOf: 'multipleOf',
  minLength: 'limit',
  maxLength: 'limit',
  minItems: 'limit',
  maxItems: 'limit',
  minProperties: 'limit',
  maxProperties: 'limit',
  minimum: 'limit',
  maximum: 'limit',
  exclusiveMinimum: 'limit',
  exclusiveMaximum: 'limit',
  enum: 'allowedValues',
  const: 'allowedValue',
};

/** Errors that only say that a subschema failed: the subschema's own errors follow them. */
const WRAPPERS = new Set([
  '$ref',
  '$recursiveRef',
  'allOf',
  'if',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'prefixItems',
  'items',
  'additionalItems',
  'unevaluatedItems',
]);

/** Keywords met by one of several subschemas: their problem is said alone, not each subschema's. */
const ALTERNATIVES = new Set(['anyOf', 'oneOf', 'contains']);

/** Keywords that name fields that must be there: `required`, and the draft-07 and 2020-12 dependent ones. */
const REQUIRING = new Set(['required', 'dependentRequired', 'dependencies']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The segments of a JSON pointer in a URI fragment (`#/properties/a~1b` → `properties`, `a/b`). */
const segmentsOf = (pointer: string) =>
  pointer
    .split('/')
    .slice(1)
    .map((segment) => decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~'));

/** The schema a node's `$ref` points to, as the validator resolved it. */
function refTarget(node: Record<string, unknown>, lookup: Lookup): SchemaNode | undefined {
  const ref = (node as Schema).__absolute_ref__ ?? node.$ref;
  return typeof ref === 'string' ? lookup[ref] : undefined;
}

/** The schema object holding the keyword at `keywordLocation` (through `$ref`s), or `{}`. */
function holderOf(schema: SchemaNode, keywordLocation: string, lookup: Lookup): Record<string, unknown> {
  let node: unknown = schema;
  // The last segment is the keyword, left out (the library spells `dependentRequired`'s `dependantRequired`).
  for (const segment of segmentsOf(keywordLocation).slice(0, -1)) {
    if (isObject(node) && segment === '$ref' && typeof node.$ref === 'string') node = refTarget(node, lookup);
    else if (isObject(node) || Array.isArray(node)) node = (node as Record<string, unknown>)[segment];
    else return {};
  }
  return isObject(node) ? node : {};
}

/** The path of the value at `instanceLocation` (array indexes as numbers), and that value. */
function valueAt(data: unknown, instanceLocation: string): { path: (string | number)[]; value: unknown } {
  const path: (string | number)[] = [];
  let value = data;
  for (const segment of segmentsOf(instanceLocation)) {
    const step = Array.isArray(value) ? Number(segment) : segment;
    path.push(step);
    value = isObject(value) || Array.isArray(value) ? (value as Record<string, unknown>)[step] : undefined;
  }
  return { path, value };
}

/** The schema of property `key` in `holder`, with what its `$ref` points to. */
function propertySchema(holder: Record<string, unknown>, key: string, lookup: Lookup) {
  const sub = isObject(holder.properties) ? holder.properties[key] : undefined;
  if (!isObject(sub)) return {};
  const target = typeof sub.$ref === 'string' ? refTarget(sub, lookup) : undefined;
  return isObject(target) ? { ...target, ...sub } : sub;
}

/**
 * The fields a requiring keyword of `holder` finds missing in `value` (the validator says only that some are),
 * with the field that requires them for the dependent keywords.
 */
function missingFields(keyword: string, holder: Record<string, unknown>, value: unknown) {
  if (!isObject(value)) return [];
  const lists: [unknown, Record<string, unknown>][] =
    keyword === 'required'
      ? [[holder.required, {}]]
      : Object.entries(isObject(holder[keyword]) ? holder[keyword] : {})
          .filter(([key]) => Object.hasOwn(value, key))
          .map(([key, names]) => [names, { property: key }]);
  return lists.flatMap(([names, params]) =>
    (Array.isArray(names) ? names : [])
      .filter((name): name is string => typeof name === 'string' && !Object.hasOwn(value, name))
      .map((name) => ({ name, params })),
  );
}

/** The validator's errors as problems of fields, in its order. */
function problemsOf(errors: OutputUnit[], schema: SchemaNode, data: unknown, lookup: Lookup) {
  const problems: SchemaProblem[] = [];
  const alternatives: OutputUnit[] = [];
  const requirings = new Set<string>();
  errors.forEach((error, index) => {
    const previous = errors[index - 1];
    // A `false` schema's error has the value's location for its keyword's: it belongs to the error before it.
    const location =
      error.keyword === 'false' && previous ? `${previous.keywordLocation}/` : error.keywordLocation;
    const inAlternative = alternatives.some(
      (alternative) =>
        location.startsWith(`${alternative.keywordLocation}/`) &&
        `${error.instanceLocation}/`.startsWith(`${alternative.instanceLocation}/`),
    );
    if (inAlternative || WRAPPERS.has(error.keyword)) return;
    if (ALTERNATIVES.has(error.keyword)) alternatives.push(error);
    const { path, value } = valueAt(data, error.instanceLocation);
    if (error.keyword === 'false') {
      const [key] = path.slice(-1);
      const notAsked = previous?.keyword === 'additionalProperties' && typeof key === 'string';
      problems.push({
        path,
        dataPath: notAsked ? path.slice(0, -1) : path,
        keyword: notAsked ? 'additionalProperties' : 'false schema',
        params: notAsked ? { additionalProperty: key } : {},
        schema: notAsked ? holderOf(schema, previous.keywordLocation, lookup) : {},
      });
      return;
    }
    const holder = holderOf(schema, error.keywordLocation, lookup);
    if (REQUIRING.has(error.keyword)) {
      // One error per missing field, all alike: the first names them all.
      const once = `${error.keywordLocation} ${error.instanceLocation}`;
      if (requirings.has(once)) return;
      requirings.add(once);
      for (const { name, params } of missingFields(error.keyword, holder, value)) {
        problems.push({
          path: [...path, name],
          dataPath: path,
          keyword: 'required',
          params: { missingProperty: name, ...params },
          schema: propertySchema(holder, name, lookup),
        });
      }
      return;
    }
    const param = PARAM_NAMES[error.keyword];
    const params = param !== undefined && error.keyword in holder ? { [param]: holder[error.keyword] } : {};
    problems.push({ path, dataPath: path, keyword: error.keyword, params, schema: holder });
  });
  return problems;
}

/**
 * Every way `data` breaks `schema` (none when it fits), `$ref`s resolved in `root`.
 *
 * @example
 * schemaProblems({ type: 'object', required: ['email'] }, {});
 * // [{ path: ['email'], dataPath: [], keyword: 'required', params: { missingProperty: 'email' }, schema: {} }]
 */
export function schemaProblems(
  schema: SchemaNode,
  data: unknown,
  root: SchemaNode = schema,
): SchemaProblem[] {
  // An empty field is `undefined` in the form's data: an answer left out, as JSON has it.
  const instance: unknown = data === undefined ? null : JSON.parse(JSON.stringify(data));
  let lookup: Lookup;
  let errors: OutputUnit[];
  try {
    lookup = dereference(root);
    // A part of `root` (an option rjsf tries) gets a place in it, for its `$ref`s to find their targets there.
    if (schema !== root) dereference(schema, lookup, undefined, '/~checked');
    ({ errors } = validate(instance, schema, '2020-12', lookup, false));
  } catch {
    // A `$ref` to another document, a pattern JavaScript cannot read, a schema without end: the server judges.
    return [];
  }
  return problemsOf(errors, schema, instance, lookup);
}
