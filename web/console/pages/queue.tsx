import { Badge, Button, Flex, Skeleton, Table, Text } from '@radix-ui/themes';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { EmptyState } from '../../shared/list/empty-state.tsx';
import { SearchField, useTypedSearch } from '../../shared/list/search-field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useResource } from '../../shared/use-resource.ts';
import { consoleApi } from '../api.ts';
import { useLiveChanges } from '../live.tsx';
import { NewButton } from '../new-button.tsx';
import { ExportLinks } from './export-links.tsx';
import { may } from '../roles.ts';
import { useSignedIn } from '../session.tsx';
import type { QueueTab } from '../types.ts';
import { capitalized } from '../words.ts';
import { ClosingFilter } from './closings/closing-filter.tsx';
import { Row, type FromQueue } from './queue-row.tsx';
import { PageCheckbox, SelectionBar, useQueueSelection } from './queue-selection.tsx';
import { filterOf } from './bulk/selection.ts';
import './queue.css';

/** The shortest search the server takes (src/transactions/console/queue/queue-query.ts). */
const MIN_SEARCH = 3;

/** The queue's orders, as the sort menu names them. */
const SORTS = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  longest_in_state: 'Longest in their state',
  recently_updated: 'Recently updated',
} as const;
type Sort = keyof typeof SORTS;

/** The address's filters that the server reads, by the names the address and the route share. */
const FILTERS = [
  'search',
  'template',
  'state',
  'sender',
  'closing',
  'inStateForDays',
  'sort',
  'after',
] as const;
/** The filters of the menus that fold into one "Filters" button on a phone. */
const MENU_FILTERS = ['template', 'sender', 'inStateForDays', 'sort'] as const;

/** A filter's menu: its element's id, its label and its choices (value and text; the first is "all"). */
interface Menu {
  name: (typeof MENU_FILTERS)[number];
  id: string;
  label: string;
  choices: readonly (readonly [string, string])[];
}

/** A native menu: small, keyboard- and phone-friendly, labelled. */
function Choice({ menu, value, onChange }: { menu: Menu; value: string; onChange: (value: string) => void }) {
  const { id, label: text } = menu;
  return (
    <Flex direction="column" gap="1">
      <Text as="label" htmlFor={id} size="1" color="gray">
        {text}
      </Text>
      <select
        id={id}
        className="native-select"
        value={value}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      >
        {menu.choices.map(([choice, shown]) => (
          <option key={choice} value={choice}>
            {shown}
          </option>
        ))}
      </select>
    </Flex>
  );
}

/** The tabs: every state of the organization's templates with its count, and all of them. */
function Tabs({ tabs, state, link }: { tabs: QueueTab[]; state: string; link: (state: string) => string }) {
  const total = tabs.reduce((sum, tab) => sum + tab.count, 0);
  const all = [{ state: '', title: 'All', count: total, final: false }, ...tabs];
  return (
    <nav aria-label="States">
      <Flex gap="2" wrap="wrap" asChild>
        <ul className="plain-list queue-tabs">
          {all.map((tab) => (
            <li key={tab.state}>
              <Button
                asChild
                size="1"
                variant={tab.state === state ? 'solid' : 'soft'}
                color="gray"
                highContrast
              >
                <Link to={link(tab.state)} aria-current={tab.state === state ? 'page' : undefined}>
                  {capitalized(tab.title)}
                  <Badge variant="surface" radius="full" ml="1">
                    {tab.count}
                  </Badge>
                </Link>
              </Button>
            </li>
          ))}
        </ul>
      </Flex>
    </nav>
  );
}

/**
 * The work queue (`/console/queue`, the console's home): the organization's transactions with a tab per state
 * and its count, searched by investor (their entity's legal name), contact, e-mail, sender or id, filtered by
 * template, sender, closing (from a closing's page, shown as a chip that removes it) and time in state, sorted, a
 * page at a time. Everything chosen is in the address, so a reload, the back button or a link sent to a colleague
 * shows the same list. It follows changes made anywhere (the API, an investor, a colleague, another node) within a
 * second, without a reload. On a phone the four menus fold into one "Filters" button that says how many are set,
 * so that the list starts on the first screen.
 */
export function QueuePage() {
  const { tenant, user } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const value = (name: (typeof FILTERS)[number]) => params.get(name) ?? '';
  const search = value('search');
  const state = value('state');
  const sort = (value('sort') || 'newest') as Sort;
  const [tabs, setTabs] = useState<QueueTab[]>();
  const [now, setNow] = useState(() => Date.now());
  const [menusOpen, setMenusOpen] = useState(false);
  const menusId = useId();

  /** The address with `changes` (an empty value leaves its filter out); a change of list starts at its first page. */
  const withChanges = (changes: Partial<Record<(typeof FILTERS)[number], string>>) => {
    const next = new URLSearchParams(params);
    for (const [name, changed] of Object.entries(changes)) {
      if (changed === '') next.delete(name);
      else next.set(name, changed);
    }
    if (!('after' in changes)) next.delete('after');
    return next;
  };
  const change = (changes: Partial<Record<(typeof FILTERS)[number], string>>) => {
    setParams(withChanges(changes), { replace: 'search' in changes });
  };

  const [typed, setTyped] = useTypedSearch(
    search,
    (text) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (text.trim() === '') next.delete('search');
          else next.set('search', text.trim());
          next.delete('after');
          return next;
        },
        { replace: true },
      );
    },
    { minLength: MIN_SEARCH },
  );

  // The address's filters go to the server as they are typed there: it refuses what it cannot read.
  const given = (name: (typeof FILTERS)[number]) => value(name) || undefined;
  const exportQuery = {
    search: given('search'),
    template: given('template'),
    state: given('state'),
    sender: given('sender'),
    closing: given('closing'),
    inStateForDays: given('inStateForDays') === undefined ? undefined : Number(value('inStateForDays')),
    sort: given('sort') as Sort | undefined,
  };
  const queue = useResource(consoleApi, 'GET /queue', { query: { ...exportQuery, after: given('after') } });
  const options = useResource(consoleApi, 'GET /queue/options');
  const { reload } = queue;
  useLiveChanges(undefined, () => {
    setNow(Date.now());
    reload();
  });
  const shown = queue.data ?? queue.previous;
  // The tabs come with a list's first page; the pages after keep the first one's.
  const latestTabs = shown?.tabs;
  useEffect(() => {
    if (latestTabs) setTabs(latestTabs);
  }, [latestTabs]);

  const typedTooShort = typed.trim() !== '' && typed.trim().length < MIN_SEARCH;
  const filtered = FILTERS.some((name) => name !== 'sort' && name !== 'after' && value(name) !== '');
  const menusSet = MENU_FILTERS.filter((name) => value(name) !== '').length;
  const menus: Menu[] = [
    {
      name: 'template',
      id: 'queue-template',
      label: 'Template',
      choices: [
        ['', 'All templates'],
        ...(options.data?.templates.map((each) => [each.key, each.name] as const) ?? []),
      ],
    },
    {
      name: 'sender',
      id: 'queue-sender',
      label: 'Sender',
      choices: [
        ['', 'All senders'],
        ...(options.data?.senders.map((each) => [each.id, each.name] as const) ?? []),
      ],
    },
    {
      name: 'inStateForDays',
      id: 'queue-age',
      label: 'In their state',
      choices: [
        ['', 'Any time'],
        ['3', '3 days or more'],
        ['7', 'A week or more'],
        ['30', 'A month or more'],
      ],
    },
    { name: 'sort', id: 'queue-sort', label: 'Order', choices: Object.entries(SORTS) },
  ];
  const from: FromQueue = params.size === 0 ? {} : { queue: `?${params.toString()}` };
  /** The queue's address with `changes`. */
  const queueWith = (changes: Partial<Record<(typeof FILTERS)[number], string>>) => {
    const text = withChanges(changes).toString();
    return text === '' ? '/queue' : `/queue?${text}`;
  };
  const tabLink = (target: string) => queueWith({ state: target });
  const listOf = useRef<HTMLDivElement>(null);
  // Operators and admins choose rows for a bulk action; the others see no boxes.
  const operate = may(user.role, 'operate');
  const selection = useQueueSelection(filterOf(withChanges({ after: '' })));
  const matching = tabs?.reduce((sum, tab) => sum + (state === '' || tab.state === state ? tab.count : 0), 0);

  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="start" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title="Work queue" documentTitle={`Work queue · ${tenant.name}`} />
          <Text size="2" color="gray">
            Every transaction of {tenant.name}, where it is and for how long. It updates by itself.
          </Text>
        </Flex>
        <Flex gap="2" wrap="wrap" align="start">
          <ExportLinks query={exportQuery} />
          <NewButton
            to="/transactions/new"
            label="New transaction"
            allowed={may(user.role, 'operate')}
            reasonId="new-transaction-reason"
            reason="Only admins and operators start transactions."
          />
        </Flex>
      </Flex>
      {tabs ? <Tabs tabs={tabs} state={state} link={tabLink} /> : <Skeleton height="32px" />}
      <Flex gap="3" wrap="wrap" align="end" className="queue-filters">
        <Flex direction="column" gap="1" className="queue-search">
          <Text as="label" htmlFor="queue-search" size="1" color="gray">
            Search
          </Text>
          <SearchField
            id="queue-search"
            placeholder="Investor, contact, e-mail, sender or id"
            value={typed}
            aria-describedby={typedTooShort ? 'queue-search-hint' : undefined}
            onType={setTyped}
          />
          {typedTooShort ? (
            <Text id="queue-search-hint" size="1" color="gray" role="status">
              Type at least {MIN_SEARCH} characters.
            </Text>
          ) : null}
        </Flex>
        <Button
          type="button"
          variant="soft"
          color="gray"
          className="queue-filters-toggle"
          aria-expanded={menusOpen}
          aria-controls={menusId}
          onClick={() => {
            setMenusOpen((open) => !open);
          }}
        >
          {menusSet === 0 ? 'Filters' : `Filters (${String(menusSet)} set)`}
        </Button>
        <div id={menusId} className="queue-filter-menus" data-open={String(menusOpen)}>
          {menus.map((menu) => (
            <Choice
              key={menu.name}
              menu={menu}
              value={menu.name === 'sort' ? sort : value(menu.name)}
              onChange={(picked) => {
                change({ [menu.name]: menu.name === 'sort' && picked === 'newest' ? '' : picked });
              }}
            />
          ))}
        </div>
      </Flex>
      {value('closing') === '' ? null : (
        <ClosingFilter id={value('closing')} removed={queueWith({ closing: '' })} />
      )}
      <ErrorCallout error={queue.error} />
      {operate ? <SelectionBar selection={selection} matching={matching} /> : null}
      <div ref={listOf} className="table-scroll" aria-live="polite" aria-busy={queue.loading}>
        {shown === undefined ? (
          <Skeleton height="240px" />
        ) : shown.rows.length === 0 ? (
          <EmptyState
            title={filtered ? 'No transaction matches' : 'No transactions yet'}
            hint={
              filtered
                ? 'Try part of a name or an address, another tab, or fewer filters.'
                : 'Transactions appear here as soon as they are started: with New transaction, through the API or the CLI.'
            }
          />
        ) : (
          <Table.Root variant="surface" size="2">
            <Table.Header>
              <Table.Row>
                {operate ? (
                  <Table.ColumnHeaderCell className="queue-select">
                    <PageCheckbox selection={selection} ids={shown.rows.map((row) => row.id)} />
                  </Table.ColumnHeaderCell>
                ) : null}
                <Table.ColumnHeaderCell>Investor</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Template and sender</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Assigned to</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Updated</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {shown.rows.map((row) => (
                <Row
                  key={row.id}
                  row={row}
                  now={now}
                  from={from}
                  select={
                    operate
                      ? {
                          checked: selection.isChosen(row.id),
                          fixed: selection.all,
                          onChange: (on) => {
                            selection.toggle(row.id, on);
                          },
                        }
                      : undefined
                  }
                />
              ))}
            </Table.Body>
          </Table.Root>
        )}
      </div>
      <Flex gap="3" justify="end" align="center">
        {value('after') === '' ? null : (
          <Button asChild variant="soft" color="gray">
            <Link to={`/queue?${withChanges({ after: '' }).toString()}`}>Back to the first page</Link>
          </Button>
        )}
        {shown?.nextCursor ? (
          <Button asChild variant="soft">
            <Link
              to={`/queue?${withChanges({ after: shown.nextCursor }).toString()}`}
              onClick={() => {
                listOf.current?.scrollIntoView();
              }}
            >
              Next page
            </Link>
          </Button>
        ) : null}
      </Flex>
    </Flex>
  );
}
