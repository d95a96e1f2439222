import { MagnifyingGlassIcon } from '@radix-ui/react-icons';
import { TextField } from '@radix-ui/themes';
import { useEffect, useLayoutEffect, useRef, useState, type ComponentProps } from 'react';

/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 250;

/**
 * What is typed in a list's search field, and when it reaches the list: `apply` runs once typing pauses, unless
 * what is typed is the list's `search` already, or is shorter than `minLength` (an empty field always goes).
 * The list's `search` (in the address, on back and forward) reaches the field.
 *
 * @example
 * const [typed, setTyped] = useTypedSearch(search, (typed) => { setParams({ search: typed }); });
 */
export function useTypedSearch(
  search: string,
  apply: (typed: string) => void,
  { minLength = 0 }: { minLength?: number } = {},
): [string, (typed: string) => void] {
  const [typed, setTyped] = useState(search);
  // The latest `apply`, with what it knows of the page now, without a new pause each time the page renders.
  const latestApply = useRef(apply);
  useLayoutEffect(() => {
    latestApply.current = apply;
  });

  useEffect(() => {
    setTyped(search);
  }, [search]);
  // A layout effect, whose cleanup runs as the list leaves the page or the text changes: a passive effect's runs
  // after the next paint, and a pause ending before it would move the person, who clicked a row meanwhile, back
  // to the list (`apply` navigates to the list's address).
  useLayoutEffect(() => {
    if (typed === search) return;
    if (typed.trim() !== '' && typed.trim().length < minLength) return;
    const timer = setTimeout(() => {
      latestApply.current(typed);
    }, SEARCH_DELAY_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [typed, search, minLength]);
  return [typed, setTyped];
}

/** A list's search field, with its magnifier: `onType` hears what is typed, as it is typed. */
export function SearchField({
  onType,
  ...input
}: { onType: (typed: string) => void } & Omit<ComponentProps<typeof TextField.Root>, 'type' | 'onChange'>) {
  return (
    <TextField.Root
      type="search"
      {...input}
      onChange={(event) => {
        onType(event.target.value);
      }}
    >
      <TextField.Slot>
        <MagnifyingGlassIcon aria-hidden />
      </TextField.Slot>
    </TextField.Root>
  );
}
