import { Badge, Button, Flex, Heading, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { capitalized } from '../../words.ts';
import { count } from '../closings/closing-words.ts';
import type { BulkPreflight } from './bulk-words.ts';

/**
 * The preflight's answer: its counts, the blocked grouped by reason, the run (`children`), then each transaction
 * with whether it is eligible or why not, 100 at a time.
 */
export function PreflightView({
  preflight,
  offset,
  busy,
  onPage,
  children,
}: {
  preflight: BulkPreflight;
  offset: number;
  busy: boolean;
  onPage: (offset: number) => void;
  children: ReactNode;
}) {
  return (
    <Flex direction="column" gap="4" aria-busy={busy}>
      <Flex direction="column" gap="2">
        <Heading as="h2" size="4">
          {preflight.title}: what it would do
        </Heading>
        <Flex gap="2" wrap="wrap" role="status">
          <Badge size="2" highContrast color="green">
            {count(preflight.eligible, 'eligible', 'eligible')}
          </Badge>
          <Badge size="2" highContrast color={preflight.blocked === 0 ? 'gray' : 'red'}>
            {count(preflight.blocked, 'blocked', 'blocked')}
          </Badge>
          {preflight.asks === 0 ? null : (
            <Badge size="2" highContrast color="amber">
              {preflight.asks.toLocaleString()} will ask a second person
            </Badge>
          )}
        </Flex>
      </Flex>
      {preflight.reasons.length === 0 ? null : (
        <Flex direction="column" gap="2">
          <Heading as="h3" size="3">
            Blocked, by reason
          </Heading>
          <ul className="plain-list bulk-reasons">
            {preflight.reasons.map((each) => (
              <li key={each.reason}>
                <Text size="2">{each.reason}</Text>
                <Badge highContrast color="gray" radius="full">
                  {each.count.toLocaleString()}
                </Badge>
              </li>
            ))}
          </ul>
        </Flex>
      )}
      {children}
      <Heading as="h3" size="3">
        Each transaction
      </Heading>
      <div className="table-scroll bulk-table table-cards">
        <Table.Root variant="surface" size="2">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeaderCell>Investor</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Template</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>State</Table.ColumnHeaderCell>
              <Table.ColumnHeaderCell>Check</Table.ColumnHeaderCell>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {preflight.items.map((item) => (
              <Table.Row key={item.id}>
                <Table.RowHeaderCell>
                  <ThemeLink asChild weight="medium">
                    <Link to={`/transactions/${item.id}`}>{item.investorName}</Link>
                  </ThemeLink>
                </Table.RowHeaderCell>
                <Table.Cell data-label="Template">{item.templateName}</Table.Cell>
                <Table.Cell data-label="State">{capitalized(item.stateTitle)}</Table.Cell>
                <Table.Cell data-label="Check">
                  {item.reason === null ? (
                    <Badge highContrast color={item.asks ? 'amber' : 'green'}>
                      {item.asks ? 'Eligible: asks a second person' : 'Eligible'}
                    </Badge>
                  ) : (
                    <Flex direction="column" gap="1" align="start">
                      <Badge highContrast color="red">
                        Blocked
                      </Badge>
                      <Text size="2">{item.reason}</Text>
                    </Flex>
                  )}
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </div>
      <Paging offset={offset} total={preflight.total} next={preflight.nextOffset} onPage={onPage} />
    </Flex>
  );
}

/** "Previous 100", "Next 100" and where the page stands, when there is more than one page. */
export function Paging({
  offset,
  total,
  next,
  onPage,
}: {
  offset: number;
  total: number;
  next: number | null;
  onPage: (offset: number) => void;
}) {
  if (offset === 0 && next === null) return null;
  return (
    <Flex gap="3" align="center" justify="end" wrap="wrap">
      <Text size="2" color="gray">
        {(offset + 1).toLocaleString()}–{Math.min(total, offset + 100).toLocaleString()} of{' '}
        {total.toLocaleString()}
      </Text>
      <Button
        variant="soft"
        color="gray"
        disabled={offset === 0}
        onClick={() => {
          onPage(Math.max(0, offset - 100));
        }}
      >
        Previous 100
      </Button>
      <Button
        variant="soft"
        disabled={next === null}
        onClick={() => {
          if (next !== null) onPage(next);
        }}
      >
        Next 100
      </Button>
    </Flex>
  );
}
