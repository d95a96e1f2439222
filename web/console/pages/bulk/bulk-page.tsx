import { Badge, Button, Flex, Link as ThemeLink, Table, Text } from '@radix-ui/themes';
import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { formatDateTime } from '../../words.ts';
import { count } from '../closings/closing-words.ts';
import { ITEM_STATUS, type BulkJob, type ItemStatus } from './bulk-words.ts';
import { Paging } from './preflight-view.tsx';
import './bulk.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';
import { changedParams } from '../../../shared/list/address-params.ts';

/** How often a running job is read again. */
const RUNNING_READ_MS = 2000;

const STATUSES = Object.keys(ITEM_STATUS) as ItemStatus[];

/**
 * A bulk action's page (`/console/bulk/:id`): what it is and who ran it, how far it is (read every 2 s while it
 * runs, no longer once finished), its counts by outcome, and each transaction's outcome (done, asked a second
 * person, failed with the reason, skipped as changed since the check, blocked at the check), 100 at a time, those
 * of one outcome when chosen (in the address), each linking to its transaction.
 */
export default function BulkPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const status = STATUSES.find((each) => each === params.get('status'));
  const offset = Math.max(0, Math.floor(Number(params.get('offset') ?? '0')) || 0);
  const read = useResource(consoleApi, 'GET /bulk/:id', {
    params: { id },
    query: { ...(status === undefined ? {} : { status }), ...(offset === 0 ? {} : { offset }) },
  });
  const job = read.data?.job ?? read.previous?.job;
  const running = job?.status === 'running';
  const { reload } = read;
  useEffect(() => {
    if (!running) return undefined;
    const every = setInterval(reload, RUNNING_READ_MS);
    return () => {
      clearInterval(every);
    };
  }, [running, reload]);

  const change = (changes: Record<string, string | null>) => {
    setParams((current) => changedParams(current, changes));
  };

  return (
    <Flex direction="column" gap="4">
      <BackLink to="/queue">Work queue</BackLink>
      <ErrorCallout error={read.error} />
      {job === undefined ? null : (
        <>
          <JobHeader job={job} />
          <Progress job={job} />
          <nav aria-label="Outcomes">
            <ul className="plain-list bulk-outcomes">
              <li>
                <Button
                  size="1"
                  variant={status === undefined ? 'solid' : 'soft'}
                  color="gray"
                  highContrast
                  aria-current={status === undefined ? 'page' : undefined}
                  onClick={() => {
                    change({ status: null, offset: null });
                  }}
                >
                  All
                  <Badge variant="surface" radius="full" ml="1">
                    {Object.values(job.counts).reduce((sum, each) => sum + each, 0)}
                  </Badge>
                </Button>
              </li>
              {STATUSES.filter((each) => job.counts[each] > 0 || each === status).map((each) => (
                <li key={each}>
                  <Button
                    size="1"
                    variant={status === each ? 'solid' : 'soft'}
                    color="gray"
                    highContrast
                    aria-current={status === each ? 'page' : undefined}
                    onClick={() => {
                      change({ status: each, offset: null });
                    }}
                  >
                    {ITEM_STATUS[each].words}
                    <Badge variant="surface" radius="full" ml="1">
                      {job.counts[each]}
                    </Badge>
                  </Button>
                </li>
              ))}
            </ul>
          </nav>
          <div className="table-scroll bulk-table table-cards">
            <Table.Root variant="surface" size="2">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeaderCell>Investor</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>Outcome</Table.ColumnHeaderCell>
                  <Table.ColumnHeaderCell>When</Table.ColumnHeaderCell>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {job.items.map((item) => (
                  <Table.Row key={item.transactionId}>
                    <Table.RowHeaderCell>
                      <ThemeLink asChild weight="medium">
                        <Link to={`/transactions/${item.transactionId}`}>{item.investorName}</Link>
                      </ThemeLink>
                    </Table.RowHeaderCell>
                    <Table.Cell data-label="Outcome">
                      <Flex direction="column" gap="1" align="start">
                        <Badge highContrast color={ITEM_STATUS[item.status].color}>
                          {ITEM_STATUS[item.status].words}
                        </Badge>
                        {item.reason === null ? null : <Text size="2">{item.reason}</Text>}
                      </Flex>
                    </Table.Cell>
                    <Table.Cell data-label="When">
                      <time dateTime={item.updatedAt}>{formatDateTime(item.updatedAt)}</time>
                    </Table.Cell>
                  </Table.Row>
                ))}
              </Table.Body>
            </Table.Root>
          </div>
          <Paging
            offset={offset}
            total={
              status === undefined
                ? Object.values(job.counts).reduce((sum, each) => sum + each, 0)
                : job.counts[status]
            }
            next={job.nextOffset}
            onPage={(next) => {
              change({ offset: next === 0 ? null : String(next) });
            }}
          />
        </>
      )}
    </Flex>
  );
}

/** The job's title, who ran it and when, and whether it runs still. */
function JobHeader({ job }: { job: BulkJob }) {
  const total = Object.values(job.counts).reduce((sum, each) => sum + each, 0);
  return (
    <Flex direction="column" gap="2">
      <PageHeading
        title={`${job.title}: ${count(total, 'transaction')}`}
        documentTitle={`${job.title} · Bulk action`}
      />
      <Flex gap="3" align="center" wrap="wrap">
        <Badge size="2" highContrast color={job.status === 'running' ? 'blue' : 'green'}>
          {job.status === 'running' ? 'Running' : 'Finished'}
        </Badge>
        <Text size="2" color="gray">
          By {job.requestedBy}, {formatDateTime(job.createdAt)}
          {job.finishedAt === null ? '' : `; finished ${formatDateTime(job.finishedAt)}`}
        </Text>
      </Flex>
      {job.message === null ? null : (
        <Text size="2">
          <Text weight="medium">Reason:</Text> {job.message}
        </Text>
      )}
    </Flex>
  );
}

/** How far the job is: a bar, and its counts by outcome in words. */
function Progress({ job }: { job: BulkJob }) {
  const acting =
    job.counts.pending + job.counts.done + job.counts.asked + job.counts.failed + job.counts.skipped;
  const finished = acting - job.counts.pending;
  const parts = STATUSES.filter((each) => job.counts[each] > 0).map(
    (each) => `${job.counts[each].toLocaleString()} ${ITEM_STATUS[each].plural}`,
  );
  return (
    <Flex direction="column" gap="2">
      <progress
        className="bulk-progress"
        max={Math.max(1, acting)}
        value={acting === 0 ? 1 : finished}
        aria-label="Transactions acted on"
      />
      <Text size="2" role="status">
        {parts.join(', ')}
      </Text>
    </Flex>
  );
}
