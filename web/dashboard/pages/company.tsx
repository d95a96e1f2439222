import { ArrowLeftIcon } from '@radix-ui/react-icons';
import {
  Badge,
  Box,
  Card,
  DataList,
  Flex,
  Grid,
  Heading,
  Link as ThemeLink,
  Skeleton,
  Table,
  Text,
} from '@radix-ui/themes';
import { Link, useParams } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { HeadedSection } from '../../shared/layout/headed-section.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { TrendChart } from '../components/trend-chart.tsx';
import {
  formatCents,
  formatCount,
  formatDate,
  formatEnum,
  formatMoney,
  formatMonths,
  sumCents,
} from '../format.ts';
import { useSignedIn } from '../session.tsx';
import type { CompanyUpdate, Investment } from '../types.ts';
import { dashboardApi } from '../api.ts';
import { useResource } from '../../shared/use-resource.ts';

/** How many of the latest updates show their summaries. */
const LATEST_UPDATES = 3;

/**
 * A company at a glance: its funds; cash in bank, runway and customers over time as charts; the latest
 * updates' summaries; its investments by round.
 */
export function CompanyPage() {
  const { tenant: instance } = useSignedIn();
  const { companyId = '' } = useParams();
  const detail = useResource(dashboardApi, 'GET /instances/:slug/companies/:id', {
    params: { slug: instance.slug, id: companyId },
  });
  const back = (
    <ThemeLink asChild size="2">
      <Link to={`/${instance.slug}/companies`}>
        <ArrowLeftIcon aria-hidden /> All companies
      </Link>
    </ThemeLink>
  );

  if (detail.data === undefined) {
    return (
      <Flex direction="column" gap="4">
        {back}
        {detail.error === undefined ? (
          <>
            <PageHeading title="Company" documentTitle={`Company · ${instance.name}`}>
              <Skeleton>Loading the company</Skeleton>
            </PageHeading>
            <Skeleton height="240px" />
          </>
        ) : (
          <>
            <PageHeading
              title={detail.error.code === 'NOT_FOUND' ? 'No such company' : 'The company could not be shown'}
            />
            <ErrorCallout error={detail.error} />
          </>
        )}
      </Flex>
    );
  }

  const { company, updates, investments } = detail.data;
  return (
    <Flex direction="column" gap="5">
      <Flex direction="column" gap="2">
        {back}
        <PageHeading title={company.legalName} documentTitle={`${company.legalName} · ${instance.name}`} />
        <Flex gap="2" wrap="wrap" align="center">
          <Text size="2" color="gray">
            {company.funds.length === 0 ? 'Held by no fund' : company.funds.length === 1 ? 'Fund:' : 'Funds:'}
          </Text>
          {company.funds.map((fund) => (
            <Badge key={fund.id} color="indigo" variant="soft">
              {fund.name}
            </Badge>
          ))}
          <Text size="2" color="gray">
            · in the portfolio since {formatDate(company.createdAt)}
          </Text>
        </Flex>
      </Flex>
      <UpdatesSection updates={updates} />
      <InvestmentsSection investments={investments} />
    </Flex>
  );
}

/** A change since the update before, as "+12 since Q2" for a screen and its reader alike. */
function change(
  current: number | null,
  previous: number | null | undefined,
  format: (value: number) => string,
) {
  if (current === null || previous === null || previous === undefined) return undefined;
  const difference = current - previous;
  if (difference === 0) return 'unchanged since the update before';
  return `${difference > 0 ? '+' : '−'}${format(Math.abs(difference))} since the update before`;
}

function Stat({ label, value, note }: { label: string; value: string; note?: string | undefined }) {
  return (
    <Card>
      <Flex direction="column" gap="1">
        <Text size="2" color="gray">
          {label}
        </Text>
        <Text size="6" weight="bold">
          {value}
        </Text>
        {note === undefined ? null : (
          <Text size="1" color="gray">
            {note}
          </Text>
        )}
      </Flex>
    </Card>
  );
}

function UpdatesSection({ updates }: { updates: CompanyUpdate[] }) {
  const latest = updates.at(-1);
  const before = updates.at(-2);
  if (!latest) {
    return (
      <HeadedSection id="updates-heading" title="Updates" size="5" mb="2">
        <Box className="empty-state">
          <Text as="p" size="2" color="gray">
            The company has not reported an update yet.
          </Text>
        </Box>
      </HeadedSection>
    );
  }
  // Charts compare like with like: cash in the latest update's currency.
  const currency = latest.cashInBankAmountCurrency;
  const inCurrency = updates.filter((update) => update.cashInBankAmountCurrency === currency);
  const money = (value: number) => formatMoney(value, currency, { compact: true });
  const points = (value: (update: CompanyUpdate) => number | null, from = updates) =>
    from.map((update) => ({ date: update.updateDate, value: value(update) }));

  return (
    <section aria-labelledby="updates-heading">
      <Flex direction="column" gap="4">
        <Flex justify="between" align="baseline" wrap="wrap" gap="2">
          <Heading as="h2" size="5" id="updates-heading">
            Updates
          </Heading>
          <Text size="2" color="gray">
            {formatCount(updates.length)} {updates.length === 1 ? 'update' : 'updates'}, the latest of{' '}
            {formatDate(latest.updateDate)}
          </Text>
        </Flex>
        <Grid columns={{ initial: '1', xs: '3' }} gap="3">
          <Stat
            label="Cash in bank"
            value={formatMoney(latest.cashInBankAmountValue, currency)}
            note={
              before?.cashInBankAmountCurrency === currency
                ? change(latest.cashInBankAmountValue, before.cashInBankAmountValue, money)
                : undefined
            }
          />
          <Stat
            label="Runway"
            value={latest.runwayInMonths === null ? 'Not reported' : formatMonths(latest.runwayInMonths)}
            note={change(latest.runwayInMonths, before?.runwayInMonths, formatMonths)}
          />
          <Stat
            label="Customers"
            value={formatCount(latest.numberOfCustomers)}
            note={change(latest.numberOfCustomers, before?.numberOfCustomers, formatCount)}
          />
        </Grid>
        <Grid columns={{ initial: '1', md: '3' }} gap="3">
          <TrendChart
            title="Cash in bank"
            kind="area"
            points={points((update) => update.cashInBankAmountValue, inCurrency)}
            format={money}
            note={
              inCurrency.length < updates.length
                ? `Only the updates reported in ${currency} are shown.`
                : undefined
            }
          />
          <TrendChart
            title="Runway (months)"
            kind="line"
            points={points((update) => update.runwayInMonths)}
            format={formatMonths}
            axisFormat={formatCount}
          />
          <TrendChart
            title="Customers"
            kind="bar"
            points={points((update) => update.numberOfCustomers)}
            format={formatCount}
          />
        </Grid>
        <Flex direction="column" gap="3">
          <Heading as="h3" size="4">
            Latest summaries
          </Heading>
          {updates
            .slice(-LATEST_UPDATES)
            .reverse()
            .map((update) => (
              <UpdateCard key={update.id} update={update} />
            ))}
        </Flex>
      </Flex>
    </section>
  );
}

function UpdateCard({ update }: { update: CompanyUpdate }) {
  const facts = [
    ['Summary', update.summary],
    ['Product', update.productUpdatesSummary],
    ['Business', update.businessUpdatesSummary],
    ['New round', update.hasNewRound ? (update.newRoundDescription ?? 'Raising') : null],
  ].filter((fact): fact is [string, string] => fact[1] !== null);
  return (
    <Card>
      <Flex direction="column" gap="2">
        <Flex justify="between" wrap="wrap" gap="2">
          <Text weight="bold">{update.title}</Text>
          <Text size="2" color="gray">
            <time dateTime={update.updateDate}>{formatDate(update.updateDate)}</time>
          </Text>
        </Flex>
        {facts.length === 0 ? (
          <Text size="2" color="gray">
            No summary in this update.
          </Text>
        ) : (
          <DataList.Root size="2" orientation={{ initial: 'vertical', sm: 'horizontal' }}>
            {facts.map(([label, text]) => (
              <DataList.Item key={label}>
                <DataList.Label minWidth="96px">{label}</DataList.Label>
                <DataList.Value>{text}</DataList.Value>
              </DataList.Item>
            ))}
          </DataList.Root>
        )}
      </Flex>
    </Card>
  );
}

/** Investments grouped by round, in the order the rounds were first invested in. */
function byRound(investments: Investment[]): [string, Investment[]][] {
  const groups = new Map<string, Investment[]>();
  for (const investment of investments.toSorted((a, b) => a.date.localeCompare(b.date))) {
    const round = investment.round ?? 'Round not named';
    groups.set(round, [...(groups.get(round) ?? []), investment]);
  }
  return [...groups];
}

/** Amounts by currency, `$1,000.00 + €500.00`. */
function totals(sums: Map<string, bigint>): string {
  return [...sums].map(([currency, cents]) => formatCents(cents.toString(), currency)).join(' + ') || '—';
}

function InvestmentsSection({ investments }: { investments: Investment[] }) {
  const invested = sumCents(investments, (each) => ({
    cents: each.amountCents,
    currency: each.amountCurrency,
  }));
  const value = sumCents(investments, (each) => ({
    cents: each.unrealizedValueCents,
    currency: each.unrealizedValueCurrency,
  }));
  return (
    <section aria-labelledby="investments-heading">
      <Flex direction="column" gap="4">
        <Heading as="h2" size="5" id="investments-heading">
          Investments
        </Heading>
        {investments.length === 0 ? (
          <Box className="empty-state">
            <Text as="p" size="2" color="gray">
              No investment in this company is recorded.
            </Text>
          </Box>
        ) : (
          <>
            <Grid columns={{ initial: '1', xs: '2' }} gap="3">
              <Stat
                label="Invested"
                value={totals(invested)}
                note={`${formatCount(investments.length)} ${investments.length === 1 ? 'investment' : 'investments'}`}
              />
              <Stat label="Unrealized value" value={totals(value)} />
            </Grid>
            {byRound(investments).map(([round, inRound]) => (
              <Flex direction="column" gap="2" key={round}>
                <Heading as="h3" size="3">
                  {round}
                </Heading>
                <Box className="table-scroll">
                  <Table.Root variant="surface" size="1">
                    <caption className="visually-hidden">{`Investments of ${round}`}</caption>
                    <Table.Header>
                      <Table.Row>
                        <Table.ColumnHeaderCell>Date</Table.ColumnHeaderCell>
                        <Table.ColumnHeaderCell className="hide-on-phone">Instrument</Table.ColumnHeaderCell>
                        <Table.ColumnHeaderCell justify="end">Invested</Table.ColumnHeaderCell>
                        <Table.ColumnHeaderCell justify="end">Unrealized value</Table.ColumnHeaderCell>
                        <Table.ColumnHeaderCell className="hide-on-phone">Status</Table.ColumnHeaderCell>
                        <Table.ColumnHeaderCell className="hide-on-phone">Lead</Table.ColumnHeaderCell>
                      </Table.Row>
                    </Table.Header>
                    <Table.Body>
                      {inRound.map((investment) => (
                        <Table.Row key={investment.id}>
                          <Table.RowHeaderCell>
                            <time dateTime={investment.date}>{formatDate(investment.date)}</time>
                            {investment.isFollowOnInvestment ? (
                              <Badge ml="2" color="gray" variant="outline" className="hide-on-phone">
                                Follow-on
                              </Badge>
                            ) : null}
                          </Table.RowHeaderCell>
                          <Table.Cell className="hide-on-phone">
                            {formatEnum(investment.instrument)}
                          </Table.Cell>
                          <Table.Cell justify="end" className="numeric">
                            {formatCents(investment.amountCents, investment.amountCurrency)}
                          </Table.Cell>
                          <Table.Cell justify="end" className="numeric">
                            {formatCents(investment.unrealizedValueCents, investment.unrealizedValueCurrency)}
                          </Table.Cell>
                          <Table.Cell className="hide-on-phone">
                            {formatEnum(investment.investmentStatus)}
                          </Table.Cell>
                          <Table.Cell className="hide-on-phone">{investment.leadInvestor ?? '—'}</Table.Cell>
                        </Table.Row>
                      ))}
                    </Table.Body>
                  </Table.Root>
                </Box>
              </Flex>
            ))}
          </>
        )}
      </Flex>
    </section>
  );
}
