// Which answers differ from those submitted last time, after the sender asked for changes.

import { deepEquals } from '@rjsf/utils';
import { plain } from './drafts.ts';
import { pathKey } from './validator.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The fields (`pathKey`s: `address.city`) whose answer in `current` differs from `previous`, object by object
 * down to the answers (a list counts as one answer). The top-level fields named in `wholeAnswers` are one answer
 * each however they are stored: an amount of money (`{currency, amount}`) is changed as a whole. None when there
 * was no earlier submission.
 *
 * @example
 * changedPaths({ name: 'Ada', address: { city: 'London' } }, { name: 'Ada', address: { city: 'Paris' } });
 * // Set { 'address.city' }
 * changedPaths({ amount: { currency: 'USD', amount: 1 } }, { amount: { currency: 'USD', amount: 2 } }, ['amount']);
 * // Set { 'amount' }
 */
export function changedPaths(
  previous: unknown,
  current: unknown,
  wholeAnswers: Iterable<string> = [],
): Set<string> {
  const changed = new Set<string>();
  if (previous === null || previous === undefined) return changed;
  const whole = new Set(wholeAnswers);
  const walk = (before: unknown, after: unknown, path: string[]) => {
    if (path.length === 1 && whole.has(path[0] ?? '')) {
      if (!deepEquals(before, after)) changed.add(pathKey(path));
      return;
    }
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
