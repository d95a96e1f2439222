// Which answers differ from those submitted last time, after the sender asked for changes.

import { deepEquals } from '@rjsf/utils';
import { plain } from './drafts.ts';
import { pathKey } from './validator.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields (`pathKey`s: `address.city`) whose answer in `current` differs from `previous`, object by object
 * down to the answers (a list counts as one answer). None when there was no earlier submission.
 *
 * @example
 * changedPaths({ name: 'Ada', address: { city: 'London' } }, { name: 'Ada', address: { city: 'Paris' } });
 * // Set { 'address.city' }
 */
export function changedPaths(previous: unknown, current: unknown): Set<string> {
  const changed = new Set<string>();
  if (previous === null || previous === undefined) return changed;
  const walk = (before: unknown, after: unknown, path: string[]) => {
    // An object answered only on one side is compared answer by answer with an empty one.
    if (isObject(before) || isObject(after)) {
      if (before !== undefined && !isObject(before)) changed.add(pathKey(path));
      if (after !== undefined && !isObject(after)) changed.add(pathKey(path));
      before = isObject(before) ? before : {};
      after = isObject(after) ? after : {};
    }
    if (isObject(before) && isObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        walk(before[key], after[key], [...path, key]);
      }
    } else if (!deepEquals(before, after)) {
      changed.add(pathKey(path));
    }
  };
  walk(plain(previous), plain(current), []);
  return changed;
}
