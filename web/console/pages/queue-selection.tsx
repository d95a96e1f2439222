import { Button, Card, Checkbox, Flex, Text } from '@radix-ui/themes';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { locale } from '../../shared/format.ts';
import { useSignedIn } from '../session.tsx';
import { useStoredState } from './closings/stored-state.ts';
import {
  chosenCount,
  MAX_SELECTION,
  readSelection,
  sameFilter,
  selectionKey,
  type BulkFilter,
  type ChosenSelection,
} from './bulk/selection.ts';

/** The work queue's selection for a bulk action, and the ways the checkboxes and the bar change it. */
export interface QueueSelection {
  chosen: ChosenSelection | null;
  /** Whether every transaction the filters keep is chosen (the rows' boxes then show it and are fixed). */
  all: boolean;
  isChosen: (id: string) => boolean;
  toggle: (id: string, on: boolean) => void;
  /** Chooses, or lets go of, the rows of the page. */
  togglePage: (ids: readonly string[], on: boolean) => void;
  chooseAll: (count: number) => void;
  clear: () => void;
}

/**
 * The selection of the queue shown with `filter`, kept in sessionStorage (bulk/selection.ts): rows chosen by hand
 * stay chosen across pages and filters; "all matching" holds for its filters only, and lets go once they change.
 */
export function useQueueSelection(filter: BulkFilter): QueueSelection {
  const { tenant, user } = useSignedIn();
  const [chosen, setChosen, clear] = useStoredState<ChosenSelection | null>(
    selectionKey(tenant.handle, user.id),
    null,
    readSelection,
  );
  const all = chosen !== null && 'filter' in chosen;
  const stale = all && !sameFilter(chosen.filter, filter);
  useEffect(() => {
    if (stale) clear();
  }, [stale, clear]);
  const ids = chosen !== null && 'ids' in chosen ? chosen.ids : [];
  const withIds = (next: string[]) => {
    setChosen(next.length === 0 ? null : { ids: next.slice(0, MAX_SELECTION) });
  };
  return {
    chosen: stale ? null : chosen,
    all: all && !stale,
    isChosen: (id) => (all && !stale) || ids.includes(id),
    toggle(id, on) {
      withIds(on ? [...ids.filter((each) => each !== id), id] : ids.filter((each) => each !== id));
    },
    togglePage(page, on) {
      const rest = ids.filter((id) => !page.includes(id));
      withIds(on ? [...rest, ...page] : rest);
    },
    chooseAll(count) {
      setChosen({ filter, count });
    },
    clear,
  };
}

/** The header's box: chooses the page's rows, or lets them go; mixed when some are chosen. */
export function PageCheckbox({ selection, ids }: { selection: QueueSelection; ids: readonly string[] }) {
  const chosenHere = ids.filter((id) => selection.isChosen(id)).length;
  return (
    <Checkbox
      aria-label="Select this page"
      disabled={selection.all || ids.length === 0}
      checked={chosenHere === 0 ? false : chosenHere === ids.length ? true : 'indeterminate'}
      onCheckedChange={(checked) => {
        selection.togglePage(ids, checked === true);
      }}
    />
  );
}

/**
 * The bar above the queue once rows are chosen: how many, "Select all 240 matching these filters" (within the
 * limit a bulk action takes), the way to act on them (the bulk page: its preflight, then the run) and to let go.
 */
export function SelectionBar({
  selection,
  matching,
}: {
  selection: QueueSelection;
  matching: number | undefined;
}) {
  const count = chosenCount(selection.chosen);
  if (count === 0) return null;
  const number = (value: number) => value.toLocaleString(locale);
  const offerAll = !selection.all && matching !== undefined && matching > count;
  return (
    <Card className="queue-selection-bar" role="region" aria-label="Selection">
      <Flex gap="3" align="center" wrap="wrap">
        <Text size="2" weight="medium" role="status">
          {selection.all ? `All ${number(count)} matching selected` : `${number(count)} selected`}
        </Text>
        {offerAll ? (
          matching > MAX_SELECTION ? (
            <Text size="1" color="gray">
              {number(matching)} match: a bulk action takes at most {number(MAX_SELECTION)}; narrow the
              filters.
            </Text>
          ) : (
            <Button
              type="button"
              variant="ghost"
              size="2"
              onClick={() => {
                selection.chooseAll(matching);
              }}
            >
              Select all {number(matching)} matching these filters
            </Button>
          )
        ) : null}
        <Flex gap="2" ml={{ sm: 'auto' }} wrap="wrap">
          <Button type="button" variant="soft" color="gray" onClick={selection.clear}>
            Clear selection
          </Button>
          <Button asChild>
            <Link to="/bulk/new">Act on selection…</Link>
          </Button>
        </Flex>
      </Flex>
    </Card>
  );
}
