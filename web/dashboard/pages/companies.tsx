import { ChevronLeftIcon, ChevronRightIcon } from '@radix-ui/react-icons';
import { Badge, Box, Button, Flex, Link as ThemeLink, Select, Skeleton, Table, Text } from '@radix-ui/themes';
import type { ReactNode } from 'react';
import { Link, useSearchParams, type To } from 'react-router';
import { ErrorCallout } from '../../shared/error-callout.tsx';
import { EmptyState } from '../../shared/list/empty-state.tsx';
import { SearchField, useTypedSearch } from '../../shared/list/search-field.tsx';
import { PageHeading } from '../../shared/page-heading.tsx';
import { formatCount, formatDate } from '../format.ts';
import { useSignedIn } from '../session.tsx';
import { dashboardApi } from '../api.ts';
import { useResource } from '../../shared/use-resource.ts';

const PAGE_SIZE = 20;
/** The funds a row names before "+n more". */
const FUNDS_SHOWN = 2;

/** The value of the fund filter that filters nothing (a Select item's value cannot be empty). */
const ALL_FUNDS = 'all';

/** The address's query for a search and a fund, on the first page: empty ones are left out. */
function filters({ search, fund }: { search: string; fund: string }): Record<string, string> {
  return {
    ...(search.trim() === '' ? {} : { search }),
    ...(fund === '' ? {} : { fund }),
  };
}

/** `12 companies in Fund One whose name contains “acme”.` */
function describeList(total: number, search: string, fund: string | undefined): string {
  const count = `${formatCount(total)} ${total === 1 ? 'company' : 'companies'}`;
  const where = fund === undefined ? (search === '' ? ' in your portfolio' : '') : ` held by ${fund}`;
  const named = search === '' ? '' : ` whose name contains “${search}”`;
  return `${count}${where}${named}.`;
}

/** A page number from the address: a whole number of at least 1, else 1. */
function pageOf(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The companies of the portfolio by legal name, searchable and paged. The search and the page are in the
 * address (`?search=acme&page=2`), so a reload, the back button or a shared link shows the same list.
 */
export function CompaniesPage() {
  const { tenant: instance } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const fund = params.get('fund') ?? '';
  const page = pageOf(params.get('page'));
  // What is typed reaches the address after a pause, from the first page.
  const [typed, setTyped] = useTypedSearch(search, (text) => {
    setParams(filters({ search: text, fund }), { replace: true });
  });

  const slug = instance.slug;
  const companies = useResource(dashboardApi, 'GET /instances/:slug/companies', {
    params: { slug },
    query: {
      page,
      pageSize: PAGE_SIZE,
      search: search.trim() === '' ? undefined : search.trim(),
      fund: fund === '' ? undefined : fund,
    },
  });
  const funds = useResource(dashboardApi, 'GET /instances/:slug/funds', { params: { slug } });
  const fundName = funds.data?.funds.find((each) => each.id === fund)?.name;
  const shown = companies.data ?? companies.previous;
  const pageLink = (target: number) => {
    const next = new URLSearchParams(params);
    if (target === 1) next.delete('page');
    else next.set('page', String(target));
    const text = next.toString();
    // Only the query changes: the path stays this page's.
    return { search: text === '' ? '' : `?${text}` };
  };
  const emptyText =
    search.trim() !== '' || fund !== ''
      ? {
          title: 'No company matches',
          hint:
            fund === ''
              ? 'Try part of the name, in any case.'
              : 'Try part of the name, in any case, or all funds.',
        }
      : page > 1
        ? { title: 'No companies on this page', hint: 'The list is shorter than that.' }
        : { title: 'No companies yet', hint: 'Companies appear once your portfolio is imported.' };
  const lastPage = shown === undefined ? 1 : Math.max(1, Math.ceil(shown.total / PAGE_SIZE));
  const first = (page - 1) * PAGE_SIZE + 1;

  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="1">
        <PageHeading title="Companies" documentTitle={`Companies · ${instance.name}`} />
        <Text size="2" color="gray">
          {shown === undefined
            ? 'The companies of your portfolio.'
            : describeList(
                shown.total,
                search.trim(),
                fund === '' ? undefined : (fundName ?? 'the chosen fund'),
              )}
        </Text>
      </Flex>
      <Flex gap="3" wrap="wrap" align="center">
        <Box flexGrow="1" maxWidth="420px" minWidth="220px">
          <label htmlFor="company-search" className="visually-hidden">
            Search companies by legal name
          </label>
          <SearchField
            id="company-search"
            size="3"
            placeholder="Search by legal name"
            value={typed}
            onType={setTyped}
            maxLength={200}
          />
        </Box>
        <Select.Root
          size="3"
          value={fund === '' ? ALL_FUNDS : fund}
          onValueChange={(value) => {
            setParams(filters({ search, fund: value === ALL_FUNDS ? '' : value }));
          }}
        >
          <Select.Trigger aria-label="Fund" placeholder="All funds" />
          <Select.Content position="popper">
            <Select.Item value={ALL_FUNDS}>All funds</Select.Item>
            {funds.data?.funds.map((each) => (
              <Select.Item key={each.id} value={each.id}>
                {each.name} ({formatCount(each.companies)})
              </Select.Item>
            ))}
            {fund !== '' && funds.data !== undefined && fundName === undefined ? (
              <Select.Item value={fund}>A fund this instance does not have</Select.Item>
            ) : null}
          </Select.Content>
        </Select.Root>
      </Flex>
      <ErrorCallout error={companies.error} />
      {shown === undefined ? (
        companies.error === undefined ? (
          <Skeleton height="320px" />
        ) : null
      ) : shown.companies.length === 0 ? (
        <EmptyState title={emptyText.title} hint={emptyText.hint}>
          {page > 1 ? (
            <ThemeLink asChild size="2">
              <Link to={pageLink(1)}>Go to the first page</Link>
            </ThemeLink>
          ) : null}
        </EmptyState>
      ) : (
        <>
          <Box className="table-scroll" aria-busy={companies.loading}>
            <Table.Root variant="surface">
              <caption className="visually-hidden">Companies</caption>
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>Legal name</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Funds</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell className="hide-on-phone">Added</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {shown.companies.map((company) => (
                  <Table.Row key={company.id}>
                    <Table.RowHeaderCell>
                      <ThemeLink asChild weight="medium">
                        <Link to={`/${instance.slug}/companies/${company.id}`}>{company.legalName}</Link>
                      </ThemeLink>
                    </Table.RowHeaderCell>
                    <Table.Cell>
                      <Flex gap="1" wrap="wrap">
                        {company.funds.slice(0, FUNDS_SHOWN).map((fund) => (
                          <Badge key={fund.id} color="gray" variant="soft">
                            {fund.name}
                          </Badge>
                        ))}
                        {company.funds.length > FUNDS_SHOWN ? (
                          <Badge
                            color="gray"
                            variant="outline"
                            title={company.funds
                              .slice(FUNDS_SHOWN)
                              .map((each) => each.name)
                              .join(', ')}
                          >
                            +{company.funds.length - FUNDS_SHOWN} more
                          </Badge>
                        ) : null}
                      </Flex>
                    </Table.Cell>
                    <Table.Cell className="hide-on-phone">
                      <time dateTime={company.createdAt}>{formatDate(company.createdAt)}</time>
                    </Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </Box>
          <nav aria-label="Pages of companies">
            <Flex justify="between" align="center" gap="3" wrap="wrap">
              <Text size="2" color="gray">
                {formatCount(first)}–{formatCount(first + shown.companies.length - 1)} of{' '}
                {formatCount(shown.total)}
                {lastPage > 1 ? ` · page ${formatCount(page)} of ${formatCount(lastPage)}` : ''}
              </Text>
              <Flex gap="2">
                <PageButton to={page > 1 ? pageLink(page - 1) : undefined} label="Previous page">
                  <ChevronLeftIcon aria-hidden /> Previous
                </PageButton>
                <PageButton to={page < lastPage ? pageLink(page + 1) : undefined} label="Next page">
                  Next <ChevronRightIcon aria-hidden />
                </PageButton>
              </Flex>
            </Flex>
          </nav>
        </>
      )}
    </Flex>
  );
}

/** A link to another page of the list, shown disabled where there is none. */
function PageButton({ to, label, children }: { to: To | undefined; label: string; children: ReactNode }) {
  if (to === undefined) {
    return (
      <Button variant="soft" color="gray" disabled aria-label={label}>
        {children}
      </Button>
    );
  }
  return (
    <Button variant="soft" asChild>
      <Link to={to} aria-label={label}>
        {children}
      </Link>
    </Button>
  );
}
