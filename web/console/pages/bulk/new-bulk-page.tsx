import { Button, Card, Flex, Text, TextArea } from '@radix-ui/themes';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../../shared/api-error.ts';
import { ErrorCallout } from '../../../shared/error-callout.tsx';
import { EmptyState } from '../../../shared/list/empty-state.tsx';
import { Notice } from '../../../shared/notice.tsx';
import { PageHeading } from '../../../shared/page-heading.tsx';
import { useApiAction } from '../../../shared/use-api-action.ts';
import { useResource } from '../../../shared/use-resource.ts';
import { consoleApi } from '../../api.ts';
import { useSignedIn } from '../../session.tsx';
import { count } from '../closings/closing-words.ts';
import { useStoredState } from '../closings/stored-state.ts';
import type { BulkPreflight } from './bulk-words.ts';
import {
  chosenCount,
  readSelection,
  readSentRun,
  selectionBody,
  selectionKey,
  sentRunKey,
  type ChosenSelection,
  type SentRun,
} from './selection.ts';
import { PreflightView } from './preflight-view.tsx';
import './bulk.css';
import { BackLink } from '../../../shared/layout/back-link.tsx';
import { changedParams } from '../../../shared/list/address-params.ts';

/** The action the address names (`action`, `event`, `to`), as the routes take it; the reason of a void aside. */
function actionOf(params: URLSearchParams): {
  kind: 'remind' | 'event' | 'assign';
  eventKey?: string;
  userId?: string;
} {
  const kind = params.get('action');
  const eventKey = params.get('event') ?? '';
  if (kind === 'event' && eventKey !== '') return { kind, eventKey };
  if (kind === 'assign') return { kind, ...(params.get('to') ? { userId: params.get('to') ?? '' } : {}) };
  return { kind: 'remind' };
}

/** The menu's value of an action: "remind", "event:approve", "assign". */
const choiceOf = (action: ReturnType<typeof actionOf>) =>
  action.kind === 'event' ? `event:${action.eventKey ?? ''}` : action.kind;

/**
 * A bulk action before it runs (`/console/bulk/new`), on what the work queue's boxes chose (kept in sessionStorage
 * through a reload): the action (a reminder, an event of the selection's templates in their words, a void with its
 * reason, an assignment to a person), in the address; the server's preflight of it (how many eligible, blocked and
 * asking a second person, the blocked grouped by reason, each transaction a page of 100 at a time); and "Run on 4
 * eligible", greyed with why when none is. The run is made once per preflight, however often it is clicked, and
 * its page follows it; a run whose answer was lost (the connection dropped, the page was reloaded) is kept in
 * sessionStorage and sent again as it was when the page opens, so that the server makes its job once.
 */
export default function NewBulkPage() {
  const { tenant, user } = useSignedIn();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const [chosen, , forget] = useStoredState<ChosenSelection | null>(
    selectionKey(tenant.handle, user.id),
    null,
    readSelection,
  );
  const [sent, setSent, forgetSent] = useStoredState<SentRun | null>(
    sentRunKey(tenant.handle, user.id),
    null,
    readSentRun,
  );
  const action = actionOf(params);
  const offset = Math.max(0, Math.floor(Number(params.get('offset') ?? '0')) || 0);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const [preflight, setPreflight] = useState<BulkPreflight>();
  const [events, setEvents] = useState<BulkPreflight['events']>([]);
  const checking = useApiAction();
  const running = useApiAction();
  const options = useResource(consoleApi, 'GET /queue/options');
  const isVoid =
    action.kind === 'event' && events.some((event) => event.key === action.eventKey && event.isVoid);
  const waitsForPerson = action.kind === 'assign' && action.userId === undefined;

  const request =
    chosen === null || waitsForPerson ? null : { selection: selectionBody(chosen), action, offset };
  const requestText = JSON.stringify(request);
  useEffect(() => {
    if (request === null) return undefined;
    let current = true;
    void checking.run(async () => {
      const answer = await consoleApi('POST /bulk/preflight', { body: request });
      if (!current) return;
      setPreflight(answer.preflight);
      setEvents(answer.preflight.events);
    });
    return () => {
      current = false;
    };
    // The request's text stands for it: a new object each render.
  }, [requestText]);
  // One job per preflight and reason: a double click, or a retry, makes one.
  const idempotencyKey = useMemo(() => crypto.randomUUID(), [preflight?.checkedAt, reason]);

  const send = (body: SentRun) =>
    running.run(async () => {
      setSent(body);
      try {
        const { job } = await consoleApi('POST /bulk', { body });
        forget();
        forgetSent();
        void navigate(`/bulk/${job.id}`);
      } catch (error) {
        // An answer settles the run (a refusal made no job); a lost connection leaves it to be sent again.
        if (!(error instanceof ApiError && error.code === 'NETWORK_ERROR')) forgetSent();
        throw error;
      }
    });
  // A run sent before a reload, whose answer never came: sent again, as it was, once.
  const [resending] = useState(() => sent);
  useEffect(() => {
    if (resending !== null) void send(resending);
  }, [resending]);

  const setAction = (changes: Record<string, string | null>) => {
    setParams((current) => changedParams(current, changes), { replace: true });
  };

  if (chosen === null) {
    return (
      <Flex direction="column" gap="4">
        <BackToQueue />
        <PageHeading title="Bulk action" />
        <EmptyState
          title="Nothing is selected"
          hint="Choose transactions in the work queue with their boxes, then “Act on selection…”."
        />
      </Flex>
    );
  }

  const run = () => {
    if (preflight === undefined || request === null || running.busy) return;
    if (isVoid && reason.trim() === '') {
      setReasonError('Say why: a void needs its reason, which the recipients are told by mail.');
      return;
    }
    setReasonError(undefined);
    void send({
      selection: request.selection,
      action: { ...action, ...(reason.trim() === '' ? {} : { message: reason.trim() }) },
      checkedAt: preflight.checkedAt,
      idempotencyKey,
    });
  };
  const total = chosenCount(chosen);
  const why =
    preflight === undefined
      ? 'Checking each transaction first…'
      : preflight.eligible === 0
        ? `None of the ${count(preflight.total, 'transaction')} can be acted on now: see why below.`
        : undefined;

  return (
    <Flex direction="column" gap="4">
      <BackToQueue />
      <PageHeading
        title={`Act on ${count(total, 'transaction')}`}
        documentTitle={`Bulk action · ${tenant.name}`}
      />
      {resending !== null && running.busy ? (
        <Notice tone="info" role="status">
          Sending again the run made before the page reloaded: it starts once, whether or not it arrived.
        </Notice>
      ) : null}
      <Card>
        <Flex direction="column" gap="3">
          <Flex gap="3" wrap="wrap" align="end">
            <Flex direction="column" gap="1">
              <Text as="label" htmlFor="bulk-action" size="2" weight="medium">
                Action
              </Text>
              <select
                id="bulk-action"
                className="native-select"
                value={choiceOf(action)}
                onChange={(event) => {
                  const [kind = 'remind', key = null] = event.target.value.split(':');
                  setAction({ action: kind, event: key, to: null, offset: null });
                }}
              >
                <option value="remind">Remind the investor</option>
                {events.map((event) => (
                  <option key={event.key} value={`event:${event.key}`}>
                    {event.isVoid ? `${event.title} (with a reason)` : event.title}
                  </option>
                ))}
                <option value="assign">Assign to a person</option>
              </select>
            </Flex>
            {action.kind === 'assign' ? (
              <Flex direction="column" gap="1">
                <Text as="label" htmlFor="bulk-person" size="2" weight="medium">
                  Person
                </Text>
                <select
                  id="bulk-person"
                  className="native-select"
                  value={action.userId ?? ''}
                  onChange={(event) => {
                    setAction({ to: event.target.value === '' ? null : event.target.value, offset: null });
                  }}
                >
                  <option value="">Choose a person</option>
                  {options.data?.people.map((person) => (
                    <option key={person.id} value={person.id}>
                      {person.name}
                    </option>
                  ))}
                </select>
              </Flex>
            ) : null}
          </Flex>
          {isVoid ? (
            <Flex direction="column" gap="1">
              <Text as="label" htmlFor="bulk-reason" size="2" weight="medium">
                Reason (required)
              </Text>
              <TextArea
                id="bulk-reason"
                value={reason}
                required
                aria-required
                aria-invalid={reasonError === undefined ? undefined : true}
                aria-describedby={
                  reasonError === undefined ? 'bulk-reason-hint' : 'bulk-reason-hint bulk-reason-error'
                }
                maxLength={2000}
                onChange={(event) => {
                  setReason(event.target.value);
                }}
              />
              <Text id="bulk-reason-hint" size="1" color="gray">
                Each recipient is told it by mail; it is kept in each timeline.
              </Text>
              {reasonError === undefined ? null : (
                <Text id="bulk-reason-error" size="2" color="red" role="alert">
                  {reasonError}
                </Text>
              )}
            </Flex>
          ) : null}
          {waitsForPerson ? (
            <Text size="2" color="gray">
              Choose the person to assign these to: each is checked then.
            </Text>
          ) : null}
        </Flex>
      </Card>
      <ErrorCallout error={checking.error} />
      {preflight === undefined || waitsForPerson ? null : (
        <PreflightView
          preflight={preflight}
          offset={offset}
          busy={checking.busy}
          onPage={(next) => {
            setAction({ offset: next === 0 ? null : String(next) });
          }}
        >
          <Flex direction="column" gap="2" align="start">
            <ErrorCallout error={running.error} />
            <Button
              size="3"
              disabled={why !== undefined || checking.busy}
              loading={running.busy}
              aria-describedby={why === undefined ? undefined : 'bulk-run-reason'}
              color={isVoid ? 'red' : undefined}
              onClick={run}
            >
              {preflight.eligible === 0
                ? 'Run'
                : `Run on ${count(preflight.eligible, 'eligible', 'eligible')}`}
            </Button>
            {why === undefined ? null : (
              <Text id="bulk-run-reason" size="1" color="gray">
                {why}
              </Text>
            )}
          </Flex>
        </PreflightView>
      )}
    </Flex>
  );
}

function BackToQueue() {
  return <BackLink to="/queue">Work queue</BackLink>;
}
