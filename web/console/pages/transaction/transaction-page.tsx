import { Flex, Grid, Text } from '@radix-ui/themes';
import { useCallback } from 'react';
import { useParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { useLiveChanges } from '../../live.tsx';
import { may } from '../../roles.ts';
import { useSignedIn } from '../../session.tsx';
import type { TransactionDetail } from '../../types.ts';
import { TransactionHeader } from './header.tsx';
import { Files, Recipients } from './recipients.tsx';
import { Review } from './review.tsx';
import { SignPanel } from './sign-panel.tsx';
import { Timeline, useTimelineFilters } from './timeline.tsx';
import { WorkflowPanel } from './workflow-panel.tsx';
import './transaction.css';

/** The documents the sender signs now: those whose sender role has a recipient who has not signed yet. */
function toSign(transaction: TransactionDetail): string[] {
  return transaction.documents
    .filter((document) =>
      transaction.recipients.some(
        (recipient) => recipient.role === document.senderRole && recipient.signedAt === null,
      ),
    )
    .map((document) => document.key);
}

/**
 * A transaction's page (`/console/transactions/:id`): who it is for and where it is, the investor's link, the
 * workflow with what can happen now, the review of the answers, the organization's signature when it is due, the
 * recipients, the files and the timeline. A change made anywhere (another person, the investor, the API) shows
 * within a second: the page reads its parts again in place, so what someone is typing stays.
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
  const panel = workflow.data?.workflow;
  const final = panel?.states.find((state) => state.key === detail.state)?.final ?? false;
  const operate = may(user.role, 'operate');
  const documents = operate ? toSign(detail) : [];
  return (
    <Flex direction="column" gap="6" className="transaction-page">
      <TransactionHeader transaction={detail} final={final} operate={operate} onChanged={reload} />
      <Grid columns={{ initial: '1', md: '3fr 2fr' }} gap="6" align="start">
        <Flex direction="column" gap="6" minWidth="0">
          <WorkflowPanel transactionId={id} workflow={workflow} onChanged={reload} />
          <Review
            transactionId={id}
            review={review}
            mayReview={may(user.role, 'review')}
            onChanged={reload}
          />
        </Flex>
        <Flex direction="column" gap="6" minWidth="0">
          {documents.length > 0 ? (
            <SignPanel
              transactionId={id}
              sender={detail.sender.name}
              documents={documents}
              onSigned={reload}
            />
          ) : null}
          <Recipients recipients={detail.recipients} />
          <Files files={detail.files} />
        </Flex>
      </Grid>
      <Timeline timeline={timeline} filters={filters} operate={operate} />
    </Flex>
  );
}
