/**
 * What changed between two revisions of a process: field by field, for the reviewer who asked for changes and
 * reads what came back. Pure: the caller reads the items.
 */

/** An item of a revision, as compared: its key and its data (an object of fields). */
export interface ItemSnapshot {
  vulcanKey: string;
  data: unknown;
}

/** One field that differs between two revisions. */
export interface FieldChange {
  vulcanKey: string;
  field: string;
  change: 'added' | 'removed' | 'changed';
  before: unknown;
  after: unknown;
}

const fieldsOf = (data: unknown): Record<string, unknown> =>
  typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};

/** JSON with object keys in order, so that two values compare equal however their keys were written. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/**
 * The fields that differ between `before` and `after`, item by item in `after`'s order (then items only
 * `before` has), fields in the order `after` holds them. A field that is empty (absent, null or '') on one side
 * and filled on the other is added or removed; values compare as JSON, whatever the order of their keys.
 *
 * @example
 * diffRevisions([{ vulcanKey: 'a', data: { x: 1 } }], [{ vulcanKey: 'a', data: { x: 2, y: 'z' } }]);
 * // [{ vulcanKey: 'a', field: 'x', change: 'changed', before: 1, after: 2 },
 * //  { vulcanKey: 'a', field: 'y', change: 'added', before: undefined, after: 'z' }]
 */
export function diffRevisions(
  before: readonly ItemSnapshot[],
  after: readonly ItemSnapshot[],
): FieldChange[] {
  const earlier = new Map(before.map((item) => [item.vulcanKey, fieldsOf(item.data)]));
  const keys = [
    ...new Set([...after.map((item) => item.vulcanKey), ...before.map((item) => item.vulcanKey)]),
  ];
  const later = new Map(after.map((item) => [item.vulcanKey, fieldsOf(item.data)]));
  const changes: FieldChange[] = [];
  for (const vulcanKey of keys) {
    const was = earlier.get(vulcanKey) ?? {};
    const is = later.get(vulcanKey) ?? {};
    for (const field of new Set([...Object.keys(is), ...Object.keys(was)])) {
      const [old, now] = [was[field], is[field]];
      if (isEmpty(old) && isEmpty(now)) continue;
      if (!isEmpty(old) && !isEmpty(now) && canonical(old) === canonical(now)) continue;
      const change = isEmpty(old) ? 'added' : isEmpty(now) ? 'removed' : 'changed';
      changes.push({ vulcanKey, field, change, before: old, after: now });
    }
  }
  return changes;
}
