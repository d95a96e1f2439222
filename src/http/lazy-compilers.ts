import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import type { ValidateFunction } from 'ajv';

// Fastify compiles a validator for every request part and a serializer for every answer of every route when the
// route is added: for both services, most of a second of each start, when a start answers from a handful of
// routes. These compile each on its first use instead, with Fastify's own compilers and options, so that a
// request is refused or an answer written exactly as before. A schema that does not compile fails its first
// request instead of the start: `test/http/contracts.test.ts` compiles every route's schemas, as each first use
// will.

/** Fastify's `compilersFactory.buildValidator`: made with an app's shared schemas and `ajv` options. */
type ValidatorFactory = ReturnType<typeof AjvCompiler>;
/** What Fastify hands a compiler: a route's schema for one part of a request, and where it applies. */
type RouteSchema = Parameters<FastifySchemaCompiler<unknown>>[0];

/** Fastify's own serializers (fast-json-stringify), each compiled on its first answer. */
export function lazySerializers(
  ...factoryArgs: Parameters<ReturnType<typeof SerializerSelector>>
): ReturnType<ReturnType<typeof SerializerSelector>> {
  const compile = SerializerSelector()(...factoryArgs);
  return (route) => {
    let serialize: ((document: unknown) => string) | undefined;
    return (document) => (serialize ??= compile(route))(document);
  };
}

/**
 * Fastify's own validators (Ajv, through `@fastify/ajv-compiler`, with the app's `ajv` options and shared
 * schemas), each compiled on its first request: one of these per app, as Fastify makes one Ajv per set of shared
 * schemas and options of an app.
 */
export function lazyValidators(): ValidatorFactory {
  const fromPool = AjvCompiler();
  return (externalSchemas, options) => {
    // Made on first use as well: an app's Ajv, with its formats, takes milliseconds to make.
    let compiler: ReturnType<typeof fromPool> | undefined;
    const compile = (route: RouteSchema): ValidateFunction => {
      compiler ??= fromPool(externalSchemas, options);
      // Fastify's compilers are called with the route's schema and where it applies, not Ajv's (schema, meta).
      return (compiler as unknown as (route: RouteSchema) => ValidateFunction)(route);
    };
    const lazy = (route: RouteSchema): ValidateFunction => {
      if (route.httpPart === 'headers') requireLowerCaseHeaders(route);
      let validate: ValidateFunction | undefined;
      const compiled = (): ValidateFunction => (validate ??= compile(route));
      const validateLazily = ((data: unknown, dataCxt?: Parameters<ValidateFunction>[1]) =>
        compiled()(data, dataCxt)) as ValidateFunction;
      // What Fastify reads of a validator besides calling it: `schemaEnv` (whether Ajv may replace the request
      // part itself, when it is given the request as parent) before each call, `errors` after a refusal.
      Object.defineProperties(validateLazily, {
        schemaEnv: { get: () => compiled().schemaEnv },
        errors: { get: () => compiled().errors },
      });
      return validateLazily;
    };
    return lazy as unknown as ReturnType<ValidatorFactory>;
  };
}

/**
 * Fastify lowercases the header names of a header schema for its own compiler, but hands a schema as written to
 * a compiler of the app's (as this is): so none may name a header otherwise than in lower case, as requests' are.
 */
function requireLowerCaseHeaders({ schema, method, url }: RouteSchema): void {
  if (schema === null || typeof schema !== 'object') return;
  const { properties, required } = schema as { properties?: object; required?: unknown };
  const names: unknown[] = [
    ...Object.keys(properties ?? {}),
    ...(Array.isArray(required) ? (required as unknown[]) : []),
  ];
  const named = names.find((name) => typeof name !== 'string' || name !== name.toLowerCase());
  if (named !== undefined)
    throw new Error(
      `${method} ${url}: the header schema names ${JSON.stringify(named)}: name headers in lower case`,
    );
}
