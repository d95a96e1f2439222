// The validator react-jsonschema-form runs with: schema-check.ts (@cfworker/json-schema) instead of Ajv (which
// needs `eval`, see there), with the messages of messages.ts.

import {
  createErrorHandler,
  orderProperties,
  toErrorSchema,
  unwrapErrorHandler,
  validationDataMerge,
  type ErrorSchema,
  type RJSFSchema,
  type RJSFValidationError,
  type UiSchema,
  type ValidatorType,
} from '@rjsf/utils';
import { problemMessage } from './messages.ts';
import type { ItemData } from './drafts.ts';
import type { PortalFormContext } from './form-context.ts';
import { schemaProblems, type SchemaNode, type SchemaProblem } from './schema-check.ts';
import { hintsAt, labelAt } from './ui-schema.ts';
import { declaredProperties } from '../../../src/transactions/templates/schema-properties.ts';

/** One answer of a form that breaks its schema, and what to do about it. */
export interface FieldProblem {
  /** The field, from the root of the item's data (`['address', 'city']`). */
  path: (string | number)[];
  /** The field's label, for a list of problems. */
  label: string;
  message: string;
}

/** A path as rjsf's `property` writes it: `.address.city`, `.owners.0.name`, `['first-name']`. */
export function propertyOf(path: readonly (string | number)[]): string {
  return path
    .map((segment) =>
      typeof segment === 'number' || /^[A-Za-z_$][\w$]*$/.test(segment)
        ? `.${String(segment)}`
        : `['${segment.replaceAll("'", "\\'")}']`,
    )
    .join('');
}

/** A path as a key of a map: `address.city`. */
export const pathKey = (path: readonly (string | number)[]) => path.map(String).join('.');

/** The top-level fields of the form in the order it shows them (the template's `ui:order`, then the rest). */
function fieldOrder(schema: unknown, ui: UiSchema): string[] {
  const keys = Object.keys(declaredProperties(schema));
  const order = ui['ui:order'];
  try {
    return Array.isArray(order) ? orderProperties(keys, order) : keys;
  } catch {
    // An order that names fields the schema does not have: the schema's own order.
    return keys;
  }
}

/** Keywords about a field's options as a whole: a problem with the value itself says more. */
const AS_A_WHOLE = new Set(['anyOf', 'oneOf', 'not']);

/**
 * Every answer of `data` that breaks `schema`, one problem per field (the first found, one with the value
 * itself before one with its options as a whole), in the order the form shows the fields, with its label and a
 * message in words.
 */
export function fieldProblems(schema: unknown, data: unknown, ui: UiSchema): FieldProblem[] {
  const first = new Map<string, SchemaProblem & { inner?: (string | number)[] }>();
  for (const found of schemaProblems(schema as SchemaNode, data)) {
    // An amount of money is one field: a problem of its currency or amount is the field's (money-field.tsx).
    const [top] = found.path;
    const money = top !== undefined && hintsAt(ui, [top]).money !== undefined;
    const problem = money ? { ...found, path: [top], inner: found.path } : found;
    const key = pathKey(problem.path);
    const held = first.get(key);
    if (held === undefined || (AS_A_WHOLE.has(held.keyword) && !AS_A_WHOLE.has(problem.keyword))) {
      first.set(key, problem);
    }
  }
  const order = fieldOrder(schema, ui);
  const rank = (problem: FieldProblem) => {
    const at = order.indexOf(String(problem.path[0]));
    return at === -1 ? order.length : at;
  };
  return [...first.values()]
    .map((problem) => ({
      path: problem.path,
      label: labelAt(schema, problem.path),
      message: problemMessage(
        problem.inner === undefined ? problem : { ...problem, path: problem.inner },
        hintsAt(ui, problem.path),
      ),
    }))
    .sort((a, b) => rank(a) - rank(b));
}

/**
 * The problems as rjsf's ErrorSchema (for `extraErrors`): the templates show a field's problem once the field
 * was left or "Continue" was pressed (form-context.ts).
 */
export function errorSchemaOf(problems: readonly FieldProblem[]): ErrorSchema {
  return toErrorSchema(
    problems.map((problem) => ({
      property: propertyOf(problem.path),
      message: problem.message,
      stack: problem.message,
    })),
  );
}

/** rjsf's validator interface over schema-check.ts. */
export const schemaValidator: ValidatorType<ItemData, RJSFSchema, PortalFormContext> = {
  validateFormData(formData, schema, customValidate, transformErrors, uiSchema) {
    let errors: RJSFValidationError[] = fieldProblems(schema, formData, uiSchema ?? {}).map((problem) => ({
      property: propertyOf(problem.path),
      message: problem.message,
      stack: `${problem.label}: ${problem.message}`,
    }));
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    const errorSchema = toErrorSchema<ItemData>(errors);
    if (!customValidate) return { errors, errorSchema };
    const custom = unwrapErrorHandler(
      customValidate(formData, createErrorHandler(formData), uiSchema, errorSchema),
    );
    return validationDataMerge({ errors, errorSchema }, custom);
  },
  isValid(schema, formData, rootSchema) {
    return schemaProblems(schema, formData, rootSchema).length === 0;
  },
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the interface's own signature
  rawValidation<Result>(schema: RJSFSchema, formData?: ItemData) {
    return { errors: schemaProblems(schema, formData) as Result[] };
  },
};
