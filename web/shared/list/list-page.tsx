import { Box, Flex, Skeleton, Table, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import type { ApiError } from '../api-error.ts';
import { ErrorCallout } from '../error-callout.tsx';
import { EmptyState } from './empty-state.tsx';
import { Notice } from '../notice.tsx';
import { PageHeading } from '../page-heading.tsx';

/** A column of a {@link ListPage}'s table. */
export interface ListColumn {
  label: string;
  /** Hidden on a phone, where the first cell repeats what matters of it. */
  wide?: boolean;
}

/**
 * A page that lists things (API keys, people) in a table, one row each, and adds them through a dialog: its
 * heading and what the things are for, the button that opens the dialog (for those who may), why others may
 * not, where what was done is announced, and the table, a placeholder while it loads, or its error. Each row
 * is the page's own (`children`); its last cell holds the row's buttons, such as a {@link ConfirmDialog}.
 *
 * @example
 * <ListPage title="People" documentTitle="People · Acme" intro="…" add={<InviteDialog … />}
 *   columns={[{ label: 'Name' }]} actionsLabel="Actions" rows={people.data?.people} error={people.error}>
 *   {(person) => <Table.Row key={person.id}>…</Table.Row>}
 * </ListPage>
 */
export function ListPage<Row>({
  title,
  documentTitle,
  intro,
  add,
  notAllowed,
  status,
  rows,
  error,
  empty,
  columns,
  actionsLabel,
  children,
}: {
  /** The page's heading, also the table's caption. */
  title: string;
  documentTitle: string;
  intro: ReactNode;
  /** The button that opens the dialog that adds a row, or nothing for those who may not add. */
  add: ReactNode;
  /** Why this person cannot add or remove rows, when they cannot. */
  notAllowed: ReactNode;
  /** A live region that says what was just done. */
  status: ReactNode;
  /** The rows, undefined until they are read. */
  rows: readonly Row[] | undefined;
  error: ApiError | undefined;
  /** What an empty list says. */
  empty?: { title: string; hint: string };
  columns: readonly ListColumn[];
  /** The (hidden) heading of the last column, that holds each row's buttons. */
  actionsLabel: string;
  children: (row: Row) => ReactNode;
}) {
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="end" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title={title} documentTitle={documentTitle} />
          <Text size="2" color="gray">
            {intro}
          </Text>
        </Flex>
        {add}
      </Flex>
      {notAllowed === undefined || notAllowed === null ? null : <Notice tone="aside">{notAllowed}</Notice>}
      {status}
      <ErrorCallout error={error} />
      {rows === undefined ? (
        error === undefined ? (
          <Skeleton height="160px" />
        ) : null
      ) : rows.length === 0 && empty !== undefined ? (
        <EmptyState title={empty.title} hint={empty.hint} />
      ) : (
        <Box className="table-scroll">
          <Table.Root variant="surface">
            <caption className="visually-hidden">{title}</caption>
            <Table.Header>
              <Table.Row>
                {columns.map((column) => (
                  <Table.ColumnHeaderCell
                    key={column.label}
                    className={column.wide === true ? 'hide-on-phone' : undefined}
                  >
                    {column.label}
                  </Table.ColumnHeaderCell>
                ))}
                <Table.ColumnHeaderCell>
                  <span className="visually-hidden">{actionsLabel}</span>
                </Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>{rows.map(children)}</Table.Body>
          </Table.Root>
        </Box>
      )}
    </Flex>
  );
}
