import { Badge, Flex, Link as ThemeLink, Skeleton, Table, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { EmptyState } from '../../../shared/list/empty-state.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { useLiveChanges } from '../../live.tsx';
import { NewButton } from '../../new-button.tsx';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { formatDate } from '../../words.ts';
import { CLOSING_STATUS, count, createdOf, type ClosingSummary } from './closing-words.ts';

/** How far a closing is: its list's size while a draft, then how many of its transactions are created. */
function progressOf(closing: ClosingSummary): string {
  if (closing.status !== 'draft') return createdOf(closing.created, closing.rows);
  return closing.rows === 0 ? 'No list yet' : `${count(closing.rows, 'investor')} listed, not run yet`;
}

/** One closing of the list: its name (its page's link), template, status, progress and when it was made. */
function Row({ closing }: { closing: ClosingSummary }) {
  const status = CLOSING_STATUS[closing.status];
  return (
    <Table.Row>
      <Table.RowHeaderCell>
        <Flex direction="column" gap="1">
          <ThemeLink asChild weight="medium">
            <Link to={`/closings/${closing.id}`}>{closing.name}</Link>
          </ThemeLink>
          <Text size="1" color="gray" className="show-on-phone">
            {closing.templateName} · {formatDate(closing.createdAt)}
          </Text>
        </Flex>
      </Table.RowHeaderCell>
      <Table.Cell className="hide-on-phone">{closing.templateName}</Table.Cell>
      <Table.Cell>
        <Flex direction="column" gap="1" align="start">
          <Badge color={status.color} highContrast>
            {status.words}
          </Badge>
          <Text size="1" color="gray">
            {progressOf(closing)}
          </Text>
        </Flex>
      </Table.Cell>
      <Table.Cell className="hide-on-phone">
        <time dateTime={closing.createdAt}>{formatDate(closing.createdAt)}</time>
      </Table.Cell>
    </Table.Row>
  );
}

/**
 * The organization's closings (`/console/closings`), newest first: each with its template, its status in words,
 * how far it is ("12 of 30 created") and when it was made, its name leading to its page. "New closing" for those
 * who may make one; greyed with why for the others. It follows the runs as they go, without a reload.
 */
export default function ClosingsPage() {
  const { tenant, user } = useSignedIn();
  const closings = useResource(consoleApi, 'GET /closings');
  useLiveChanges(undefined, closings.reload);
  const shown = closings.data ?? closings.previous;
  return (
    <Flex direction="column" gap="4">
      <Flex justify="between" align="start" gap="3" wrap="wrap">
        <Flex direction="column" gap="1">
          <PageHeading title="Closings" documentTitle={`Closings · ${tenant.name}`} />
          <Text size="2" color="gray">
            A closing invites a list of investors at once: one transaction each, checked row by row before
            anything is sent.
          </Text>
        </Flex>
        <NewButton
          to="/closings/new"
          label="New closing"
          allowed={may(user.role, 'operate')}
          reasonId="new-closing-reason"
          reason="Only admins and operators make closings."
        />
      </Flex>
      <ErrorCallout error={closings.error} />
      {shown === undefined ? (
        closings.error === undefined ? (
          <Skeleton height="160px" />
        ) : null
      ) : shown.closings.length === 0 ? (
        <EmptyState
          title="No closings yet"
          hint="Make one with New closing, then add its list of investors from a spreadsheet."
        />
      ) : (
        <div className="table-scroll">
          <Table.Root variant="surface">
            <caption className="visually-hidden">Closings</caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell>Name</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Template</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell>Status</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell className="hide-on-phone">Created</Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {shown.closings.map((closing) => (
                <Row key={closing.id} closing={closing} />
              ))}
            </Table.Body>
          </Table.Root>
        </div>
      )}
    </Flex>
  );
}
