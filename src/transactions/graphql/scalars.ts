import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { quote } from '../../errors.ts';
import { readDateTime } from '../../validation/date-time.ts';
import { isUuid } from '../../validation/uuid.ts';

// RFC 3339 section 5.6 date-time: full date, 'T', time with optional fraction, and 'Z' or an offset. A
// fraction finer than nanoseconds means nothing to anyone, and bounding it bounds the whole text. Whether the
// date and time exist, and fall in the years both databases hold, is validation/date-time.ts's to say.
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const DATE_TIME_EXAMPLE = '(expected e.g. 2026-11-22T09:30:00Z)';

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) {
    throw badInput(`${quote(value)} is not a UUID (expected e.g. 3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e)`);
  }
  return value.toLowerCase();
}

function parseDateTime(value: unknown): Date {
  const text = typeof value === 'string' ? value : undefined;
  if (text === undefined || !DATE_TIME_PATTERN.test(text)) {
    throw badInput(`${quote(value)} is not an RFC 3339 date-time ${DATE_TIME_EXAMPLE}`);
  }
  const read = readDateTime(text);
  if (read === 'range') {
    throw badInput(`${quote(value)} is outside the years 0001 to 9999 (UTC) that date-times may fall in`);
  }
  // The pattern is narrower than readDateTime's form: what passed it is read, or a part of it does not exist.
  if (!(read instanceof Date)) {
    throw badInput(`${quote(value)} is not a date and time that exists ${DATE_TIME_EXAMPLE}`);
  }
  return read;
}

/**
 * A timestamp as PostgreSQL writes it in JSON on a UTC session (`2026-11-29T10:15:54.123456+00:00`), as the
 * general engine's nested rows bring them: written as `toISOString` would, to the millisecond (truncated, as
 * `Date` reads it), without making a Date of it.
 */
const UTC_JSON_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00:00$/;

function serializeDateTime(value: unknown): string {
  if (typeof value === 'string') {
    const utc = UTC_JSON_TIMESTAMP.exec(value);
    if (utc) return `${utc[1] ?? ''}.${`${utc[2] ?? ''}000`.slice(0, 3)}Z`;
  }
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new TypeError(`cannot serialize ${String(value)} as a date-time`);
  return date.toISOString();
}

function stringLiteral(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : valueFromASTUntyped(ast);
}

/** A scalar written as a string, in variables and in query literals alike, read by `parse`. */
function textScalar(
  name: string,
  description: string,
  rules: { parse: (value: unknown) => unknown; serialize: (value: unknown) => unknown },
): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    description,
    serialize: rules.serialize,
    parseValue: rules.parse,
    parseLiteral: (ast) => rules.parse(stringLiteral(ast)),
  });
}

const UUID_RULES = { parse: parseUuid, serialize: (value: unknown) => String(value) };
const DATE_TIME_RULES = { parse: parseDateTime, serialize: serializeDateTime };

function jsonScalar(name: string, description: string): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}

/**
 * The spec spells each scalar two ways (`uuid`/`UUID`, `datetime`/`DateTime`, `json`/`JSON`); both are real
 * scalars with the same rules. Bad input is an error with code BAD_USER_INPUT.
 */
export const scalars = {
  uuid: textScalar('uuid', 'A UUID (RFC 4122).', UUID_RULES),
  UUID: textScalar('UUID', 'A UUID (RFC 4122).', UUID_RULES),
  datetime: textScalar('datetime', 'A UTC date-time string per RFC 3339 section 5.6.', DATE_TIME_RULES),
  DateTime: textScalar('DateTime', 'A UTC date-time string per RFC 3339 section 5.6.', DATE_TIME_RULES),
  json: jsonScalar('json', 'Any JSON value (ECMA-404).'),
  JSON: jsonScalar('JSON', 'Any JSON value (ECMA-404).'),
};
