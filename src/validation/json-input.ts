import { AppError } from '../errors.ts';
import { formatPath, type PathSegment } from './problems.ts';

/** How deeply JSON input may nest (objects and arrays) on any route of either service. */
export const MAX_JSON_DEPTH = 32;

/** ES2024's String.prototype.isWellFormed (Node 20 has it; our TypeScript lib is ES2023). */
type WellFormedText = string & { isWellFormed(): boolean };

/**
 * What is wrong with a string a client sent, if anything: text PostgreSQL cannot store, NUL, or UTF-16
 * surrogates without their pair (not Unicode text). Native checks, as every string of every request goes
 * through here.
 */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000), which text cannot hold';
  if (!(text as WellFormedText).isWellFormed()) {
    return 'contains an unpaired UTF-16 surrogate, which is not Unicode text';
  }
  return undefined;
}

/**
 * The first reason JSON input cannot be taken as it is: nested deeper than {@link MAX_JSON_DEPTH}, or a
 * string (value or key) that text columns cannot hold. Checked once at the edge for every body and query
 * string, so that no deeper code (fingerprints, SQL, JSON Schema) ever sees such input.
 *
 * @example
 * jsonInputProblem({ input: { name: 'a\u0000b' } }, 'variables'); // { path: 'variables.input.name', … }
 */
export function jsonInputProblem(
  value: unknown,
  root: string,
  maxDepth = MAX_JSON_DEPTH,
): { path: string; message: string } | undefined {
  const walk = (node: unknown, path: PathSegment[], depth: number): string | undefined => {
    if (typeof node === 'string') return unstorableText(node);
    if (node === null || typeof node !== 'object') return undefined;
    if (depth >= maxDepth) return `nests deeper than ${maxDepth} levels`;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) {
        path.push(index);
        const problem = walk(item, path, depth + 1);
        if (problem) return problem;
        path.pop();
      }
      return undefined;
    }
    for (const [key, item] of Object.entries(node)) {
      const keyProblem = unstorableText(key);
      if (keyProblem) return `has a key that ${keyProblem}`;
      // The path names where the problem is; a key that is itself huge is shown by its start.
      path.push(key.length > 40 ? `${key.slice(0, 40)}…` : key);
      const problem = walk(item, path, depth + 1);
      if (problem) return problem;
      path.pop();
    }
    return undefined;
  };
  const path: PathSegment[] = [root];
  const message = walk(value, path, 0);
  return message === undefined ? undefined : { path: formatPath(path), message };
}

/** Throws `BAD_USER_INPUT` naming the path and the problem, when {@link jsonInputProblem} finds one. */
export function checkJsonInput(value: unknown, root: string): void {
  const problem = jsonInputProblem(value, root);
  if (problem) {
    throw new AppError('BAD_USER_INPUT', `${problem.path} ${problem.message}.`, { path: problem.path });
  }
}
