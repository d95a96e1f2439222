import { Type, type TProperties, type TSchema, type TUnsafe, type Static } from '@sinclair/typebox';

/**
 * The pieces every page's contract is made of. A contract module (`<surface>/contract.ts`) declares, in TypeBox,
 * what each JSON route behind a page takes (params, query, body) and answers, error answers included: Fastify
 * validates requests and serialises answers with it (fast-json-stringify), and `web/` derives its types from it
 * with type-only imports, so the page and the server cannot drift apart unnoticed. A contract imports TypeBox
 * and other contracts only: nothing of the server reaches a page's type graph or bundle.
 */

/** The methods a contract's routes use. */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What every JSON route answers when it refuses: `{"error": {"code", "message", "requestId", "details"}}`. */
export const ErrorAnswer = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'A stable, machine-readable code, e.g. NOT_FOUND.' }),
        message: Type.String({ description: 'What went wrong, for people.' }),
        requestId: Type.String({ description: 'Quote it when you contact support.' }),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'Every error answer has this shape.' },
);
export type ErrorAnswer = Static<typeof ErrorAnswer>;

/**
 * A time: a `Date` on the server, an ISO 8601 string (UTC, to the millisecond) on the wire and in `web/`.
 */
export const Timestamp = (description?: string): TUnsafe<string> =>
  Type.Unsafe<string>({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });

/**
 * A JSON `true` or `false`, exactly. `Type.Boolean()` lets Ajv coerce (Fastify's `coerceTypes: 'array'`, bodies
 * included): `"true"`, `1` and `[true]` would all reach the handler as `true`, so a consent to sign could be
 * given by something other than a yes. With no `type` keyword Ajv has nothing to coerce to, and refuses them.
 */
export const StrictBoolean = (description?: string): TUnsafe<boolean> =>
  Type.Unsafe<boolean>({ enum: [true, false], ...(description ? { description } : {}) });

/** `schema`, or null (a union fast-json-stringify serialises either way). */
export const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An object of anything: JSON a template or a recipient wrote, passed through as it is. */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());

/** A JSON body of exactly these properties: any other is refused. */
export const Body = <Properties extends TProperties>(properties: Properties) =>
  Type.Object(properties, { additionalProperties: false });

/** An empty answer: `{}` (e.g. 202 Accepted). */
export const Empty = Type.Object({}, { additionalProperties: false });

/**
 * A route's answers: the successful ones given, and {@link ErrorAnswer} for every 4xx and 5xx.
 *
 * @example
 * schema: { params: WithId, response: answers({ 200: Type.Object({ key: ApiKey }) }) }
 */
export function answers<const Ok extends Record<number, TSchema>>(
  ok: Ok,
): Ok & { '4xx': typeof ErrorAnswer; '5xx': typeof ErrorAnswer } {
  return { ...ok, '4xx': ErrorAnswer, '5xx': ErrorAnswer };
}

/** A route's successful answer (its 2xx status), as the page receives it. */
export type SuccessOf<Route extends { response: Record<number, TSchema> }> = Static<
  Route['response'][Extract<keyof Route['response'], 200 | 201 | 202 | 204>]
>;

/**
 * What a handler may give for an answer of type `Wire`: the same shape, with a `Date` wherever the wire has a
 * string (fast-json-stringify writes a time from either). A field missing, or of another shape, fails the typecheck.
 */
export type Served<Wire> = Wire extends string
  ? string | Date
  : Wire extends readonly (infer Item)[]
    ? readonly Served<Item>[]
    : Wire extends object
      ? { [Key in keyof Wire]: Served<Wire[Key]> }
      : Wire;
