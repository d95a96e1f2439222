import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * A JSON Schema 2020-12 validator with the standard formats. Making one compiles the meta-schema (tens of
 * milliseconds): make it on first use (see {@link onFirstUse}), not when a module loads, so that a start that
 * validates nothing yet does not pay for it.
 *
 * @example
 * const validator = onFirstUse(() => jsonSchemaValidator({ allErrors: true, strict: false }));
 * const validate = validator().compile(schema);
 */
export function jsonSchemaValidator(options: Options): Ajv2020 {
  const validator = new Ajv2020(options);
  addFormats.default(validator);
  return validator;
}

/** A value made by `make` on first use, then kept. */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
