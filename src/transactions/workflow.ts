import { listed, quote } from '../errors.ts';
import { label, words } from './templates/key-words.ts';
import { describeMissing, lacksNothing, summed, type SubmissionFacts } from './submissions.ts';
import type { TemplateDefinition, WorkflowAction, WorkflowDefinition } from './templates/schema.ts';

/**
 * The workflow engine: pure functions over a template's workflow, the state a transaction is in and an event.
 * No I/O: transitions.ts reads the facts a guard needs (completion.ts), asks for a decision, and carries out
 * its actions. Every function that answers about a transaction reads the template's effective workflow
 * ({@link effectiveWorkflow}: the template's own, with the built-in `void` event), so the engine, GraphQL and the
 * console agree on it.
 */

type Event = WorkflowDefinition['events'][number];
type State = WorkflowDefinition['states'][number];

/** The key of the event that voids a transaction, built into every workflow (see {@link effectiveWorkflow}). */
export const VOID_EVENT = 'void';
/** The final state the built-in `void` event enters. */
export const VOIDED_STATE = 'voided';

/** What is known of a transaction when a decision is asked for (see `workflowFactsOf` in completion.ts). */
export interface WorkflowFacts {
  /** Every process that exists, with whether it is complete (processes never created are not listed). */
  processes: readonly { key: string; isComplete: boolean }[];
  /**
   * Whether the transaction is complete already (it completes once, so an event then completes nothing); when
   * absent, a preview cannot tell whether an event completes it.
   */
  transactionComplete?: boolean;
  /**
   * Each process a recipient submits (one with a `submitEvent`) that exists, with its latest revision: whether it
   * was submitted and what it still lacks. Absent when not read: no recipient's event is asked about.
   */
  submissions?: readonly SubmissionFacts[];
}

/** The processes whose recipient has not submitted what `eventKey` submits, and which still lack something. */
function incompleteSubmissions(eventKey: string, facts: WorkflowFacts): SubmissionFacts[] {
  return (facts.submissions ?? []).filter(
    (submission) =>
      submission.event === eventKey && !submission.submitted && !lacksNothing(submission.missing),
  );
}

/** Whether `eventKey` is a recipient's event: some process's `submitEvent`. */
export function isRecipientEvent(definition: TemplateDefinition, eventKey: string): boolean {
  return definition.processes.some((process) => process.submitEvent === eventKey);
}

/**
 * The facts as they are when a paper form the recipient signed stands for what `eventKey` submits (staff run it
 * on the recipient's behalf): its submissions lack nothing.
 */
export function factsOnPaper(facts: WorkflowFacts, eventKey: string): WorkflowFacts {
  return { ...facts, submissions: facts.submissions?.filter((submission) => submission.event !== eventKey) };
}

/**
 * The `all_processes_complete` fact: every process that exists is complete (processes never created do not
 * count, so a transaction without processes has them all complete). The one place it is computed.
 */
export function allProcessesComplete(processes: readonly { isComplete: boolean }[]): boolean {
  return processes.every((process) => process.isComplete);
}

/** How a refusal's reason names events and states: by their keys (the API's) or in words (the console's). */
export interface WorkflowNames {
  event: (key: string) => string;
  state: (key: string) => string;
}

/** Events and states by their keys: `approve: only from in_review`, as the API says it. */
export const BY_KEY: WorkflowNames = { event: (key) => key, state: (key) => key };

/** The titles a workflow gives its states and events (the built-in void's included), by key. */
export interface WorkflowTitles {
  states: Record<string, string>;
  events: Record<string, string>;
}

/** The titles of each workflow read, by the workflow: a queue's rows share their template's. */
const titled = new WeakMap<WorkflowDefinition, WorkflowTitles>();

/** Each state's and event's title: the template's, else its key in words ("in review", "Request changes"). */
export function workflowTitles(workflow: WorkflowDefinition): WorkflowTitles {
  const known = titled.get(workflow);
  if (known) return known;
  const effective = effectiveWorkflow(workflow);
  const titles = {
    states: Object.fromEntries(effective.states.map((state) => [state.key, state.title ?? words(state.key)])),
    events: Object.fromEntries(effective.events.map((event) => [event.key, event.title ?? label(event.key)])),
  };
  titled.set(workflow, titles);
  return titles;
}

/** Events and states by their titles: `Approve: only from in review`, as the console says it. */
export function inWords(workflow: WorkflowDefinition): WorkflowNames {
  const titles = workflowTitles(workflow);
  return {
    event: (key) => (Object.hasOwn(titles.events, key) ? titles.events[key] : undefined) ?? label(key),
    state: (key) => (Object.hasOwn(titles.states, key) ? titles.states[key] : undefined) ?? words(key),
  };
}

/**
 * Which rule refuses an event: it is unknown, the transaction is in a final state, the event does not leave the
 * current state, its guard does not hold, or it submits a revision (a recipient's event) that still lacks
 * required answers, consents, uploads or signatures.
 */
export type Refusal =
  'unknown_event' | 'final_state' | 'not_allowed' | 'guard_failed' | 'revision_incomplete';

/** The engine's answer to an event: the transition and its actions, or why it is refused. */
export type Decision =
  | { ok: true; eventKey: string; source: string; target: string; actions: WorkflowAction[] }
  | {
      ok: false;
      /** Which rule refused it. */
      refusal: Refusal;
      /** Why, for people, naming the event (as {@link explainEvents} says it): `approve: only from in_review`. */
      reason: string;
      /** The reason with the events allowed instead: what INVALID_EVENT says. */
      message: string;
      /** The events allowed from the current state. */
      allowed: string[];
    };

const BUILT_IN_VOID: Omit<Event, 'from'> = {
  key: VOID_EVENT,
  description:
    'Voids the transaction: it ends, the recipient is told why by mail and their link shows it. Needs a message (the reason).',
  to: VOIDED_STATE,
};
const BUILT_IN_VOIDED: State = {
  key: VOIDED_STATE,
  description: 'Voided by the organization: nothing more happens.',
  final: true,
};

const effective = new WeakMap<WorkflowDefinition, WorkflowDefinition>();

/**
 * The workflow a template's transactions follow: its own, with the built-in event `void` from every state that
 * is not final to the final state `voided` (added unless the template has it). A template opts out with
 * `workflow.void: false`; one that defines an event keyed `void` has that event as its void instead; one whose
 * state `voided` is not final gets no built-in void (it would enter a state that goes on). Pure and memoised per
 * workflow object; asking again of its own answer gives that answer.
 *
 * @example
 * effectiveWorkflow(template.workflow).events.at(-1);
 * // { key: 'void', description: 'Voids the transaction: …', from: ['draft', 'in_review', …], to: 'voided' }
 */
export function effectiveWorkflow(workflow: WorkflowDefinition): WorkflowDefinition {
  const known = effective.get(workflow);
  if (known) return known;
  const result = withBuiltInVoid(workflow);
  effective.set(workflow, result);
  effective.set(result, result);
  return result;
}

function withBuiltInVoid(workflow: WorkflowDefinition): WorkflowDefinition {
  if (workflow.void === false || workflow.events.some((event) => event.key === VOID_EVENT)) return workflow;
  const voided = workflow.states.find((state) => state.key === VOIDED_STATE);
  if (voided !== undefined && voided.final !== true) return workflow;
  const from = workflow.states.filter((state) => state.final !== true).map((state) => state.key);
  if (from.length === 0) return workflow;
  return {
    ...workflow,
    states: voided === undefined ? [...workflow.states, BUILT_IN_VOIDED] : workflow.states,
    events: [...workflow.events, { ...BUILT_IN_VOID, from }],
  };
}

/** Whether `eventKey` voids the transaction: it needs a message, and reports and mails a void. */
export const isVoidEvent = (eventKey: string): boolean => eventKey === VOID_EVENT;

/** The final states of the template's own workflow, as written (without the built-in `voided`). */
export function ownFinalStates(workflow: WorkflowDefinition): Set<string> {
  return new Set(workflow.states.filter((state) => state.final === true).map((state) => state.key));
}

/** The keys of the workflow's final states (the built-in `voided` included). */
export function finalStates(workflow: WorkflowDefinition): Set<string> {
  return ownFinalStates(effectiveWorkflow(workflow));
}

/** The events that may leave `state` (guards not evaluated). */
export function eventsFrom(workflow: WorkflowDefinition, state: string): Event[] {
  return effectiveWorkflow(workflow).events.filter((event) => event.from.includes(state));
}

/** The events that can happen to a transaction in `state` now: allowed from it, with their guards holding. */
export function allowedEvents(workflow: WorkflowDefinition, state: string, facts: WorkflowFacts): Event[] {
  return eventsFrom(workflow, state).filter(
    (event) => refusalOf(workflow, state, event, facts) === undefined,
  );
}

/** What entering `state` does. */
export function actionsOnEntering(workflow: WorkflowDefinition, state: string): WorkflowAction[] {
  return effectiveWorkflow(workflow).states.find((candidate) => candidate.key === state)?.onEnter ?? [];
}

const GUARDS: Record<NonNullable<Event['guard']>, (facts: WorkflowFacts) => boolean> = {
  all_processes_complete: (facts) => allProcessesComplete(facts.processes),
};

/** Why a guard does not hold, for people (after the event's key). */
const GUARD_REASONS: Record<NonNullable<Event['guard']>, (facts: WorkflowFacts) => string> = {
  all_processes_complete: ({ processes }) => {
    if (processes.length === 0) return 'no process exists yet';
    const complete = processes.filter((process) => process.isComplete).length;
    return `${String(complete)} of ${String(processes.length)} ${processes.length === 1 ? 'process' : 'processes'} complete`;
  },
};

/** Why `event` cannot happen in `state` now, and which rule says so; undefined when it can. */
function refusalOf(
  workflow: WorkflowDefinition,
  state: string,
  event: Event,
  facts: WorkflowFacts,
  names: WorkflowNames = BY_KEY,
): { refusal: Exclude<Refusal, 'unknown_event'>; reason: string } | undefined {
  const named = names.event(event.key);
  if (finalStates(workflow).has(state)) {
    return {
      refusal: 'final_state',
      reason: `${named}: the transaction is ${names.state(state)}, a final state`,
    };
  }
  if (!event.from.includes(state)) {
    return {
      refusal: 'not_allowed',
      reason: `${named}: only from ${listed(event.from.map(names.state), 'or')}`,
    };
  }
  if (event.guard !== undefined && !GUARDS[event.guard](facts)) {
    return { refusal: 'guard_failed', reason: `${named}: ${GUARD_REASONS[event.guard](facts)}` };
  }
  const incomplete = incompleteSubmissions(event.key, facts);
  if (incomplete.length > 0) {
    return { refusal: 'revision_incomplete', reason: `${named}: ${describeMissing(summed(incomplete))}` };
  }
  return undefined;
}

/** An event of the workflow with whether it can happen now and, when it cannot, why. */
export interface ExplainedEvent {
  key: string;
  description: string | null;
  from: string[];
  to: string;
  guard: string | null;
  /** Whether the event can happen now: allowed from the current state, with its guard holding. */
  allowed: boolean;
  /**
   * Why it cannot, for people, naming the event: `countersign: 1 of 2 processes complete`,
   * `approve: only from in_review`, `void: the transaction is completed, a final state`; null when allowed.
   */
  reason: string | null;
}

/**
 * Every event of the (effective) workflow, in its order, with whether it can happen to a transaction in `state`
 * now and why not: what the console shows as buttons, greyed with the reason when blocked. `decide` refuses with
 * the same reasons; `names` says them in words for the console ({@link inWords}) instead of by key.
 *
 * @example
 * explainEvents(workflow, 'countersigning', { processes: [{ key: 'subscription', isComplete: false }] })
 *   .find((event) => event.key === 'countersign');
 * // { key: 'countersign', …, allowed: false, reason: 'countersign: 0 of 1 process complete' }
 */
export function explainEvents(
  workflow: WorkflowDefinition,
  state: string,
  facts: WorkflowFacts,
  names: WorkflowNames = BY_KEY,
): ExplainedEvent[] {
  return effectiveWorkflow(workflow).events.map((event) => {
    const refused = refusalOf(workflow, state, event, facts, names);
    return {
      key: event.key,
      description: event.description ?? null,
      from: event.from,
      to: event.to,
      guard: event.guard ?? null,
      allowed: refused === undefined,
      reason: refused?.reason ?? null,
    };
  });
}

/**
 * The events that leave `state` (those whose guard does not hold included), explained as by
 * {@link explainEvents}: `Transaction.availableEvents`.
 */
export function explainEventsFrom(
  workflow: WorkflowDefinition,
  state: string,
  facts: WorkflowFacts,
): ExplainedEvent[] {
  return explainEvents(workflow, state, facts).filter((event) => event.from.includes(state));
}

/**
 * Decides what `eventKey` does to a transaction in `state`: the transition and the actions of the state it
 * enters, or why it is refused (the reason {@link explainEvents} gives) with the events allowed instead.
 *
 * @example
 * decide(workflow, 'in_review', 'approve', { processes: [] });
 * // { ok: true, eventKey: 'approve', source: 'in_review', target: 'countersigning', actions: [{ addRecipient: 'countersigner' }] }
 * decide(workflow, 'draft', 'approve', { processes: [] });
 * // { ok: false, refusal: 'not_allowed', reason: 'approve: only from in_review',
 * //   message: 'approve: only from in_review; allowed from "draft": send, submit, void', allowed: […] }
 */
export function decide(
  workflow: WorkflowDefinition,
  state: string,
  eventKey: string,
  facts: WorkflowFacts,
): Decision {
  const allowed = allowedEvents(workflow, state, facts).map((event) => event.key);
  const listed =
    allowed.length > 0
      ? `allowed from "${state}": ${allowed.join(', ')}`
      : `no event is allowed from "${state}"`;
  const event = effectiveWorkflow(workflow).events.find((candidate) => candidate.key === eventKey);
  if (!event) {
    const reason = `unknown event ${quote(eventKey)}`;
    return { ok: false, refusal: 'unknown_event', reason, allowed, message: `${reason}; ${listed}` };
  }
  const refused = refusalOf(workflow, state, event, facts);
  if (refused) return { ok: false, ...refused, allowed, message: `${refused.reason}; ${listed}` };
  return {
    ok: true,
    eventKey,
    source: state,
    target: event.to,
    actions: actionsOnEntering(workflow, event.to),
  };
}

/**
 * The states reachable from the initial state through the events of the effective workflow (a final state
 * `voided` of the template's own is reached by the built-in void).
 */
export function reachableStates(workflow: WorkflowDefinition): Set<string> {
  const seen = new Set<string>([workflow.initialState]);
  const queue = [workflow.initialState];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const event of eventsFrom(workflow, state)) {
      if (!seen.has(event.to)) {
        seen.add(event.to);
        queue.push(event.to);
      }
    }
  }
  return seen;
}

/**
 * The states from which some sequence of the template's own events (as written: the built-in void would let
 * every state finish) reaches one of its final states (final states included).
 */
export function statesThatCanFinish(workflow: WorkflowDefinition): Set<string> {
  const done = ownFinalStates(workflow);
  let grew = true;
  while (grew) {
    grew = false;
    for (const event of workflow.events) {
      if (!done.has(event.to)) continue;
      for (const from of event.from) {
        if (!done.has(from)) {
          done.add(from);
          grew = true;
        }
      }
    }
  }
  return done;
}
