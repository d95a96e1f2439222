import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 3339 section 5.6 date-time: full date, 'T', time with optional fraction, and 'Z' or an offset.
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) {
    throw badInput(
      `${JSON.stringify(value)} is not a UUID (expected e.g. 3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e)`,
    );
  }
  return value.toLowerCase();
}

function parseDateTime(value: unknown): Date {
  const date = typeof value === 'string' && DATE_TIME_PATTERN.test(value) ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw badInput(
      `${JSON.stringify(value)} is not an RFC 3339 date-time (expected e.g. 2026-11-22T09:30:00Z)`,
    );
  }
  return date;
}

function serializeDateTime(value: unknown): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new TypeError(`cannot serialize ${String(value)} as a date-time`);
  return date.toISOString();
}

function stringLiteral(ast: ValueNode): unknown {
  return ast.kind === Kind.STRING ? ast.value : valueFromASTUntyped(ast);
}

function uuidScalar(name: string, description: string): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    description,
    serialize: (value) => String(value),
    parseValue: parseUuid,
    parseLiteral: (ast) => parseUuid(stringLiteral(ast)),
  });
}

function dateTimeScalar(name: string, description: string): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    description,
    serialize: serializeDateTime,
    parseValue: parseDateTime,
    parseLiteral: (ast) => parseDateTime(stringLiteral(ast)),
  });
}

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
  uuid: uuidScalar('uuid', 'A UUID (RFC 4122).'),
  UUID: uuidScalar('UUID', 'A UUID (RFC 4122).'),
  datetime: dateTimeScalar('datetime', 'A UTC date-time string per RFC 3339 section 5.6.'),
  DateTime: dateTimeScalar('DateTime', 'A UTC date-time string per RFC 3339 section 5.6.'),
  json: jsonScalar('json', 'Any JSON value (ECMA-404).'),
  JSON: jsonScalar('JSON', 'Any JSON value (ECMA-404).'),
};
