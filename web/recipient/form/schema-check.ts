// Checks data against a JSON Schema by walking the schema, with Ajv's own formats (ajv-formats). Ajv itself
// compiles each schema into a function with `new Function`, which the page's Content-Security-Policy forbids
// (`script-src 'self'`, no 'unsafe-eval'): item schemas come from the server at run time, so they cannot be
// compiled at build time either. The keywords are those of draft-07 and 2020-12 that item forms use; the
// server (Ajv 2020, src/transactions/item-data.ts) stays the judge, this catches mistakes before a round trip.

import { deepEquals } from '@rjsf/utils';
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
  /** The keyword's value and what was found, e.g. `{ limit: 3 }` or `{ format: 'email' }`. */
  params: Record<string, unknown>;
  /** The schema of the field the problem is about (for `required`, the missing property's, when known). */
  schema: { [keyword: string]: unknown };
}

interface Walk {
  root: SchemaNode;
  problems: SchemaProblem[];
  depth: number;
}

/** Deeper than this, a schema is taken to refer to itself without end, and checking stops. */
const MAX_DEPTH = 64;

const patterns = new Map<string, RegExp | null>();

/** The pattern as Ajv compiles it (Unicode), or null when it is not a valid regular expression. */
function patternOf(source: string): RegExp | null {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(source, 'u');
    } catch {
      compiled = null;
    }
    patterns.set(source, compiled);
  }
  return compiled;
}

const formats = fullFormats as Record<string, Format | undefined>;

/** Whether `value` has the `format` (formats Ajv does not know, and values of other types, pass). */
function formatHolds(format: string, value: unknown): boolean {
  const definition = formats[format];
  if (definition === undefined || definition === true || typeof definition === 'string') return true;
  const { validate, type } =
    definition instanceof RegExp || typeof definition === 'function'
      ? { validate: definition, type: 'string' }
      : { validate: definition.validate, type: definition.type ?? 'string' };
  if (type === 'number' ? typeof value !== 'number' : typeof value !== 'string') return true;
  if (validate instanceof RegExp) return validate.test(value as string);
  if (typeof validate === 'string') return patternOf(validate)?.test(value as string) ?? true;
  return (validate as (value: unknown) => boolean | Promise<unknown>)(value) === true;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function typeHolds(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return true;
  }
}

/** Characters as JSON Schema (and Ajv's ucs2length) counts them: code points, so an emoji is one. */
const lengthOf = (text: string) => text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, '_').length;

/** The schema a local `$ref` (`#/$defs/address`, `#/definitions/x`, `#`) points to in `root`. */
function resolveRef(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return typeof node === 'boolean' || isObject(node) ? node : undefined;
}

const numberKeyword = (schema: Record<string, unknown>, keyword: string): number | undefined => {
  const value = schema[keyword];
  return typeof value === 'number' ? value : undefined;
};

function check(schema: SchemaNode, data: unknown, path: (string | number)[], walk: Walk): void {
  if (schema === true) return;
  if (schema === false) {
    walk.problems.push({ path, dataPath: path, keyword: 'false schema', params: {}, schema: {} });
    return;
  }
  if (walk.depth > MAX_DEPTH) return;
  const inner = (sub: unknown, value: unknown, at: (string | number)[]) => {
    if (typeof sub !== 'boolean' && !isObject(sub)) return;
    walk.depth += 1;
    check(sub, value, at, walk);
    walk.depth -= 1;
  };
  const fails = (sub: unknown, value: unknown): boolean => {
    if (typeof sub !== 'boolean' && !isObject(sub)) return false;
    const probe: Walk = { root: walk.root, problems: [], depth: walk.depth + 1 };
    check(sub, value, path, probe);
    return probe.problems.length > 0;
  };
  const problem = (keyword: string, params: Record<string, unknown> = {}) => {
    walk.problems.push({ path, dataPath: path, keyword, params, schema });
  };

  if (typeof schema.$ref === 'string') {
    const target = resolveRef(walk.root, schema.$ref);
    if (target !== undefined) inner(target, data, path);
  }

  const { type } = schema;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? (type as string[]) : [];
  if (types.length > 0 && !types.some((each) => typeHolds(each, data))) {
    // A value of the wrong type breaks the other keywords of its type only by accident: say this alone.
    problem('type', { type: types.join(',') });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((each) => deepEquals(each, data))) {
    problem('enum', { allowedValues: schema.enum });
  }
  if ('const' in schema && !deepEquals(schema.const, data)) {
    problem('const', { allowedValue: schema.const });
  }

  if (typeof data === 'string') {
    const minLength = numberKeyword(schema, 'minLength');
    const maxLength = numberKeyword(schema, 'maxLength');
    if (minLength !== undefined && lengthOf(data) < minLength) problem('minLength', { limit: minLength });
    if (maxLength !== undefined && lengthOf(data) > maxLength) problem('maxLength', { limit: maxLength });
    if (typeof schema.pattern === 'string' && patternOf(schema.pattern)?.test(data) === false) {
      problem('pattern', { pattern: schema.pattern });
    }
  }
  if (typeof schema.format === 'string' && !formatHolds(schema.format, data)) {
    problem('format', { format: schema.format });
  }

  if (typeof data === 'number') {
    const limits: [string, string, (limit: number) => boolean][] = [
      ['minimum', '>=', (limit) => data >= limit],
      ['maximum', '<=', (limit) => data <= limit],
      ['exclusiveMinimum', '>', (limit) => data > limit],
      ['exclusiveMaximum', '<', (limit) => data < limit],
    ];
    for (const [keyword, comparison, holds] of limits) {
      const limit = numberKeyword(schema, keyword);
      if (limit !== undefined && !holds(limit)) problem(keyword, { comparison, limit });
    }
    const multipleOf = numberKeyword(schema, 'multipleOf');
    if (multipleOf !== undefined && multipleOf > 0) {
      const quotient = data / multipleOf;
      if (Math.abs(quotient - Math.round(quotient)) > 1e-9) problem('multipleOf', { multipleOf });
    }
  }

  if (Array.isArray(data)) checkArray(schema, data, path, inner, problem, fails);
  if (isObject(data)) checkObject(schema, data, path, walk, inner, problem);

  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) inner(sub, data, path);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((sub) => !fails(sub, data))) problem('anyOf');
  if (Array.isArray(schema.oneOf)) {
    const passing = schema.oneOf.filter((sub) => !fails(sub, data)).length;
    if (passing !== 1) problem('oneOf', { passing });
  }
  if ('not' in schema && !fails(schema.not, data)) problem('not');
  if ('if' in schema) {
    const branch = fails(schema.if, data) ? schema.else : schema.then;
    if (branch !== undefined) inner(branch, data, path);
  }
}

function checkArray(
  schema: Record<string, unknown>,
  data: unknown[],
  path: (string | number)[],
  inner: (sub: unknown, value: unknown, at: (string | number)[]) => void,
  problem: (keyword: string, params?: Record<string, unknown>) => void,
  fails: (sub: unknown, value: unknown) => boolean,
): void {
  const minItems = numberKeyword(schema, 'minItems');
  const maxItems = numberKeyword(schema, 'maxItems');
  if (minItems !== undefined && data.length < minItems) problem('minItems', { limit: minItems });
  if (maxItems !== undefined && data.length > maxItems) problem('maxItems', { limit: maxItems });
  if (schema.uniqueItems === true) {
    const repeated = data.findIndex((each, index) => data.slice(0, index).some((e) => deepEquals(e, each)));
    if (repeated >= 0) problem('uniqueItems', { index: repeated });
  }
  // Draft-07 tuples (`items: [...]`, `additionalItems`) and 2020-12 ones (`prefixItems`, `items` for the rest).
  const tuple: unknown[] = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.prefixItems)
    ? schema.items
    : Array.isArray(schema.items)
      ? schema.additionalItems
      : schema.items;
  data.forEach((value, index) => {
    const sub = index < tuple.length ? tuple[index] : rest;
    if (sub !== undefined) inner(sub, value, [...path, index]);
  });
  if ('contains' in schema && !data.some((value) => !fails(schema.contains, value))) problem('contains');
}

function checkObject(
  schema: Record<string, unknown>,
  data: Record<string, unknown>,
  path: (string | number)[],
  walk: Walk,
  inner: (sub: unknown, value: unknown, at: (string | number)[]) => void,
  problem: (keyword: string, params?: Record<string, unknown>) => void,
): void {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const propertySchema = (key: string): Record<string, unknown> => {
    const sub = properties[key];
    if (!isObject(sub)) return {};
    const target = typeof sub.$ref === 'string' ? resolveRef(walk.root, sub.$ref) : undefined;
    return isObject(target) ? { ...target, ...sub } : sub;
  };
  const missing = (keys: unknown, params: Record<string, unknown> = {}) => {
    if (!Array.isArray(keys)) return;
    for (const key of keys) {
      if (typeof key !== 'string' || data[key] !== undefined) continue;
      walk.problems.push({
        path: [...path, key],
        dataPath: path,
        keyword: 'required',
        params: { missingProperty: key, ...params },
        schema: propertySchema(key),
      });
    }
  };
  missing(schema.required);

  const keys = Object.keys(data);
  const minProperties = numberKeyword(schema, 'minProperties');
  const maxProperties = numberKeyword(schema, 'maxProperties');
  if (minProperties !== undefined && keys.length < minProperties)
    problem('minProperties', { limit: minProperties });
  if (maxProperties !== undefined && keys.length > maxProperties)
    problem('maxProperties', { limit: maxProperties });

  const patternProperties = isObject(schema.patternProperties) ? schema.patternProperties : {};
  for (const key of keys) {
    const value = data[key];
    // An undefined value is a field left empty: the form's way of saying "no answer".
    if (value === undefined) continue;
    let known = false;
    if (key in properties) {
      known = true;
      inner(properties[key], value, [...path, key]);
    }
    for (const [source, sub] of Object.entries(patternProperties)) {
      if (patternOf(source)?.test(key) === true) {
        known = true;
        inner(sub, value, [...path, key]);
      }
    }
    if (!known && 'additionalProperties' in schema) {
      if (schema.additionalProperties === false) {
        walk.problems.push({
          path: [...path, key],
          dataPath: path,
          keyword: 'additionalProperties',
          params: { additionalProperty: key },
          schema,
        });
      } else {
        inner(schema.additionalProperties, value, [...path, key]);
      }
    }
    if ('propertyNames' in schema) inner(schema.propertyNames, key, [...path, key]);
  }

  const present = (key: string) => data[key] !== undefined;
  // Draft-07 `dependencies` (names or a schema) and 2020-12 `dependentRequired` / `dependentSchemas`.
  const dependencies = isObject(schema.dependencies) ? schema.dependencies : {};
  const dependentRequired = isObject(schema.dependentRequired) ? schema.dependentRequired : {};
  const dependentSchemas = isObject(schema.dependentSchemas) ? schema.dependentSchemas : {};
  for (const [key, dependency] of Object.entries({ ...dependencies, ...dependentRequired })) {
    if (!present(key)) continue;
    if (Array.isArray(dependency)) missing(dependency, { property: key });
    else inner(dependency, data, path);
  }
  for (const [key, sub] of Object.entries(dependentSchemas)) {
    if (present(key)) inner(sub, data, path);
  }
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
  const walk: Walk = { root, problems: [], depth: 0 };
  check(schema, data, [], walk);
  return walk.problems;
}
