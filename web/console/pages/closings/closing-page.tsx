import { Badge, DataList, Flex, Link as ThemeLink, Text } from '@radix-ui/themes';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { EvidenceLink } from '../evidence-link.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { useLiveChanges } from '../../live.tsx';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import { formatDateTime } from '../../words.ts';
import { ClosingProgress } from './closing-progress.tsx';
import { CLOSING_STATUS, type ClosingDetail } from './closing-words.ts';
import { DraftClosing } from './draft-closing.tsx';
import './closings.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';

/** The least time between two reads of a running closing, however many transactions its run makes meanwhile. */
const READ_GAP_MS = 1000;
/**
 * How often a running closing is read whatever the live stream says: a row that failed, or the run's end, changes
 * no transaction, so the stream does not tell.
 */
const RUNNING_READ_MS = 3000;

/**
 * Reads the closing again when the live stream says transactions changed (those a run makes, and what their
 * investors do after), at most once a second, and every few seconds while it runs. A draft changes only on this
 * page: it is not read again.
 */
function useClosingFollowed(status: ClosingDetail['status'] | undefined, reload: () => void): void {
  const lastRead = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const readSoon = useCallback(() => {
    if (timer.current !== undefined) return;
    const wait = lastRead.current + READ_GAP_MS - Date.now();
    const read = () => {
      timer.current = undefined;
      lastRead.current = Date.now();
      reload();
    };
    if (wait <= 0) read();
    else timer.current = setTimeout(read, wait);
  }, [reload]);
  useEffect(
    () => () => {
      clearTimeout(timer.current);
    },
    [],
  );
  useLiveChanges(undefined, () => {
    if (status !== undefined && status !== 'draft') readSoon();
  });
  useEffect(() => {
    if (status !== 'running') return undefined;
    const every = setInterval(readSoon, RUNNING_READ_MS);
    return () => {
      clearInterval(every);
    };
  }, [status, readSoon]);
}

/** The top of a closing's page: the way back, its name, its status, and what its transactions are made with. */
function ClosingHeader({ closing }: { closing: ClosingDetail }) {
  const status = CLOSING_STATUS[closing.status];
  return (
    <Flex direction="column" gap="4">
      <Flex direction="column" gap="2">
        <BackLink to="/closings">Closings</BackLink>
        <PageHeading title={closing.name} documentTitle={`${closing.name} · Closings`} />
        <Flex gap="3" align="center" wrap="wrap">
          <Badge size="2" color={status.color} highContrast>
            {status.words}
          </Badge>
          {closing.stopReason === null ? null : (
            <Text size="2" color="red">
              {closing.stopReason}
            </Text>
          )}
        </Flex>
      </Flex>
      <DataList.Root orientation={{ initial: 'vertical', sm: 'horizontal' }} size="2">
        <DataList.Item>
          <DataList.Label minWidth="160px">Template</DataList.Label>
          <DataList.Value>
            {closing.template.name} (version {closing.template.version})
          </DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="160px">Sender</DataList.Label>
          <DataList.Value>{closing.sender.name}</DataList.Value>
        </DataList.Item>
        <DataList.Item>
          <DataList.Label minWidth="160px">Links work for</DataList.Label>
          <DataList.Value>
            {closing.linkValidDays === null
              ? 'As long as the template says'
              : `${String(closing.linkValidDays)} ${closing.linkValidDays === 1 ? 'day' : 'days'}`}
          </DataList.Value>
        </DataList.Item>
        {closing.note === null ? null : (
          <DataList.Item>
            <DataList.Label minWidth="160px">Personal line</DataList.Label>
            <DataList.Value>{closing.note}</DataList.Value>
          </DataList.Item>
        )}
        <DataList.Item>
          <DataList.Label minWidth="160px">
            {closing.startedAt === null ? 'Created' : 'Started'}
          </DataList.Label>
          <DataList.Value>{formatDateTime(closing.startedAt ?? closing.createdAt)}</DataList.Value>
        </DataList.Item>
      </DataList.Root>
      <EvidenceLink
        of="closing"
        id={closing.id}
        {...(closing.status === 'draft'
          ? { unavailable: 'Run the closing first: its transactions are made when it runs.' }
          : {
              note: 'One folder per investor: each certificate of completion, sealed documents, uploads and history, checkable offline.',
            })}
      />
    </Flex>
  );
}

/**
 * A closing's page (`/console/closings/:id`). While it is a draft: its list of investors (a file, or pasted
 * rows), checked row by row, each row fixed or dropped, and the run. Once run: how far it is, live, its failures,
 * its transactions by state, the money committed, and the way to them in the work queue.
 */
export default function ClosingPage() {
  const { id = '' } = useParams();
  return <ClosingView key={id} id={id} />;
}

/** The page of the closing `id`: read, then kept up to date by what this page changes and by the live stream. */
function ClosingView({ id }: { id: string }) {
  const { user } = useSignedIn();
  const read = useResource(consoleApi, 'GET /closings/:id', { params: { id } });
  // What this page changed (a list uploaded, a row fixed or dropped), over the answer it changed: a newer answer
  // of the server replaces it.
  const [changed, setChanged] = useState<{ over: object; closing: ClosingDetail }>();
  const answer = read.data;
  const closing = changed !== undefined && changed.over === answer ? changed.closing : answer?.closing;
  const change = useCallback(
    (next: (before: ClosingDetail) => ClosingDetail) => {
      if (answer === undefined) return;
      setChanged((before) => {
        const base = before !== undefined && before.over === answer ? before.closing : answer.closing;
        return { over: answer, closing: next(base) };
      });
    },
    [answer],
  );
  useClosingFollowed(closing?.status, read.reload);

  if (closing === undefined) {
    return (
      <Flex direction="column" gap="4">
        {read.error ? (
          <>
            <PageHeading
              title={
                read.error.status === 404 || read.error.status === 400
                  ? 'No such closing'
                  : 'This closing could not be read'
              }
            />
            <ErrorCallout error={read.error} />
            <Text size="2">
              <ThemeLink asChild>
                <Link to="/closings">See every closing</Link>
              </ThemeLink>
            </Text>
          </>
        ) : (
          <Text color="gray" role="status">
            Reading the closing…
          </Text>
        )}
      </Flex>
    );
  }
  const operate = may(user.role, 'operate');
  return (
    <Flex direction="column" gap="5">
      <ClosingHeader closing={closing} />
      <ErrorCallout error={read.error} />
      {closing.status === 'draft' ? (
        <DraftClosing closing={closing} operate={operate} change={change} onRun={read.reload} />
      ) : (
        <ClosingProgress closing={closing} />
      )}
    </Flex>
  );
}
