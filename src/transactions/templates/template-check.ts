import type { LocatedProblem } from '../../validation/problems.ts';
import type { TemplateDefinition } from './schema.ts';

/** A mistake in a template file: where it is (its path, its line) and what is wrong. */
export type TemplateProblem = LocatedProblem;

/**
 * What checking a template file found (validation.ts `checkTemplate`): the definition to store, or every problem.
 * A type of its own, so that the document workers, which run the check, name it without importing the check.
 */
export type TemplateCheck =
  { ok: true; definition: TemplateDefinition } | { ok: false; problems: TemplateProblem[] };
