// What a closing's pages keep in the tab's sessionStorage as it is typed (the new closing's form, pasted rows, a
// row being fixed), so that a reload or a phone that dropped the page loses nothing; forgotten once it is sent.

import { useCallback, useLayoutEffect, useRef, useState } from 'react';

/** What a stored value of another release (or none) reads as: the value when it has the expected shape. */
export type ReadStored<T> = (stored: unknown) => T | undefined;

/** The value stored under `key`, when it reads as one; undefined when there is none or storage is off. */
function readStored<T>(key: string, read: ReadStored<T>): T | undefined {
  try {
    const text = sessionStorage.getItem(key);
    return text === null ? undefined : read(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * A page's state kept in sessionStorage under `key` (one per organization and person, and per closing where it is
 * of one): restored when the page opens, stored at each change (as the page is drawn, so that a reload right after
 * a keystroke keeps it), removed while it is `initial`. `forget` sets it back to `initial` and removes it at once.
 */
export function useStoredState<T>(
  key: string,
  initial: T,
  read: ReadStored<T>,
): [T, (next: T | ((before: T) => T)) => void, () => void] {
  const [value, setValue] = useState<T>(() => readStored(key, read) ?? initial);
  const first = useRef(initial);
  useLayoutEffect(() => {
    try {
      if (JSON.stringify(value) === JSON.stringify(first.current)) sessionStorage.removeItem(key);
      else sessionStorage.setItem(key, JSON.stringify(value));
    } catch {
      // Storage off or full: the page works, a reload starts afresh.
    }
  }, [key, value]);
  const forget = useCallback(() => {
    setValue(first.current);
    // At once too: a page that forgets and then leaves is not drawn again to remove it.
    try {
      sessionStorage.removeItem(key);
    } catch {
      // Storage off: nothing was kept.
    }
  }, [key]);
  return [value, setValue, forget];
}

/** Whether a stored value is a record (an object that is not a list). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored record's entries whose values are text. */
export function textEntries(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
