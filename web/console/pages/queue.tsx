import { Badge, Button, Flex, Link as ThemeLink, Skeleton, Table, Text } from '@radix-ui/themes';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { EmptyState } from '../../shared/list/empty-state.tsx';
import { SearchField, useTypedSearch } from '../../shared/list/search-field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { useResource } from '../../shared/use-resource.ts';
import { consoleApi } from '../api.ts';
import { useLiveChanges } from '../live.tsx';
import { useSignedIn } from '../session.tsx';
import { StateBadge } from '../state-badge.tsx';
import type { QueueRow, QueueTab } from '../types.ts';
import { capitalized, contactOf, formatDate } from '../words.ts';
import './queue.css';

/** The shortest search the server takes (src/transactions/console/queue/queue-query.ts). */
const MIN_SEARCH = 3;
const DAY_MS = 24 * 3600 * 1000;

/** The queue's orders, as the sort menu names them. */
const SORTS = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  longest_in_state: 'Longest in their state',
  recently_updated: 'Recently updated',
} as const;
type Sort = keyof typeof SORTS;

/** The address's filters that the server reads, by the names the address and the route share. */
const FILTERS = ['search', 'template', 'state', 'sender', 'inStateForDays', 'sort', 'after'] as const;
/** The filters of the menus that fold into one "Filters" button on a phone. */
const MENU_FILTERS = ['template', 'sender', 'inStateForDays', 'sort'] as const;

/** What a row's link hands a transaction's page in the history entry's state: the queue's query, if any. */
type FromQueue = { queue?: string };

/** Where a transaction's "← Work queue" goes: back to the tab, search, filters and page it came from, if any. */
export function queueAddressFrom(state: unknown): string {
  const queue = typeof state === 'object' && state !== null ? (state as FromQueue).queue : undefined;
  // Only a query string of the queue's own: never another path.
  return typeof queue === 'string' && queue.startsWith('?') ? `/queue${queue}` : '/queue';
}

/** "for 6 days", "for 3 hours", "since just now": how long a row has been in its state. */
function forHowLong(since: string, now: number): string {
  const ms = Math.max(0, now - new Date(since).getTime());
  const days = Math.floor(ms / DAY_MS);
  if (days >= 1) return `for ${String(days)} ${days === 1 ? 'day' : 'days'}`;
  const hours = Math.floor(ms / 3600_000);
  if (hours >= 1) return `for ${String(hours)} ${hours === 1 ? 'hour' : 'hours'}`;
  return 'since just now';
}

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
 * One transaction of the queue: its investor and contact, where it is and for how long, whether it stalls, who
 * has it. Its link hands the transaction's page the queue's address (`from`), for the way back.
 */
function Row({ row, now, from }: { row: QueueRow; now: number; from: FromQueue }) {
  return (
    <Table.Row>
      <Table.RowHeaderCell>
        <Flex direction="column" gap="1">
          <ThemeLink asChild weight="medium">
            <Link to={`/transactions/${row.id}`} state={from}>
              {row.investorName}
            </Link>
          </ThemeLink>
          <Text size="1" color="gray">
            {contactOf(row)}
          </Text>
          <Text size="1" color="gray" className="show-on-phone">
            {row.template.name} · {row.senderEntity.name}
          </Text>
        </Flex>
      </Table.RowHeaderCell>
      <Table.Cell>
        <Flex direction="column" gap="1" align="start">
          <StateBadge state={row.state} stage={row.stage} title={row.stateTitle} />
          <Text size="1" color="gray">
            {forHowLong(row.stateEnteredAt, now)}
          </Text>
          {row.stalled ? (
            <Badge color="amber" title="The investor has done nothing for a week while it is their turn.">
              Stalled
            </Badge>
          ) : null}
        </Flex>
      </Table.Cell>
      <Table.Cell className="hide-on-phone">
        <Text size="2">{row.template.name}</Text>
        <Text as="div" size="1" color="gray">
          {row.senderEntity.name}
        </Text>
      </Table.Cell>
      <Table.Cell className="hide-on-phone">
        {row.assignee ? <Text size="2">{row.assignee.name}</Text> : <Text color="gray">No one</Text>}
      </Table.Cell>
      <Table.Cell className="hide-on-phone">
        <time dateTime={row.updatedAt}>{formatDate(row.updatedAt)}</time>
      </Table.Cell>
    </Table.Row>
  );
}

/**
 * The work queue (`/console/queue`, the console's home): the organization's transactions with a tab per state
 * and its count, searched by investor (their entity's legal name), contact, e-mail, sender or id, filtered by
 * template, sender and time in state, sorted, a page at a time. Everything chosen is in the address, so a reload,
 * the back button or a link sent to a colleague shows the same list. It follows changes made anywhere (the API,
 * an investor, a colleague, another node) within a second, without a reload. On a phone the four menus fold
 * into one "Filters" button that says how many are set, so that the list starts on the first screen.
 */
export function QueuePage() {
  const { tenant } = useSignedIn();
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
  const queue = useResource(consoleApi, 'GET /queue', {
    query: {
      search: given('search'),
      template: given('template'),
      state: given('state'),
      sender: given('sender'),
      inStateForDays: given('inStateForDays') === undefined ? undefined : Number(value('inStateForDays')),
      sort: given('sort') as Sort | undefined,
      after: given('after'),
    },
  });
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
  const tabLink = (target: string) => {
    const text = withChanges({ state: target }).toString();
    return text === '' ? '/queue' : `/queue?${text}`;
  };
  const listOf = useRef<HTMLDivElement>(null);

  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="1">
        <PageHeading title="Work queue" documentTitle={`Work queue · ${tenant.name}`} />
        <Text size="2" color="gray">
          Every transaction of {tenant.name}, where it is and for how long. It updates by itself.
        </Text>
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
      <ErrorCallout error={queue.error} />
      <div ref={listOf} className="table-scroll" aria-live="polite" aria-busy={queue.loading}>
        {shown === undefined ? (
          <Skeleton height="240px" />
        ) : shown.rows.length === 0 ? (
          <EmptyState
            title={filtered ? 'No transaction matches' : 'No transactions yet'}
            hint={
              filtered
                ? 'Try part of a name or an address, another tab, or fewer filters.'
                : 'Transactions appear here as soon as they are created, through the API or the CLI.'
            }
          />
        ) : (
          <Table.Root variant="surface" size="2">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Investor</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Template and sender</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Assigned to</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Updated</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {shown.rows.map((row) => (
                <Row key={row.id} row={row} now={now} from={from} />
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
