import { Button, Flex, Grid, Text } from '@radix-ui/themes';
import { useCallback, useEffect, useState, type MouseEvent } from 'react';
import { useParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { WorkflowTitlesProvider } from './workflow-names.tsx';
import { useLiveChanges } from '../../live.tsx';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import type { TransactionDetail } from '../../types.ts';
import { TransactionHeader } from './header.tsx';
import { Files, Recipients } from './recipients.tsx';
import { EvidenceLink } from '../evidence-link.tsx';
import { Review } from './review.tsx';
import { SignPanel } from './sign-panel.tsx';
import { Timeline, useTimelineFilters } from './timeline.tsx';
import { WorkflowPanel } from './workflow-panel.tsx';
import './transaction.css';

/**
 * The documents the sender signs now: those whose sender role has a recipient who has not signed yet, unless
 * their process was submitted on paper (the paper form holds the signatures).
 */
function toSign(transaction: TransactionDetail): string[] {
  return transaction.documents
    .filter(
      (document) =>
        !document.onPaper &&
        transaction.recipients.some(
          (recipient) => recipient.role === document.senderRole && recipient.signedAt === null,
        ),
    )
    .map((document) => document.key);
}

/** A part of the page the jump links lead to: its heading's id, and its name. */
interface PagePart {
  id: string;
  label: string;
}

/**
 * Scrolls to a part of the page, its heading just under the header that stays at the top of the window, and
 * gives the heading the focus, so that the keyboard and a screen reader go on from there (a heading takes the
 * focus from a script only, with `tabindex="-1"`). The address stays as it is: the router takes a followed
 * fragment for a navigation (the browser's `popstate`) and renders the page again.
 */
function jumpTo(event: MouseEvent<HTMLAnchorElement>, id: string): void {
  // A click that opens the link elsewhere (a new tab, a new window) keeps its usual meaning.
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  const heading = document.getElementById(id);
  if (heading === null) return;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: true });
  const covered = document.querySelector('header')?.getBoundingClientRect().bottom ?? 0;
  window.scrollTo({ top: window.scrollY + heading.getBoundingClientRect().top - covered - 16 });
}

/**
 * The jump links under the header: a link to each part's heading, in the order the page shows them (on a phone
 * the page is five screens long or more; on a wide one the timeline starts below the review).
 */
function JumpLinks({ parts }: { parts: readonly PagePart[] }) {
  return (
    <nav aria-labelledby="jump-links-label">
      <Text as="p" size="1" color="gray" id="jump-links-label" mb="2">
        Jump to
      </Text>
      <Flex gap="2" wrap="wrap" asChild>
        <ul className="plain-list">
          {parts.map(({ id, label }) => (
            <li key={id}>
              <Button asChild variant="soft" radius="full">
                <a
                  href={`#${id}`}
                  onClick={(event) => {
                    jumpTo(event, id);
                  }}
                >
                  {label}
                </a>
              </Button>
            </li>
          ))}
        </ul>
      </Flex>
    </nav>
  );
}

/**
 * A transaction's page (`/console/transactions/:id`): who it is for and where it is, the investor's link, then
 * jump links to its parts; the organization's signature when it is due and the recipients (how far the investor
 * has got), the workflow with what can happen now, the review of the answers, the files and the timeline. On a
 * phone the parts come one under the other in that order; from a wide screen on, the workflow and the review
 * make the left column, and the signature, the recipients and the files the right one. A change made anywhere
 * (another person, the investor, the API) shows within a second: the page reads its parts again in place, so
 * what someone is typing stays.
 */
export default function TransactionPage() {
  const { id = '' } = useParams();
  const { user } = useSignedIn();
  const params = { id };
  const transaction = useResource(consoleApi, 'GET /transactions/:id', { params });
  const workflow = useResource(consoleApi, 'GET /transactions/:id/workflow', { params });
  const review = useResource(consoleApi, 'GET /transactions/:id/review', { params });
  const filters = useTimelineFilters();
  const timeline = useResource(consoleApi, 'GET /transactions/:id/timeline', {
    params,
    query: { kind: filters.kinds, actor: filters.actor },
  });
  const { reload: reloadTransaction } = transaction;
  const { reload: reloadWorkflow } = workflow;
  const { reload: reloadReview } = review;
  const { reload: reloadTimeline } = timeline;
  const reload = useCallback(() => {
    reloadTransaction();
    reloadWorkflow();
    reloadReview();
    reloadTimeline();
  }, [reloadTransaction, reloadWorkflow, reloadReview, reloadTimeline]);
  useLiveChanges(id, reload);

  const detail = transaction.data?.transaction;
  // The header comes alone first, then the parts that make the page usable (the signature, the recipients, the
  // workflow with its events' buttons), then the rest (the review, the files, the timeline), each in a frame of its
  // own: on a phone's CPU, building them all with the header held its first paint back by a second, and the
  // buttons' by half of one (bench/RESULTS.md, 2026-11-28 and issue 44). Each part only adds below or beside the
  // ones before, so nothing painted moves.
  const [stage, setStage] = useState(0);
  const read = detail !== undefined;
  useEffect(() => {
    if (read && stage < 2) setStage(stage + 1);
  }, [read, stage]);
  if (!detail) {
    return (
      <Flex direction="column" gap="4">
        {transaction.error ? (
          <>
            <PageHeading
              title={
                transaction.error.status === 404
                  ? 'No such transaction'
                  : 'This transaction could not be read'
              }
            />
            <ErrorCallout error={transaction.error} />
          </>
        ) : (
          <Text color="gray" role="status">
            Reading the transaction…
          </Text>
        )}
      </Flex>
    );
  }
  const operate = may(user.role, 'operate');
  const documents = operate ? toSign(detail) : [];
  const parts: PagePart[] = [
    ...(documents.length > 0 ? [{ id: 'sign-heading', label: 'Sign' }] : []),
    { id: 'recipients-heading', label: 'Recipients' },
    { id: 'workflow-heading', label: 'Workflow' },
    { id: 'review-heading', label: 'Review' },
    { id: 'files-heading', label: 'Files' },
    { id: 'timeline-heading', label: 'Timeline' },
  ];
  // One order for every width, the phone's, so that reading and the keyboard follow what is seen; two columns
  // from md on by grid placement: the workflow and the review span both rows on the left, the signature and the
  // recipients take the first row on the right (as tall as they are), and the files the second, right under them.
  return (
    <WorkflowTitlesProvider titles={detail.workflowTitles}>
      <Flex direction="column" gap="6" className="transaction-page">
        <TransactionHeader transaction={detail} operate={operate} onChanged={reload} />
        <JumpLinks parts={parts} />
        {stage > 0 ? (
          <>
            <Grid columns={{ initial: '1', md: '3fr 2fr' }} rows={{ md: 'auto 1fr' }} gap="6" align="start">
              <Flex direction="column" gap="6" minWidth="0" gridColumn={{ md: '2' }} gridRow={{ md: '1' }}>
                {documents.length > 0 ? (
                  <SignPanel
                    transactionId={id}
                    sender={detail.sender.name}
                    documents={documents}
                    onSigned={reload}
                  />
                ) : null}
                <Recipients recipients={detail.recipients} />
              </Flex>
              <Flex
                direction="column"
                gap="6"
                minWidth="0"
                gridColumn={{ md: '1' }}
                gridRow={{ md: '1 / 3' }}
              >
                <WorkflowPanel transactionId={id} workflow={workflow} onChanged={reload} />
                {stage > 1 ? (
                  <Review
                    transactionId={id}
                    review={review}
                    mayReview={may(user.role, 'review')}
                    onChanged={reload}
                  />
                ) : null}
              </Flex>
              {stage > 1 ? (
                <Flex direction="column" gap="4" minWidth="0" gridColumn={{ md: '2' }} gridRow={{ md: '2' }}>
                  <Files files={detail.files} certificate={detail.certificate} />
                  <EvidenceLink of="transaction" id={id} note={bundleNote(detail.certificate)} />
                </Flex>
              ) : null}
            </Grid>
            {stage > 1 ? <Timeline timeline={timeline} filters={filters} operate={operate} /> : null}
          </>
        ) : null}
      </Flex>
    </WorkflowTitlesProvider>
  );
}

/** What a transaction's evidence bundle holds now, as the line under its button says. */
function bundleNote(certificate: TransactionDetail['certificate']): string {
  if (certificate === null) {
    return 'Holds the history, documents and uploads so far: the certificate of completion joins them once it completes.';
  }
  if (certificate.status === 'due') {
    return 'The certificate of completion is being made: a bundle downloaded now holds everything else.';
  }
  return 'The certificate of completion, sealed documents, uploads and history with its hash chain, checkable offline.';
}
