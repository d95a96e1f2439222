import { Badge, Box, Button, Callout, Card, Flex, Heading, Text } from '@radix-ui/themes';
import { useState } from 'react';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { HeadedSection } from '../../../shared/layout/headed-section.tsx';
import type { Resource } from '../../../shared/use-resource.ts';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { consoleApi } from '../../api.ts';
import type {
  EventRunAnswer,
  PendingApproval,
  WorkflowAnswer,
  WorkflowPanel as Workflow,
} from '../../types.ts';
import { EventDialog, staleText } from './event-dialog.tsx';
import { OnBehalfDialog } from './on-behalf-dialog.tsx';
import { formatDateTime } from '../../words.ts';
import { WorkflowFigure } from './workflow-figure.tsx';
import { useWorkflowNames, type WorkflowNames } from './workflow-names.tsx';

type PanelEvent = Workflow['events'][number];

/**
 * One event of the workflow: a button when this person may trigger it and it can happen now; a greyed button
 * with the engine's reason when they may but it cannot, and beside it, when the server says it may be run on the
 * investor's behalf (only what their revision lacks holds it back), a button for that; for someone who may not
 * trigger it, its name and the reason only (a viewer sees no buttons).
 */
function EventRow({
  event,
  onChoose,
  onChooseOnBehalf,
}: {
  event: PanelEvent;
  onChoose: (event: PanelEvent) => void;
  onChooseOnBehalf: (event: PanelEvent) => void;
}) {
  const names = useWorkflowNames();
  const reasonId = `event-${event.key}-reason`;
  const reason = event.allowed
    ? (event.description ?? `Moves it to ${names.state(event.to)}.`)
    : (event.reason ?? 'Not now.');
  return (
    <li>
      <Flex gap="3" align="center" wrap="wrap">
        {event.mayTrigger ? (
          <Button
            variant={event.allowed ? 'solid' : 'soft'}
            color={event.allowed ? (event.messageRequired ? 'red' : undefined) : 'gray'}
            disabled={!event.allowed}
            aria-describedby={reasonId}
            onClick={() => {
              onChoose(event);
            }}
          >
            {names.event(event.key)}
          </Button>
        ) : (
          <Text weight="medium" color={event.allowed ? undefined : 'gray'}>
            {names.event(event.key)}
          </Text>
        )}
        <Text size="1" color="gray">
          → {names.state(event.to)}
        </Text>
        {event.onBehalf ? (
          <Button
            variant="outline"
            aria-describedby={reasonId}
            onClick={() => {
              onChooseOnBehalf(event);
            }}
          >
            {names.event(event.key)} on the investor&apos;s behalf…
          </Button>
        ) : null}
      </Flex>
      <Text as="p" size="2" color={event.allowed ? undefined : 'gray'} id={reasonId} mt="1">
        {event.allowed ? reason : `Not now: ${reason}`}
        {event.mayTrigger ? '' : ' (Not yours to trigger: your role does not.)'}
      </Text>
    </li>
  );
}

/**
 * The workflow panel: the state machine drawn (the current state, the path lit, the final states), what can
 * happen now as buttons (each opens its preview first), and the same in words: the states, the path so far.
 */
export function WorkflowPanel({
  transactionId,
  workflow,
  onChanged,
}: {
  transactionId: string;
  workflow: Resource<WorkflowAnswer>;
  onChanged: () => void;
}) {
  const names = useWorkflowNames();
  const [chosen, setChosen] = useState<string>();
  // The event itself, not its key: its dialog stays open while the panel reloads (after a STALE_STATE, say).
  const [onBehalf, setOnBehalf] = useState<PanelEvent>();
  const [notice, setNotice] = useState<{ tone: 'done' | 'stale'; text: string; state: string }>();
  const panel = workflow.data?.workflow;
  // A notice is about the state it left the transaction in: once it moves on, the notice goes.
  const shown =
    notice && panel && (notice.tone === 'stale' || notice.state === panel.state) ? notice : undefined;
  const event = panel?.events.find((each) => each.key === chosen);

  return (
    <HeadedSection id="workflow-heading" title="Workflow">
      <ErrorCallout error={workflow.error} />
      {panel ? (
        <Card size="2">
          <Flex direction="column" gap="4">
            <Text size="2">
              Now <Badge highContrast>{names.state(panel.state)}</Badge>{' '}
              {panel.states.find((state) => state.key === panel.state)?.description ?? ''}
            </Text>
            {shown ? (
              <Callout.Root
                color={shown.tone === 'stale' ? 'amber' : 'green'}
                role={shown.tone === 'stale' ? 'alert' : 'status'}
              >
                <Callout.Text>{shown.text}</Callout.Text>
              </Callout.Root>
            ) : null}
            {panel.pendingApproval ? (
              <ApprovalRequest
                approval={panel.pendingApproval}
                mayDecide={panel.events.some(
                  (each) => each.key === panel.pendingApproval?.eventKey && each.mayTrigger,
                )}
                onDecided={(text) => {
                  setNotice({ tone: 'done', text, state: panel.state });
                  onChanged();
                }}
              />
            ) : null}
            <WorkflowFigure workflow={panel} />
            <Box>
              <Heading as="h3" size="3" mb="2">
                Events
              </Heading>
              <Flex direction="column" gap="3" asChild>
                <ul className="plain-list">
                  {panel.events.map((each) => (
                    <EventRow
                      key={each.key}
                      event={each}
                      onChoose={(picked) => {
                        setNotice(undefined);
                        setChosen(picked.key);
                      }}
                      onChooseOnBehalf={(picked) => {
                        setNotice(undefined);
                        setOnBehalf(picked);
                      }}
                    />
                  ))}
                </ul>
              </Flex>
            </Box>
            <WorkflowInWords workflow={panel} />
          </Flex>
        </Card>
      ) : workflow.error ? null : (
        <Text size="2" color="gray">
          Reading the workflow…
        </Text>
      )}
      {event && panel ? (
        <EventDialog
          transactionId={transactionId}
          event={event}
          version={panel.version}
          onClose={() => {
            setChosen(undefined);
          }}
          onDone={(answer) => {
            setChosen(undefined);
            setNotice(doneNotice(event, answer, panel.state, names));
            onChanged();
          }}
          onStale={(error) => {
            setChosen(undefined);
            setNotice({ tone: 'stale', text: staleText(error, formatDateTime, names), state: '' });
            onChanged();
          }}
        />
      ) : null}
      {onBehalf && panel ? (
        <OnBehalfDialog
          transactionId={transactionId}
          event={onBehalf}
          version={panel.version}
          onClose={() => {
            setOnBehalf(undefined);
          }}
          onDone={(answer) => {
            setOnBehalf(undefined);
            setNotice(doneNotice(onBehalf, answer, panel.state, names));
            onChanged();
          }}
          onStale={onChanged}
        />
      ) : null}
    </HeadedSection>
  );
}

/** What the panel says once an event ran, or was asked for (a second person approves it first). */
function doneNotice(
  event: PanelEvent,
  answer: EventRunAnswer,
  state: string,
  names: WorkflowNames,
): { tone: 'done'; text: string; state: string } {
  return answer.outcome === 'asked'
    ? {
        tone: 'done',
        text: `Asked: a second person of your organization approves ${names.event(event.key)} before it runs.`,
        state,
      }
    : {
        tone: 'done',
        text: `Done: ${names.event(event.key)} moved it from ${names.state(answer.sourceStateKey ?? '')} to ${names.state(answer.targetStateKey)}.`,
        state: answer.targetStateKey,
      };
}

/**
 * An event someone asked for that waits for a second person (the template's `workflow.secondPerson`): who asked,
 * what they said, and, for a person who may run the event, Approve (it runs) and Decline. The server refuses the
 * person who asked, with its message.
 */
function ApprovalRequest({
  approval,
  mayDecide,
  onDecided,
}: {
  approval: PendingApproval;
  mayDecide: boolean;
  onDecided: (text: string) => void;
}) {
  const names = useWorkflowNames();
  const action = useApiAction();
  const decide = (decision: 'approve' | 'decline') =>
    action.run(async () => {
      if (decision === 'approve') {
        const answer = await consoleApi('POST /approvals/:id/approve', { params: { id: approval.id } });
        onDecided(
          `Approved: ${names.event(approval.eventKey)} moved it to ${names.state(answer.targetStateKey)}.`,
        );
      } else {
        await consoleApi('POST /approvals/:id/decline', { params: { id: approval.id } });
        onDecided(`Declined: ${names.event(approval.eventKey)} will not run.`);
      }
    });
  return (
    <Callout.Root color="amber" role="status">
      <Callout.Text>
        <Text weight="medium">
          {approval.requestedBy.label} asks to {names.event(approval.eventKey).toLowerCase()}
        </Text>{' '}
        ({formatDateTime(approval.requestedAt)}){approval.message === null ? '.' : `: “${approval.message}”`}{' '}
        A second person approves before it runs.
      </Callout.Text>
      <ErrorCallout error={action.error} />
      {mayDecide ? (
        <Flex gap="2" mt="2">
          <Button loading={action.busy} onClick={() => void decide('approve')}>
            Approve {names.event(approval.eventKey).toLowerCase()}
          </Button>
          <Button variant="soft" color="gray" disabled={action.busy} onClick={() => void decide('decline')}>
            Decline
          </Button>
        </Flex>
      ) : null}
    </Callout.Root>
  );
}

/** The text alternative of the drawing: every state (now, visited, final) and the path taken, step by step. */
function WorkflowInWords({ workflow }: { workflow: Workflow }) {
  const names = useWorkflowNames();
  const visited = new Set(workflow.path.flatMap((step) => [step.from ?? '', step.to]));
  return (
    <Flex direction="column" gap="4">
      <Box>
        <Heading as="h3" size="3" mb="2">
          States
        </Heading>
        <ol className="plain-list workflow-states">
          {workflow.states.map((state) => (
            <li key={state.key}>
              <Text size="2" weight={state.key === workflow.state ? 'bold' : undefined}>
                {names.state(state.key)}
              </Text>
              {state.key === workflow.state ? <Badge ml="2">now</Badge> : null}
              {state.key !== workflow.state && visited.has(state.key) ? (
                <Badge ml="2" color="gray">
                  visited
                </Badge>
              ) : null}
              {state.final ? (
                <Badge ml="2" color="green">
                  final
                </Badge>
              ) : null}
              {state.description === null ? null : (
                <Text size="1" color="gray" as="p">
                  {state.description}
                </Text>
              )}
            </li>
          ))}
        </ol>
      </Box>
      <Box>
        <Heading as="h3" size="3" mb="2">
          Path so far
        </Heading>
        {workflow.path.length === 0 ? (
          <Text size="2" color="gray">
            Nothing has happened yet: it is where it started, {names.state(workflow.initialState)}.
          </Text>
        ) : (
          <ol className="plain-list workflow-path">
            {workflow.path.map((step) => (
              <li key={step.id}>
                <Text size="2">
                  {names.event(step.eventKey)}: {step.from === null ? 'created' : names.state(step.from)} →{' '}
                  {names.state(step.to)}, by {step.actor.label}, {formatDateTime(step.at)}
                </Text>
                {step.message === null ? null : (
                  <Text size="2" color="gray" as="p">
                    “{step.message}”
                  </Text>
                )}
              </li>
            ))}
          </ol>
        )}
      </Box>
    </Flex>
  );
}
