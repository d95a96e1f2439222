import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import { quote } from '../../errors.ts';
import { isUuid } from '../../validation/uuid.ts';

// RFC 3339 section 5.6 date-time: full date, 'T', time with optional fraction, and 'Z' or an offset. A
// fraction finer than nanoseconds means nothing to anyone, and bounding it bounds the whole text.
const DATE_TIME_PATTERN =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt](?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](?<offsetHour>\d{2}):(?<offsetMinute>\d{2}))$/;
const DATE_TIME_EXAMPLE = '(expected e.g. 2026-11-22T09:30:00Z)';
// The years a date-time may fall in, in UTC: what PostgreSQL's timestamptz and JavaScript's Date both hold
// and print as four-digit years (year 0 and years past 9999 would not read back as RFC 3339).
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) {
    throw badInput(`${quote(value)} is not a UUID (expected e.g. 3f1c0f5e-8f5b-4f5e-9a51-1c9f0b1c2d3e)`);
  }
  return value.toLowerCase();
}

/** The number of days in a month (1 to 12) of a year, leap years counted. */
function daysIn(year: number, month: number): number {
  const lastDay = new Date(0);
  // setUTCFullYear, not Date.UTC, which would read years 0 to 99 as 1900 to 1999.
  lastDay.setUTCFullYear(year, month, 0);
  return lastDay.getUTCDate();
}

function parseDateTime(value: unknown): Date {
  const text = typeof value === 'string' ? value : undefined;
  const parts = text === undefined ? null : DATE_TIME_PATTERN.exec(text);
  if (text === undefined || !parts) {
    throw badInput(`${quote(value)} is not an RFC 3339 date-time ${DATE_TIME_EXAMPLE}`);
  }
  // Number(undefined) is NaN, which fails every comparison: a part that is missing never passes.
  const { year, month, day, hour, minute, second, offsetHour = '0', offsetMinute = '0' } = parts.groups ?? {};
  // Date would roll 2026-02-30 over into March and read 24:00 as the next day: each part must exist as written.
  const exists =
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= daysIn(Number(year), Number(month)) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHour) <= 23 &&
    Number(offsetMinute) <= 59;
  if (!exists) throw badInput(`${quote(value)} is not a date and time that exists ${DATE_TIME_EXAMPLE}`);
  const date = new Date(text);
  const time = date.getTime();
  if (Number.isNaN(time) || time < EARLIEST || time > LATEST) {
    throw badInput(`${quote(value)} is outside the years 0001 to 9999 (UTC) that date-times may fall in`);
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
