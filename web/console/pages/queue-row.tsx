import { Badge, Checkbox, Flex, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { StateBadge } from '../state-badge.tsx';
import type { QueueRow } from '../types.ts';
import { contactOf, formatDate } from '../words.ts';

const DAY_MS = 24 * 3600 * 1000;

/** What a row's link hands a transaction's page in the history entry's state: the queue's query, if any. */
export type FromQueue = { queue?: string };

/** "for 6 days", "for 3 hours", "since just now": how long a row has been in its state. */
function forHowLong(since: string, now: number): string {
  const ms = Math.max(0, now - new Date(since).getTime());
  const days = Math.floor(ms / DAY_MS);
  if (days >= 1) return `for ${String(days)} ${days === 1 ? 'day' : 'days'}`;
  const hours = Math.floor(ms / 3600_000);
  if (hours >= 1) return `for ${String(hours)} ${hours === 1 ? 'hour' : 'hours'}`;
  return 'since just now';
}

/** A row's box for a bulk action: whether it is chosen, fixed while "all matching" is, and its change. */
export interface RowSelect {
  checked: boolean;
  fixed: boolean;
  onChange: (checked: boolean) => void;
}

/**
 * One transaction of the queue: its investor and contact, where it is and for how long, whether it stalls, who
 * has it; for those who may act on it, its box for a bulk action (`select`). Its link hands the transaction's page
 * the queue's address (`from`), for the way back.
 */
export function Row({
  row,
  now,
  from,
  select,
}: {
  row: QueueRow;
  now: number;
  from: FromQueue;
  select?: RowSelect | undefined;
}) {
  return (
    <Table.Row>
      {select === undefined ? null : (
        <Table.Cell className="queue-select">
          <Checkbox
            aria-label={`Select ${row.investorName}`}
            checked={select.checked}
            disabled={select.fixed}
            onCheckedChange={(checked) => {
              select.onChange(checked === true);
            }}
          />
        </Table.Cell>
      )}
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
