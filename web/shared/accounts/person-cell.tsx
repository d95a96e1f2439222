import { Box, Flex, Table, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';

/** What a person is called on a page: their name, or their address until they have one. */
export function nameOf(person: { name: string; email: string }): string {
  return person.name || person.email;
}

/**
 * The first cell of a person's row in a list of people: their name (as text, whatever it holds), "(you)" on
 * one's own row, and below it on a phone, where their columns are hidden, their address and `onPhone`.
 */
export function PersonCell({
  person,
  you,
  onPhone,
}: {
  person: { name: string; email: string };
  you: boolean;
  /** What else the row shows on a phone only (its role, in a column hidden there). */
  onPhone?: ReactNode;
}) {
  return (
    <Table.RowHeaderCell>
      <Flex direction="column">
        <Text weight="medium">
          {nameOf(person)}
          {you ? <Text color="gray"> (you)</Text> : null}
        </Text>
        <Text size="1" color="gray" className="show-on-phone">
          {person.email}
        </Text>
        {onPhone === undefined ? null : <Box className="show-on-phone">{onPhone}</Box>}
      </Flex>
    </Table.RowHeaderCell>
  );
}
