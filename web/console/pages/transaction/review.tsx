import { Badge, Box, Button, Card, Flex, Heading, Link, Text } from '@radix-ui/themes';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { HeadedSection } from '../../../shared/layout/headed-section.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import type { Resource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { CommentForm } from './comment-form.tsx';
import type { ProcessReview, ReviewAnswer, ReviewComment } from '../../types.ts';
import { formatDateTime, label } from '../../words.ts';

type Item = ProcessReview['items'][number];
type Field = Item['fields'][number];
type Change = NonNullable<ProcessReview['changes']>['fields'][number];

/** A comment beside its field: who wrote it, when, on which revision, open or resolved (and the button to resolve). */
function CommentRow({
  comment,
  mayReview,
  onChanged,
}: {
  comment: ReviewComment;
  mayReview: boolean;
  onChanged: () => void;
}) {
  const resolve = useApiAction();
  const open = comment.resolvedAt === null;
  return (
    <li className={open ? 'review-comment' : 'review-comment resolved'}>
      <Flex gap="2" align="center" wrap="wrap">
        <Badge color={open ? 'amber' : 'gray'}>{open ? 'open' : 'resolved'}</Badge>
        <Badge color={comment.forInvestor ? 'blue' : 'gray'} variant="outline">
          {comment.forInvestor ? 'for the investor' : 'internal note'}
        </Badge>
        <Text size="1" color="gray">
          {comment.author?.name ?? 'Someone'}, {formatDateTime(comment.createdAt)}, on revision{' '}
          {comment.revision}
        </Text>
      </Flex>
      <Text as="p" size="2" className="review-comment-body">
        {comment.body}
      </Text>
      {open && mayReview ? (
        <Button
          size="1"
          variant="soft"
          color="gray"
          loading={resolve.busy}
          aria-label={`Resolve the comment “${comment.body.slice(0, 40)}”`}
          onClick={() => {
            void resolve.run(async () => {
              await consoleApi('POST /comments/:id/resolve', { params: { id: comment.id } });
              onChanged();
            });
          }}
        >
          Resolve
        </Button>
      ) : null}
      <ErrorCallout error={resolve.error} />
    </li>
  );
}

/** What changed between two revisions: each field by its title, before → after in words. */
function Changes({ changes }: { changes: NonNullable<ProcessReview['changes']> }) {
  const text = (change: Change) =>
    change.change === 'added'
      ? `added: ${change.after ?? ''}`
      : change.change === 'removed'
        ? `removed (was ${change.before ?? ''})`
        : `${change.before ?? ''} → ${change.after ?? ''}`;
  return (
    <Box className="review-changes">
      <Heading as="h4" size="2" mb="2">
        What changed since revision {changes.from}
      </Heading>
      {changes.fields.length === 0 ? (
        <Text size="2" color="gray">
          Nothing: revision {changes.to} answers as revision {changes.from} did.
        </Text>
      ) : (
        <ul className="plain-list">
          {changes.fields.map((change) => (
            <li key={`${change.vulcanKey} ${change.field}`}>
              <Text size="2">
                <strong>
                  {change.itemTitle} · {change.label}
                </strong>
                : {text(change)}
              </Text>
            </li>
          ))}
        </ul>
      )}
    </Box>
  );
}

/** An answer as the review shows it: in words, an uploaded file as a link, "Not answered" in grey. */
function AnswerText({ field }: { field: Field }) {
  if (field.file) {
    return (
      <Link href={field.file.downloadPath} download={field.file.name}>
        {field.file.name}
      </Link>
    );
  }
  if (field.text === null) return <Text color="gray">Not answered</Text>;
  return <>{field.text}</>;
}

/** One process: its revisions, what changed, then the latest items' fields with their comments. */
function ProcessCard({
  transactionId,
  process,
  comments,
  mayReview,
  onChanged,
}: {
  transactionId: string;
  process: ProcessReview;
  comments: ReviewComment[];
  mayReview: boolean;
  onChanged: () => void;
}) {
  const latest = process.revisions.at(-1);
  return (
    <Card size="2">
      <Flex direction="column" gap="4">
        <Flex gap="2" align="center" wrap="wrap">
          <Heading as="h3" size="3">
            {process.title ?? label(process.key)}
          </Heading>
          <Badge color={process.isComplete ? 'green' : 'gray'}>
            {process.isComplete ? 'complete' : 'open'}
          </Badge>
        </Flex>
        <Text size="2" color="gray">
          {process.revisions
            .map((revision) =>
              revision.committedAt === null
                ? `Revision ${String(revision.number)}: open since ${formatDateTime(revision.createdAt)}`
                : `Revision ${String(revision.number)}: submitted ${formatDateTime(revision.committedAt)}`,
            )
            .join(' · ')}
        </Text>
        {process.changes === null ? null : <Changes changes={process.changes} />}
        {process.items.map((item) => (
          <Box key={item.vulcanKey}>
            <Heading as="h4" size="2" mb="2">
              {item.title ?? label(item.vulcanKey)}{' '}
              <Text size="1" color="gray" weight="regular">
                ({item.completionPercentage}% filled
                {latest === undefined ? '' : `, revision ${String(latest.number)}`})
              </Text>
            </Heading>
            <dl className="review-fields">
              {item.fields.map((field) => {
                const theirs = comments.filter(
                  (comment) => comment.vulcanKey === item.vulcanKey && comment.field === field.key,
                );
                return (
                  <div key={field.key} className="review-field">
                    <dt>
                      <Text size="2" color="gray">
                        {field.label}
                      </Text>
                    </dt>
                    <dd>
                      <Text as="p" size="2">
                        <AnswerText field={field} />
                      </Text>
                      {theirs.length === 0 ? null : (
                        <ul className="plain-list review-comments" aria-label={`Comments on ${field.label}`}>
                          {theirs.map((comment) => (
                            <CommentRow
                              key={comment.id}
                              comment={comment}
                              mayReview={mayReview}
                              onChanged={onChanged}
                            />
                          ))}
                        </ul>
                      )}
                      {mayReview ? (
                        <CommentForm
                          transactionId={transactionId}
                          item={item}
                          field={field}
                          onDone={onChanged}
                        />
                      ) : null}
                    </dd>
                  </div>
                );
              })}
            </dl>
          </Box>
        ))}
      </Flex>
    </Card>
  );
}

/**
 * The review: per process, its revisions, what changed since the one before, and the latest answers field by
 * field in the template's words, each with its comments (open or resolved, for the investor or internal);
 * reviewers and admins comment on a field and resolve comments.
 */
export function Review({
  transactionId,
  review,
  mayReview,
  onChanged,
}: {
  transactionId: string;
  review: Resource<ReviewAnswer>;
  mayReview: boolean;
  onChanged: () => void;
}) {
  const processes = review.data?.processes;
  const comments = review.data?.comments ?? [];
  const open = comments.filter((comment) => comment.resolvedAt === null).length;
  return (
    <HeadedSection
      id="review-heading"
      title={
        <>
          Review{' '}
          {comments.length === 0 ? null : (
            <Text size="2" color="gray" weight="regular">
              ({open} open comment{open === 1 ? '' : 's'})
            </Text>
          )}
        </>
      }
    >
      <ErrorCallout error={review.error} />
      {processes === undefined ? (
        review.error ? null : (
          <Text size="2" color="gray">
            Reading the answers…
          </Text>
        )
      ) : processes.length === 0 ? (
        <Text size="2" color="gray">
          Nothing to review yet: the investor has not started.
        </Text>
      ) : (
        <Flex direction="column" gap="4">
          {processes.map((process) => (
            <ProcessCard
              key={process.key}
              transactionId={transactionId}
              process={process}
              comments={comments.filter((comment) => comment.processKey === process.key)}
              mayReview={mayReview}
              onChanged={onChanged}
            />
          ))}
        </Flex>
      )}
    </HeadedSection>
  );
}
