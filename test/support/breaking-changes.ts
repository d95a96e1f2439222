import { findBreakingChanges, type GraphQLSchema } from 'graphql';

/**
 * The changes between a released contract and the current one that would break a client written against the
 * release: the GraphQL schema's (graphql's `findBreakingChanges`) and the OpenAPI document's (a structural diff
 * of what a generated client relies on). Each change has a `name` that CHANGELOG.md's `### Breaking` section of
 * `## Unreleased` must contain (test/docs/breaking-changes.test.ts).
 */

export interface BreakingChange {
  /** What the changelog must name: `Type.field` for the schema, `METHOD /path …` for the document. */
  name: string;
  /** What changed, in a sentence. */
  description: string;
}

/** The `Type.field` (or type) a description of graphql's `findBreakingChanges` is about. */
export function graphqlChangeName(description: string): string {
  const enumOrUnion = /^(\w+) was removed from (?:enum|union) type (\w+)/.exec(description);
  if (enumOrUnion) return `${enumOrUnion[2]}.${enumOrUnion[1]}`;
  const added = /^A (?:required|non-null) (?:field|arg) (\w+) on (?:input )?type (\w+)/.exec(description);
  if (added) return `${added[2]}.${added[1]}`;
  const dotted = /\b\w+\.\w+(?:\.\w+)?\b/.exec(description);
  if (dotted) return dotted[0];
  return /^\w+/.exec(description)?.[0] ?? description;
}

/** The schema changes from `released` to `current` that break a client, each named by its type or field. */
export function graphqlBreakingChanges(released: GraphQLSchema, current: GraphQLSchema): BreakingChange[] {
  return findBreakingChanges(released, current).map(({ description }) => ({
    name: graphqlChangeName(description),
    description,
  }));
}

/** A JSON value as a document holds it. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** How deep a schema is followed (through references, properties and items) before the diff stops. */
const MAX_DEPTH = 32;

/** A value as a name shows it: a string as it is, anything else as JSON. */
function text(value: Json | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: Json | undefined, key: string): JsonObject {
  const found = isObject(value) ? value[key] : undefined;
  return isObject(found) ? found : {};
}

/** What a schema allows, with references followed and the branches of anyOf/oneOf/allOf merged. */
interface Shape {
  types: Set<string>;
  properties: Map<string, JsonObject>;
  required: Set<string>;
  items: JsonObject | undefined;
  enumValues: Json[] | undefined;
}

function shapeOf(document: JsonObject, schema: JsonObject, depth = 0): Shape {
  const shape: Shape = {
    types: new Set(),
    properties: new Map(),
    required: new Set(),
    items: undefined,
    enumValues: undefined,
  };
  if (depth > MAX_DEPTH) return shape;
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace(/^#\/components\/schemas\//, '');
    return shapeOf(document, objectAt(objectAt(document, 'components').schemas, name), depth + 1);
  }
  const type = schema.type;
  for (const each of Array.isArray(type) ? type : type === undefined ? [] : [type])
    shape.types.add(text(each));
  if ('const' in schema) shape.enumValues = [schema.const ?? null];
  if (Array.isArray(schema.enum)) shape.enumValues = schema.enum;
  for (const [name, property] of Object.entries(objectAt(schema, 'properties'))) {
    if (isObject(property)) shape.properties.set(name, property);
  }
  if (Array.isArray(schema.required)) for (const name of schema.required) shape.required.add(text(name));
  if (isObject(schema.items)) shape.items = schema.items;
  for (const combinator of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[combinator];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (!isObject(branch)) continue;
      const inner = shapeOf(document, branch, depth + 1);
      for (const each of inner.types) shape.types.add(each);
      for (const [name, property] of inner.properties) shape.properties.set(name, property);
      if (combinator === 'allOf') for (const name of inner.required) shape.required.add(name);
      shape.items ??= inner.items;
      if (inner.enumValues) shape.enumValues = [...(shape.enumValues ?? []), ...inner.enumValues];
    }
  }
  return shape;
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What breaks a client reading answers of schema `before` when they follow `after`: a property removed, a type
 * changed (one the client does not expect may answer, null included), an enum value removed.
 */
function responseChanges(
  documents: { before: JsonObject; after: JsonObject },
  schemas: { before: JsonObject; after: JsonObject },
  where: string,
  depth = 0,
): BreakingChange[] {
  if (depth > MAX_DEPTH) return [];
  const before = shapeOf(documents.before, schemas.before);
  const after = shapeOf(documents.after, schemas.after);
  const changes: BreakingChange[] = [];
  // A type the client did not expect (null included): a value it cannot read.
  const gained = [...after.types].filter((type) => !before.types.has(type));
  if (before.types.size > 0 && (gained.length > 0 || after.types.size === 0)) {
    changes.push({
      name: where,
      description: `${where} changed type from ${[...before.types].join(' | ')} to ${[...after.types].join(' | ') || 'any'}.`,
    });
  }
  for (const value of before.enumValues ?? []) {
    if (after.enumValues !== undefined && !after.enumValues.some((kept) => same(kept, value))) {
      changes.push({
        name: where,
        description: `${where} no longer has the value ${JSON.stringify(value)}.`,
      });
    }
  }
  for (const [name, property] of before.properties) {
    const path = `${where}.${name}`;
    const kept = after.properties.get(name);
    if (kept === undefined) {
      changes.push({ name: path, description: `${path} was removed.` });
      continue;
    }
    changes.push(...responseChanges(documents, { before: property, after: kept }, path, depth + 1));
  }
  if (before.items && after.items) {
    changes.push(
      ...responseChanges(documents, { before: before.items, after: after.items }, `${where}[]`, depth + 1),
    );
  }
  return changes;
}

/** A request body's properties a client of `before` does not send, now required; enum values it may send, removed. */
function requestBodyChanges(
  documents: { before: JsonObject; after: JsonObject },
  schemas: { before: JsonObject; after: JsonObject },
  where: string,
): BreakingChange[] {
  const before = shapeOf(documents.before, schemas.before);
  const after = shapeOf(documents.after, schemas.after);
  const changes: BreakingChange[] = [];
  for (const name of after.required) {
    if (!before.required.has(name)) {
      changes.push({ name: `${where}.${name}`, description: `${where}.${name} is now required.` });
    }
  }
  for (const [name, property] of before.properties) {
    const kept = after.properties.get(name);
    if (kept === undefined) continue;
    const beforeValues = shapeOf(documents.before, property).enumValues ?? [];
    const afterValues = shapeOf(documents.after, kept).enumValues;
    for (const value of beforeValues) {
      if (afterValues !== undefined && !afterValues.some((each) => same(each, value))) {
        changes.push({
          name: `${where}.${name}`,
          description: `${where}.${name} no longer accepts ${JSON.stringify(value)}.`,
        });
      }
    }
  }
  return changes;
}

function parameterKey(parameter: JsonObject): string {
  return `${text(parameter.in)} ${text(parameter.name)}`;
}

function parametersOf(operation: JsonObject): Map<string, JsonObject> {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
  return new Map(parameters.filter(isObject).map((parameter) => [parameterKey(parameter), parameter]));
}

const JSON_BODY = (holder: JsonObject): JsonObject =>
  objectAt(objectAt(objectAt(holder, 'content'), 'application/json'), 'schema');

/**
 * The changes from OpenAPI document `before` to `after` that break a client of `before`: a path or method
 * removed, a response (by status) removed, a response property removed or its type changed, an enum value
 * removed, a parameter removed, a required parameter or request body property added. Names start with
 * `METHOD /path`.
 */
export function openApiBreakingChanges(before: JsonObject, after: JsonObject): BreakingChange[] {
  const documents = { before, after };
  const changes: BreakingChange[] = [];
  const afterPaths = objectAt(after, 'paths');
  for (const [path, beforeItem] of Object.entries(objectAt(before, 'paths'))) {
    if (!isObject(afterPaths[path])) {
      changes.push({ name: path, description: `The path ${path} was removed.` });
      continue;
    }
    const afterItem = objectAt(afterPaths, path);
    for (const method of METHODS) {
      const operation = objectAt(beforeItem, method);
      if (!isObject(isObject(beforeItem) ? beforeItem[method] : undefined)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!isObject(afterItem[method])) {
        changes.push({ name: where, description: `${where} was removed.` });
        continue;
      }
      const next = objectAt(afterItem, method);
      const beforeParameters = parametersOf(operation);
      for (const [key, parameter] of parametersOf(next)) {
        const was = beforeParameters.get(key);
        if (parameter.required === true && was?.required !== true) {
          changes.push({
            name: `${where} ${key}`,
            description: `${where} now requires the ${key} parameter.`,
          });
        }
        if (was) {
          changes.push(
            ...requestBodyChanges(
              documents,
              {
                before: { properties: { [text(was.name)]: objectAt(was, 'schema') } },
                after: { properties: { [text(parameter.name)]: objectAt(parameter, 'schema') } },
              },
              `${where} ${text(was.in)}`,
            ),
          );
        }
      }
      const afterParameters = parametersOf(next);
      for (const key of beforeParameters.keys()) {
        if (!afterParameters.has(key)) {
          changes.push({
            name: `${where} ${key}`,
            description: `${where} no longer takes the ${key} parameter.`,
          });
        }
      }
      const beforeBody = objectAt(operation, 'requestBody');
      const afterBody = objectAt(next, 'requestBody');
      if (afterBody.required === true && beforeBody.required !== true) {
        changes.push({ name: `${where} body`, description: `${where} now requires a request body.` });
      }
      changes.push(
        ...requestBodyChanges(
          documents,
          { before: JSON_BODY(beforeBody), after: JSON_BODY(afterBody) },
          `${where} body`,
        ),
      );
      const afterResponses = objectAt(next, 'responses');
      for (const [status, response] of Object.entries(objectAt(operation, 'responses'))) {
        const at = `${where} ${status}`;
        if (!isObject(response)) continue;
        if (!isObject(afterResponses[status])) {
          changes.push({ name: at, description: `${where} no longer answers ${status}.` });
          continue;
        }
        changes.push(
          ...responseChanges(
            documents,
            { before: JSON_BODY(response), after: JSON_BODY(objectAt(afterResponses, status)) },
            at,
          ),
        );
      }
    }
  }
  return changes;
}

/**
 * The text of the `### Breaking` section of `## Unreleased` in a changelog, or '' when it has none: what a
 * breaking change's name must appear in.
 */
export function unreleasedBreakingSection(changelog: string): string {
  const unreleased = /^## Unreleased\s*$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog)?.[1] ?? '';
  return /^### Breaking\s*$([\s\S]*?)(?=^### |(?![\s\S]))/m.exec(unreleased)?.[1] ?? '';
}

/** The breaking changes whose name the changelog's `### Breaking` section of `## Unreleased` does not contain. */
export function unnamedBreakingChanges(changes: BreakingChange[], changelog: string): BreakingChange[] {
  const section = unreleasedBreakingSection(changelog);
  return changes.filter((change) => !section.includes(change.name));
}
