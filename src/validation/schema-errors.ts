import type { FastifySchemaValidationError } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * A route schema's refusal in words a client acts on, naming the parameter or field, instead of Ajv's own
 * (`querystring/search must NOT have more than 100 characters`, `must match pattern "^[0-9a-fA-F]{8}-…"`).
 * Both services' apps format every refusal of a route schema with it (see `createBaseApp`).
 */

/** Where the refused value is, as the message names it. */
const PARTS: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  body: 'field',
  headers: 'header',
};

/** What a format asks, in words (a service words its own patterns after them). */
export const FORMATS = {
  uuid: 'must be a UUID',
  'date-time': 'must be an ISO 8601 date and time with a time zone, e.g. 2026-01-31T00:00:00Z',
  email: 'must be an e-mail address',
  uri: 'must be an absolute URL',
} as const;

/** JSON types as a message names them. */
const TYPES: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
  null: 'null',
};

/** Whether an enum's values are exactly `true` and `false`. */
const isTrueOrFalse = (values: unknown) =>
  Array.isArray(values) && values.length === 2 && values.includes(true) && values.includes(false);

/** One complaint of Ajv's, as Fastify hands it to a schema error formatter. */
type Complaint = FastifySchemaValidationError;

/** `/address/city` → `address.city`; the body itself is ''. */
const pathOf = (complaint: Complaint, child?: string) =>
  [...complaint.instancePath.split('/').filter(Boolean), ...(child === undefined ? [] : [child])]
    .map((step) => step.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');

const plural = (count: number, noun: string) => `${String(count)} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The values a union of constants allows (TypeBox's `Union([Literal('a'), Literal('b')])` is an `anyOf` of
 * `const`s): Ajv reports each branch's `const` at the same place before the `anyOf`.
 */
function allowedAt(complaints: readonly Complaint[], path: string): unknown[] {
  return complaints
    .filter((complaint) => complaint.keyword === 'const' && complaint.instancePath === path)
    .map((complaint) => (complaint.params as { allowedValue?: unknown }).allowedValue);
}

/** What the value at the complaint's place must be, in words; `patterns` words the app's own patterns. */
function requirement(
  first: Complaint,
  complaints: readonly Complaint[],
  patterns: Readonly<Record<string, string>>,
): string {
  const { params } = first;
  switch (first.keyword) {
    case 'format':
      return (
        (FORMATS as Record<string, string | undefined>)[String(params.format)] ??
        `must be in the ${String(params.format)} format`
      );
    case 'pattern':
      return patterns[String(params.pattern)] ?? 'is not in the form it takes';
    case 'type':
      return `must be ${TYPES[String(params.type)] ?? String(params.type)}`;
    case 'maxLength':
      return `must be at most ${plural(Number(params.limit), 'character')}`;
    case 'minLength':
      return Number(params.limit) === 1
        ? 'must not be empty'
        : `must be at least ${plural(Number(params.limit), 'character')}`;
    case 'maxItems':
      return `must hold at most ${plural(Number(params.limit), 'item')}`;
    case 'minItems':
      return `must hold at least ${plural(Number(params.limit), 'item')}`;
    case 'enum':
      // A strict boolean (http/contract.ts's StrictBoolean) is worded as the boolean type is.
      if (isTrueOrFalse(params.allowedValues)) return 'must be true or false';
      return `must be one of ${([] as unknown[])
        .concat(params.allowedValues)
        .map((value) => JSON.stringify(value))
        .join(', ')}`;
    case 'const':
    case 'anyOf': {
      const allowed = allowedAt(complaints, first.instancePath);
      return allowed.length > 0
        ? `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
        : 'is not a value it takes';
    }
    default:
      // minimum, maximum, multipleOf …: Ajv's own words are plain ("must be >= 1").
      return first.message ?? 'is not valid';
  }
}

/** How a service's refusals of its route schemas read. */
export interface SchemaErrorWording {
  /** The service's own patterns in words, their source as the key. @default none */
  patterns?: Readonly<Record<string, string>>;
  /** The key of `details` that names a refused query or path parameter (a body's field is `field`). @default 'field' */
  parameterKey?: 'field' | 'parameter';
}

/**
 * A Fastify schema error formatter (`app.setSchemaErrorFormatter`) that turns the first complaint into
 * BAD_USER_INPUT with a message that names the parameter or field, e.g. `The query parameter "search" must be at
 * most 100 characters.` or `The field "email" is missing.`; `details` name it too.
 */
export function schemaErrorFormatter(
  wording: SchemaErrorWording = {},
): (errors: Complaint[], dataVar: string) => Error {
  const { patterns = {}, parameterKey = 'field' } = wording;
  return (errors, dataVar) => {
    const [first] = errors;
    const part = PARTS[dataVar] ?? dataVar;
    const key = dataVar === 'body' ? 'field' : parameterKey;
    if (!first) return new AppError('BAD_USER_INPUT', `Invalid ${part}.`);
    const params = first.params as { additionalProperty?: string; missingProperty?: string };
    if (first.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
      const name = pathOf(first, params.additionalProperty);
      return new AppError('BAD_USER_INPUT', `Unknown ${part} "${name}".`, { [key]: name });
    }
    if (first.keyword === 'required' && params.missingProperty !== undefined) {
      const name = pathOf(first, params.missingProperty);
      return new AppError('BAD_USER_INPUT', `The ${part} "${name}" is missing.`, { [key]: name });
    }
    const name = pathOf(first);
    const said = requirement(first, errors, patterns);
    if (name === '') {
      return new AppError('BAD_USER_INPUT', `The ${dataVar === 'body' ? 'body' : part} ${said}.`);
    }
    return valueRefused({ part, name, key }, said);
  };
}

/**
 * BAD_USER_INPUT for a value at a named place that is not what it must be, worded as a route schema's refusal:
 * `The query parameter "before" must fall in the years 0001 to 9999 (UTC).`, with `details` naming it. For the
 * checks a schema cannot make (see validation/date-time.ts).
 */
export function valueRefused(
  place: { part: string; name: string; key: 'field' | 'parameter' },
  said: string,
): AppError {
  return new AppError('BAD_USER_INPUT', `The ${place.part} "${place.name}" ${said}.`, {
    [place.key]: place.name,
  });
}
