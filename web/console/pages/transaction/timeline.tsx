import {
  Badge,
  Box,
  Button,
  Callout,
  Card,
  CheckboxGroup,
  Flex,
  Link,
  RadioGroup,
  Text,
} from '@radix-ui/themes';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { HeadedSection } from '../../../shared/layout/headed-section.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import type { Resource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import type { ActorType, TimelineAnswer, TimelineEntry, TimelineKind } from '../../types.ts';
import { formatDateTime, formatValue, label, words } from '../../words.ts';
import { useWorkflowNames, type WorkflowNames } from './workflow-names.tsx';

/** Each kind of entry, as the filter and the badges name it. */
const KINDS: Record<
  TimelineKind,
  { label: string; color: 'blue' | 'green' | 'amber' | 'purple' | 'gray' | 'cyan' }
> = {
  workflow: { label: 'Workflow', color: 'blue' },
  recipient: { label: 'Recipient', color: 'green' },
  mail: { label: 'Mail', color: 'amber' },
  webhook: { label: 'Webhook', color: 'purple' },
  api: { label: 'API', color: 'cyan' },
  console: { label: 'Console', color: 'gray' },
};
const ACTORS: Record<ActorType, string> = {
  user: 'People of the console',
  api_key: 'API keys',
  recipient: 'Recipients',
  system: 'Portico',
};
const ANY_ACTOR = 'any';

/**
 * The timeline's filters, kept in the page's address (`?kind=workflow&kind=mail&actor=user`), so that a reload or
 * a link sent to a colleague shows the same entries.
 */
export function useTimelineFilters() {
  const [search, setSearch] = useSearchParams();
  const kinds = search.getAll('kind').filter((kind): kind is TimelineKind => kind in KINDS);
  const actorParam = search.get('actor');
  const actor = actorParam !== null && actorParam in ACTORS ? (actorParam as ActorType) : undefined;
  const set = (next: { kinds: TimelineKind[]; actor: ActorType | undefined }) => {
    setSearch(
      (previous) => {
        const updated = new URLSearchParams(previous);
        updated.delete('kind');
        updated.delete('actor');
        for (const kind of next.kinds) updated.append('kind', kind);
        if (next.actor) updated.set('actor', next.actor);
        return updated;
      },
      { replace: true, preventScrollReset: true },
    );
  };
  return { kinds, actor, filtered: kinds.length > 0 || actor !== undefined, set };
}

/** A recipient's acts that a key in words would not say well (`esign_consented`). */
const RECIPIENT_ACTS: Record<string, string> = {
  esign_consented: 'Agreed to use electronic records and signatures',
  esign_withdrawn: 'Withdrew consent to electronic records and signatures',
  paper_requested: 'Asked to sign on paper',
};
/** Mail to the organization about those acts, by `details.message`. */
const ORGANIZATION_MAIL: Record<string, string> = {
  consent_withdrawn: 'the investor withdrew consent to sign electronically (to the team)',
  paper_requested: 'the investor asked for paper (to the team)',
};

/** What happened, in words. */
function actionText(entry: TimelineEntry, names: WorkflowNames): string {
  const { details } = entry;
  if (entry.kind === 'workflow') return names.event(entry.action);
  // Queued, sent or failed: each its own entry, named as it is (a queued mail is not yet sent).
  if (entry.kind === 'mail' && typeof details.message === 'string')
    return `Mail ${entry.action}: ${ORGANIZATION_MAIL[details.message] ?? words(details.message)}`;
  const act = entry.kind === 'recipient' ? RECIPIENT_ACTS[entry.action] : undefined;
  if (act !== undefined) return act;
  if (entry.kind === 'webhook') {
    const event = typeof details.eventType === 'string' ? ` ${details.eventType}` : '';
    return `Webhook${event} ${entry.action}`;
  }
  return label(entry.action);
}

/** The paper form an event run on the investor's behalf names (`details.paperForm`), when it is one. */
function paperFormOf(details: TimelineEntry['details']): { name: string; downloadPath: string } | undefined {
  const { paperForm } = details;
  if (typeof paperForm !== 'object' || paperForm === null) return undefined;
  const { name, downloadPath } = paperForm as Record<string, unknown>;
  return typeof name === 'string' && typeof downloadPath === 'string' ? { name, downloadPath } : undefined;
}

/**
 * What a workflow entry adds to its action when staff ran it on the investor's behalf (`details.onBehalf`): that
 * it was so, and the paper form it stands on, a link to the file.
 */
function OnBehalf({ entry }: { entry: TimelineEntry }) {
  if (entry.kind !== 'workflow' || entry.details.onBehalf !== true) return null;
  const paperForm = paperFormOf(entry.details);
  return (
    <>
      {" · on the investor's behalf"}
      {paperForm ? (
        <>
          , with the paper form{' '}
          {/* Underlined: a link inside a sentence is told from its words by more than its colour. */}
          <Link href={paperForm.downloadPath} download={paperForm.name} underline="always">
            {paperForm.name}
          </Link>
        </>
      ) : null}
    </>
  );
}

/** The details of an entry that say more than its action: a move's states and message, a mail's failure, a webhook's attempt. */
function Details({ entry }: { entry: TimelineEntry }) {
  const names = useWorkflowNames();
  const { details } = entry;
  const lines: string[] = [];
  const rest = { ...details };
  if (entry.kind === 'workflow' && typeof details.to === 'string') {
    lines.push(
      `${typeof details.from === 'string' ? names.state(details.from) : 'created'} → ${names.state(details.to)}`,
    );
    if (typeof details.message === 'string') lines.push(`“${details.message}”`);
    delete rest.from;
    delete rest.to;
    delete rest.message;
  } else if (entry.kind === 'webhook') {
    const status =
      typeof details.statusCode === 'number' ? `HTTP ${String(details.statusCode)}` : 'no answer';
    const latency = typeof details.durationMs === 'number' ? ` in ${String(details.durationMs)} ms` : '';
    lines.push(`${typeof details.url === 'string' ? details.url : 'endpoint'}: ${status}${latency}`);
    if (typeof details.error === 'string') lines.push(details.error);
    if (typeof details.nextAttemptAt === 'string')
      lines.push(`Next try ${formatDateTime(details.nextAttemptAt)}`);
    for (const key of [
      'url',
      'statusCode',
      'durationMs',
      'error',
      'nextAttemptAt',
      'eventType',
      'deliveryId',
      'endpointId',
    ]) {
      // eslint-disable-next-line @typescript-eslint/no-dynamic-delete
      delete rest[key];
    }
  } else if (entry.kind === 'mail') {
    delete rest.message;
  } else if (entry.kind === 'recipient' && typeof details.disclosureSha256 === 'string') {
    // The disclosure accepted or left, by the version the investor's page printed (the hash's first characters).
    const whose = details.disclosureSource === 'template' ? "the template's" : "Portico's default";
    lines.push(`Disclosure version ${details.disclosureSha256.slice(0, 12)} (${whose})`);
    delete rest.disclosureSha256;
    delete rest.disclosureSource;
  }
  if (entry.kind === 'workflow') {
    // Said beside the action (OnBehalf).
    delete rest.onBehalf;
    delete rest.paperForm;
  }
  for (const [key, value] of Object.entries(rest)) {
    if (value === null || value === undefined) continue;
    lines.push(`${label(key)}: ${formatValue(value)}`);
  }
  if (lines.length === 0) return null;
  return (
    <Flex direction="column">
      {lines.map((line, index) => (
        <Text
          key={index}
          size="2"
          color={entry.action === 'failed' && index > 0 ? 'red' : 'gray'}
          className="timeline-detail"
        >
          {line}
        </Text>
      ))}
    </Flex>
  );
}

/** Sends a webhook delivery again (its attempts start over), and says so, or why not. */
function ResendWebhook({ deliveryId, onResent }: { deliveryId: string; onResent: () => void }) {
  const action = useApiAction();
  const [sent, setSent] = useState(false);
  return (
    <Flex direction="column" gap="1" mt="1" align="start">
      <Button
        size="1"
        variant="soft"
        loading={action.busy}
        disabled={sent}
        onClick={() =>
          void action.run(async () => {
            await consoleApi('POST /webhook-deliveries/:id/resend', { params: { id: deliveryId } });
            setSent(true);
            onResent();
          })
        }
      >
        {sent ? 'Sent again' : 'Resend'}
      </Button>
      <ErrorCallout error={action.error} />
    </Flex>
  );
}

/** How many hex digits of the history's head the footer shows; the whole head is in its title. */
const HEAD_SHOWN = 16;

/**
 * Whether the transaction's whole history still matches its hash chain (docs/evidence.md): where it does not,
 * a red callout naming the first entry that does not match, above the entries; where it does, its head, small,
 * below them.
 */
function HistorySealNote({
  history,
  placement,
}: {
  history: TimelineAnswer['history'] | undefined;
  placement: 'above' | 'below';
}) {
  if (history === undefined) return null;
  const { brokenAt } = history;
  if (brokenAt !== undefined) {
    if (placement === 'below') return null;
    return (
      <Callout.Root color="red" role="alert">
        <Callout.Text>
          The history does not match from entry {String(brokenAt.position)}: {brokenAt.reason}.
        </Callout.Text>
      </Callout.Root>
    );
  }
  if (placement === 'above' || history.head === null) return null;
  return (
    <Text as="p" size="1" color="gray" className="history-seal">
      History sealed by a hash chain: <code title={history.head}>{history.head.slice(0, HEAD_SHOWN)}…</code>
    </Text>
  );
}

/**
 * The transaction's one timeline, newest first: workflow moves, what the recipient did, mail, webhook attempts,
 * API calls and console actions, each with who did it, when, and the request id to quote; filtered by kind and
 * by who acted.
 */
export function Timeline({
  timeline,
  filters,
  operate,
}: {
  timeline: Resource<TimelineAnswer>;
  filters: ReturnType<typeof useTimelineFilters>;
  /** Whether this person may send a webhook again (operators and admins). */
  operate: boolean;
}) {
  const names = useWorkflowNames();
  const answer = timeline.data ?? timeline.previous;
  const entries = answer?.entries;
  return (
    <HeadedSection id="timeline-heading" title="Timeline">
      <Card size="2">
        <Flex direction="column" gap="4">
          <Flex gap="5" wrap="wrap" align="start">
            <Box>
              <Text as="p" size="2" weight="medium" id="timeline-kinds" mb="1">
                Kinds (none ticked: all)
              </Text>
              <CheckboxGroup.Root
                aria-labelledby="timeline-kinds"
                size="2"
                value={filters.kinds}
                onValueChange={(value) => {
                  filters.set({ kinds: value as TimelineKind[], actor: filters.actor });
                }}
              >
                <Flex gap="3" wrap="wrap">
                  {(Object.keys(KINDS) as TimelineKind[]).map((kind) => (
                    <CheckboxGroup.Item key={kind} value={kind}>
                      {KINDS[kind].label}
                    </CheckboxGroup.Item>
                  ))}
                </Flex>
              </CheckboxGroup.Root>
            </Box>
            <Flex direction="column" gap="1">
              <Text as="p" size="2" weight="medium" id="timeline-actor">
                Who acted
              </Text>
              <RadioGroup.Root
                aria-labelledby="timeline-actor"
                size="2"
                value={filters.actor ?? ANY_ACTOR}
                onValueChange={(value) => {
                  filters.set({
                    kinds: filters.kinds,
                    actor: value === ANY_ACTOR ? undefined : (value as ActorType),
                  });
                }}
              >
                <Flex gap="3" wrap="wrap">
                  <RadioGroup.Item value={ANY_ACTOR}>Anyone</RadioGroup.Item>
                  {(Object.keys(ACTORS) as ActorType[]).map((actor) => (
                    <RadioGroup.Item key={actor} value={actor}>
                      {ACTORS[actor]}
                    </RadioGroup.Item>
                  ))}
                </Flex>
              </RadioGroup.Root>
            </Flex>
          </Flex>
          <ErrorCallout error={timeline.error} />
          <HistorySealNote history={answer?.history} placement="above" />
          {entries === undefined ? (
            timeline.error ? null : (
              <Text size="2" color="gray">
                Reading the timeline…
              </Text>
            )
          ) : entries.length === 0 ? (
            <Text size="2" color="gray">
              Nothing {filters.filtered ? 'of these kinds or by these actors' : 'yet'}.
            </Text>
          ) : (
            <ol
              className="plain-list timeline"
              aria-busy={timeline.loading}
              aria-label="Timeline, newest first"
            >
              {[...entries].reverse().map((entry) => (
                <li key={`${entry.kind} ${entry.id}`} className="timeline-entry">
                  <Flex gap="2" align="center" wrap="wrap">
                    <Badge color={KINDS[entry.kind].color}>{KINDS[entry.kind].label}</Badge>
                    <Text size="2" weight="medium">
                      {actionText(entry, names)}
                      <OnBehalf entry={entry} />
                    </Text>
                  </Flex>
                  <Text as="p" size="1" color="gray">
                    {entry.actor.label} · {formatDateTime(entry.at)}
                    {entry.requestId === null ? null : (
                      <>
                        {' · '}
                        <span className="request-id">request {entry.requestId}</span>
                      </>
                    )}
                  </Text>
                  {entry.origin === null ? null : (
                    <Text as="p" size="1" color="gray" className="timeline-origin">
                      {entry.origin.ipAddress === null ? 'From' : `From ${entry.origin.ipAddress},`}{' '}
                      {entry.origin.identifiedBy}
                      {entry.origin.userAgent === null ? null : (
                        <>
                          {' · '}
                          <span className="timeline-user-agent">{entry.origin.userAgent}</span>
                        </>
                      )}
                    </Text>
                  )}
                  <Details entry={entry} />
                  {operate && entry.kind === 'webhook' && typeof entry.details.deliveryId === 'string' ? (
                    <ResendWebhook deliveryId={entry.details.deliveryId} onResent={timeline.reload} />
                  ) : null}
                </li>
              ))}
            </ol>
          )}
          <HistorySealNote history={answer?.history} placement="below" />
        </Flex>
      </Card>
    </HeadedSection>
  );
}
