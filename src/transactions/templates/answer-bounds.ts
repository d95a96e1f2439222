// The bounds every answer keeps, whatever its template says: a recipient's save, an integrator's inputData, the
// page's form and the agreement written from them all read them here. Without them one answer could be as long as
// a request body (1 MiB), and everything that reads it (a PDF laid out from it) would pay for that.
import type { PathSegment } from '../../validation/problems.ts';

/** The longest text a string field takes when its schema gives no `maxLength`, in characters. */
export const DEFAULT_MAX_LENGTH = 2_000;
/** The longest text any string field takes: a template may raise a field's `maxLength` up to this, no further. */
export const MAX_LENGTH_CEILING = 20_000;
/**
 * The most an item's answers take, as JSON in UTF-8 bytes (64 KiB): a template's `maxDataBytes` may lower it for
 * an item, never raise it.
 */
export const MAX_DATA_BYTES = 65_536;

/** A number as messages write it: 65,536. */
const grouped = (value: number) => value.toLocaleString('en-US');

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords whose value is a schema of (part of) the value itself. */
const ONE_SCHEMA = [
  'additionalProperties',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'then',
  'else',
] as const;
/** Keywords whose value is a list of such schemas (`items` too, in its draft-7 form). */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
/** Keywords whose value maps names to such schemas (`dependencies` also holds lists of names, left as they are). */
const SCHEMA_MAPS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
] as const;
// Not `if`, `not`, `contains` or `propertyNames`: they are conditions, not what an answer is, and a bound written
// into one would change which answers match it rather than refuse a long one.

/**
 * Each schema of a value inside `node` (and `node` itself), replaced by what `change` makes of it, depth first;
 * `path` is where it is, from `node`. Nodes that are not changed are the same objects.
 */
function mapValueSchemas(
  node: unknown,
  change: (node: SchemaNode, path: PathSegment[]) => SchemaNode,
  path: PathSegment[] = [],
): unknown {
  if (!isNode(node)) return node;
  const changes: SchemaNode = {};
  const set = (keyword: string, value: unknown) => {
    if (value !== node[keyword]) changes[keyword] = value;
  };
  for (const keyword of ONE_SCHEMA) {
    if (isNode(node[keyword])) set(keyword, mapValueSchemas(node[keyword], change, [...path, keyword]));
  }
  for (const keyword of SCHEMA_LISTS) {
    const list = node[keyword];
    if (isNode(list)) set(keyword, mapValueSchemas(list, change, [...path, keyword]));
    else if (Array.isArray(list)) {
      const mapped = list.map((entry, index) => mapValueSchemas(entry, change, [...path, keyword, index]));
      if (mapped.some((entry, index) => entry !== list[index])) set(keyword, mapped);
    }
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = node[keyword];
    if (!isNode(map)) continue;
    const entries = Object.entries(map).map(
      ([name, entry]) => [name, mapValueSchemas(entry, change, [...path, keyword, name])] as const,
    );
    if (entries.some(([name, entry]) => entry !== map[name])) set(keyword, Object.fromEntries(entries));
  }
  return change(Object.keys(changes).length > 0 ? { ...node, ...changes } : node, path);
}

/** Whether a schema says its value is a string (alone or among other types). */
const declaresString = (node: SchemaNode) =>
  node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'));

/**
 * An item's schema with the bounds of its answers written in: each field declared a string gets `maxLength`
 * {@link DEFAULT_MAX_LENGTH} when its schema gives none, and {@link MAX_LENGTH_CEILING} when it gives more (a
 * template imported before the ceiling). What the server checks and what the page's form enforces as it is typed.
 * A field whose schema does not say it is a string is bounded by the item's total only.
 *
 * @example
 * boundedSchema({ type: 'object', properties: { address: { type: 'string' } } });
 * // { type: 'object', properties: { address: { type: 'string', maxLength: 2000 } } }
 */
export function boundedSchema<T>(schema: T): T {
  return mapValueSchemas(schema, (node) => {
    if (!declaresString(node)) return node;
    const declared = typeof node.maxLength === 'number' ? node.maxLength : undefined;
    const bound = declared === undefined ? DEFAULT_MAX_LENGTH : Math.min(declared, MAX_LENGTH_CEILING);
    return bound === declared ? node : { ...node, maxLength: bound };
  }) as T;
}

/** The `maxLength`s of an item's schema above {@link MAX_LENGTH_CEILING}, as problems of the template. */
export function maxLengthProblems(schema: unknown): { path: PathSegment[]; message: string }[] {
  const problems: { path: PathSegment[]; message: string }[] = [];
  mapValueSchemas(schema, (node, path) => {
    if (typeof node.maxLength === 'number' && node.maxLength > MAX_LENGTH_CEILING) {
      problems.push({
        path: [...path, 'maxLength'],
        message: `must be at most ${grouped(MAX_LENGTH_CEILING)}, the longest answer Portico takes (a string field without maxLength takes ${grouped(DEFAULT_MAX_LENGTH)} characters)`,
      });
    }
    return node;
  });
  return problems;
}

/** How many characters a text has, as JSON Schema counts them (code points: an emoji is one). */
function characters(text: string): number {
  let total = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // A high surrogate followed by a low one is one character.
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    total += 1;
  }
  return total;
}

/** How a `maxLength` problem reads: in words, with the number as people write it. */
export const lengthProblem = (limit: number) => `must be at most ${grouped(limit)} characters`;

/**
 * The problems of item data larger than its item takes in all (`maxBytes` of JSON), found without reading it
 * against its schema (whose patterns would then run over all of it): the size, after each top-level text
 * longer than its field's `maxLength` in `bounded` (a schema of {@link boundedSchema}), so that the field that
 * made the data too large is named. Empty when the data fits.
 */
export function dataSizeProblems(data: unknown, bounded: unknown, maxBytes: number): string[] {
  // Data that came as JSON is JSON again; `undefined` (no data) has none, and takes nothing.
  const bytes = data === undefined ? 0 : Buffer.byteLength(JSON.stringify(data), 'utf8');
  if (bytes <= maxBytes) return [];
  const properties = isNode(bounded) && isNode(bounded.properties) ? bounded.properties : {};
  const fields = isNode(data) ? Object.entries(data) : [];
  const tooLong = fields.flatMap(([field, value]) => {
    const property = Object.hasOwn(properties, field) ? properties[field] : undefined;
    const limit = isNode(property) && typeof property.maxLength === 'number' ? property.maxLength : undefined;
    return typeof value === 'string' &&
      limit !== undefined &&
      value.length > limit &&
      characters(value) > limit
      ? [`${field}: ${lengthProblem(limit)}`]
      : [];
  });
  return [
    ...tooLong,
    `(item): must take at most ${grouped(maxBytes)} bytes as JSON; it takes ${grouped(bytes)}`,
  ];
}
