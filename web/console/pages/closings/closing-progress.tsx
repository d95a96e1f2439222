import { Button, DataList, Flex, Grid, Link as ThemeLink, Text } from '@radix-ui/themes';
import { Link } from 'react-router';
import { formatMoney } from '../../../../src/transactions/money.ts';
import { locale } from '../../../shared/format.ts';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { capitalized, formatDateTime, words } from '../../words.ts';
import { count, createdOf, type ClosingDetail } from './closing-words.ts';
import { CardSection } from '../../../shared/layout/headed-section.tsx';

/** An amount committed, in its currency; its minor units when the currency is not one the page knows. */
function money(currency: string, amount: number): string {
  try {
    return formatMoney({ currency, amount }, locale);
  } catch {
    return `${amount.toLocaleString(locale)} ${currency} (minor units)`;
  }
}

/**
 * The states' titles, as the work queue's tabs name them (the templates' own titles, else their keys in words),
 * read with the tabs of the closing's transactions.
 */
function useStateTitles(closingId: string): (state: string) => string {
  const queue = useResource(consoleApi, 'GET /queue', { query: { closing: closingId, first: 1 } });
  const titles = new Map((queue.data?.tabs ?? []).map((tab) => [tab.state, tab.title]));
  return (state) => capitalized(titles.get(state) ?? words(state));
}

/**
 * A closing that has run (or runs now): how far it is ("17 of 29 created", with a bar), the rows that could not
 * be created and why, its transactions by state (each a link to them in the work queue), the money they commit
 * per currency, how many investors have not opened their link and how many stall, and the way to its
 * transactions in the work queue. The page reads it again as its transactions change.
 */
export function ClosingProgress({ closing }: { closing: ClosingDetail }) {
  const counts = closing.rowCounts;
  const total = counts.created + counts.failed + counts.ready + counts.problem;
  const title = useStateTitles(closing.id);
  // Once run, a closing's rows are those not created.
  const failed = closing.rows.filter((row) => row.status === 'failed');
  const queue = `/queue?closing=${encodeURIComponent(closing.id)}`;
  return (
    <Flex direction="column" gap="4">
      <Grid columns={{ initial: '1', md: '2' }} gap="4">
        <CardSection title="Progress">
          <Flex direction="column" gap="3">
            <Text size="6" weight="bold" id="progress-count">
              {createdOf(counts.created, total)}
            </Text>
            <progress
              className="closing-progress"
              max={Math.max(total, 1)}
              value={counts.created}
              aria-labelledby="progress-count"
            />
            <Text size="2" role="status">
              {closing.status === 'running'
                ? `Creating ${counts.created === 0 ? 'them' : 'the rest'} now: each investor is mailed their invitation as theirs is created.`
                : closing.status === 'finished'
                  ? `Finished ${formatDateTime(closing.finishedAt ?? closing.createdAt)}.`
                  : `Stopped${closing.stopReason === null ? '' : `: ${closing.stopReason}`}`}
              {counts.failed > 0
                ? ` ${count(counts.failed, 'row')} could not be created: see why below.`
                : ''}
            </Text>
            {counts.dropped > 0 ? (
              <Text size="2" color="gray">
                {count(counts.dropped, 'row was', 'rows were')} dropped before the run.
              </Text>
            ) : null}
            <Flex>
              <Button asChild variant="soft">
                <Link to={queue}>Open in the work queue</Link>
              </Button>
            </Flex>
          </Flex>
        </CardSection>
        <CardSection title="Committed">
          <Flex direction="column" gap="3">
            {closing.committed.length === 0 ? (
              <Text size="2" color="gray">
                No amount committed yet.
              </Text>
            ) : (
              <ul className="plain-list">
                {closing.committed.map((sum) => (
                  <li key={sum.currency}>
                    <Text size="6" weight="bold">
                      {money(sum.currency, sum.amount)}
                    </Text>
                  </li>
                ))}
              </ul>
            )}
            <DataList.Root size="2" orientation={{ initial: 'vertical', sm: 'horizontal' }}>
              <DataList.Item>
                <DataList.Label minWidth="180px">Link not opened yet</DataList.Label>
                <DataList.Value>{count(closing.notOpened, 'investor')}</DataList.Value>
              </DataList.Item>
              <DataList.Item>
                <DataList.Label minWidth="180px">Stalled</DataList.Label>
                <DataList.Value>
                  <Flex direction="column" gap="1">
                    <Text>{count(closing.stalled, 'transaction')}</Text>
                    <Text size="1" color="gray">
                      The investor&apos;s turn, and nothing done for a week.
                    </Text>
                  </Flex>
                </DataList.Value>
              </DataList.Item>
            </DataList.Root>
          </Flex>
        </CardSection>
      </Grid>
      <CardSection title="Where they are">
        {closing.states.length === 0 ? (
          <Text size="2" color="gray">
            No transaction created yet.
          </Text>
        ) : (
          <ul className="plain-list closing-states">
            {closing.states.map(({ state, count: number }) => (
              <li key={state}>
                <ThemeLink asChild>
                  <Link to={`${queue}&state=${encodeURIComponent(state)}`}>{title(state)}</Link>
                </ThemeLink>
                <Text weight="bold">{number.toLocaleString(locale)}</Text>
              </li>
            ))}
          </ul>
        )}
      </CardSection>
      {failed.length === 0 ? null : (
        <CardSection title={`Not created (${failed.length.toLocaleString(locale)})`}>
          <ul className="plain-list closing-failures">
            {failed.map((row) => (
              <li key={row.id}>
                <Text size="2" weight="medium">
                  Row {row.row}: {row.investor.name || 'no name'} ({row.investor.email || 'no e-mail'})
                </Text>
                <Text as="p" size="2" color="red" highContrast>
                  {row.failure ?? 'It could not be created.'}
                </Text>
              </li>
            ))}
          </ul>
        </CardSection>
      )}
    </Flex>
  );
}
