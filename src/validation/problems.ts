import type { ErrorObject } from 'ajv/dist/2020.js';
import { isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/**
 * Problems found in a file an operator wrote (a template, a portfolio import), each with where it is, so that
 * every message can say `file:line: path: what is wrong`.
 */
export type PathSegment = string | number;

/** One mistake in a file: where it is and what is wrong. */
export interface LocatedProblem {
  /** e.g. `workflow.events[3].to` */
  path: string;
  /** 1-based line in the file, when known. */
  line?: number;
  message: string;
}

/** `['workflow', 'events', 3, 'to']` → `workflow.events[3].to` */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>(
    (out, segment) =>
      typeof segment === 'number' ? `${out}[${segment}]` : out ? `${out}.${segment}` : segment,
    '',
  );
}

export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Ajv's errors as problems at paths, one per mistake. */
export function structureProblems(errors: ErrorObject[]): { path: PathSegment[]; message: string }[] {
  // A failed union reports once, at its own path, instead of once per branch it did not match.
  const unions = errors.filter((error) => error.keyword === 'anyOf').map((error) => error.instancePath);
  return errors
    .filter(
      (error) =>
        error.keyword === 'anyOf' ||
        !unions.some((path) => error.instancePath.startsWith(path) && error.keyword !== 'anyOf'),
    )
    .map((error) => {
      const path = pointerToPath(error.instancePath);
      if (error.keyword === 'anyOf') {
        const described = (error.parentSchema as { description?: string } | undefined)?.description;
        return { path, message: `is not a valid choice${described ? ` (${described})` : ''}` };
      }
      if (error.keyword === 'additionalProperties') {
        const extra = (error.params as { additionalProperty: string }).additionalProperty;
        return { path: [...path, extra], message: 'is not a known field' };
      }
      if (error.keyword === 'required') {
        const missing = (error.params as { missingProperty: string }).missingProperty;
        return { path: [...path, missing], message: 'is required' };
      }
      return { path, message: error.message ?? 'is not valid' };
    });
}

/** The line of the node at a path of a parsed YAML or JSON document. */
export function lineOf(document: Document, lines: LineCounter, path: PathSegment[]): number | undefined {
  // The deepest node of the path that exists in the file, so a missing field points at its parent.
  for (let length = path.length; length >= 0; length -= 1) {
    const node = document.getIn(path.slice(0, length), true);
    if ((isScalar(node) || isMap(node) || isSeq(node)) && node.range)
      return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

/** `subscription.yaml:42: workflow.events[3].to: unknown state "aproved"` */
export function describeProblems(filename: string, problems: readonly LocatedProblem[]): string {
  return problems
    .map((problem) =>
      [`${filename}${problem.line === undefined ? '' : `:${problem.line}`}`, problem.path, problem.message]
        .filter((part) => part !== '')
        .join(': '),
    )
    .join('\n');
}
