import { quote } from '../errors.ts';
import type { WorkflowAction, WorkflowDefinition } from './templates/schema.ts';

/**
 * The workflow engine: pure functions over a template's workflow, the state a transaction is in and an event.
 * No I/O: transitions.ts reads the facts a guard needs (completion.ts), asks for a decision, and carries out
 * its actions.
 */

type Event = WorkflowDefinition['events'][number];

/** What is known of a transaction when a decision is asked for (see `workflowFactsOf` in completion.ts). */
export interface WorkflowFacts {
  /** Whether every process that exists is complete (processes never created do not count). */
  allProcessesComplete: boolean;
}

/** The engine's answer to an event: the transition and its actions, or why it is refused. */
export type Decision =
  | { ok: true; eventKey: string; source: string; target: string; actions: WorkflowAction[] }
  | {
      ok: false;
      reason: 'unknown_event' | 'not_allowed' | 'guard_failed';
      message: string;
      /** The events allowed from the current state. */
      allowed: string[];
    };

/** The keys of the workflow's final states. */
export function finalStates(workflow: WorkflowDefinition): Set<string> {
  return new Set(workflow.states.filter((state) => state.final === true).map((state) => state.key));
}

/** The events that may leave `state` (guards not evaluated). */
export function eventsFrom(workflow: WorkflowDefinition, state: string): Event[] {
  return workflow.events.filter((event) => event.from.includes(state));
}

/** The events that can happen to a transaction in `state` now: allowed from it, with their guards holding. */
export function allowedEvents(workflow: WorkflowDefinition, state: string, facts: WorkflowFacts): Event[] {
  return eventsFrom(workflow, state).filter((event) => guardHolds(event, facts));
}

/** What entering `state` does. */
export function actionsOnEntering(workflow: WorkflowDefinition, state: string): WorkflowAction[] {
  return workflow.states.find((candidate) => candidate.key === state)?.onEnter ?? [];
}

const GUARDS: Record<NonNullable<Event['guard']>, (facts: WorkflowFacts) => boolean> = {
  all_processes_complete: (facts) => facts.allProcessesComplete,
};

function guardHolds(event: Event, facts: WorkflowFacts): boolean {
  return event.guard === undefined || GUARDS[event.guard](facts);
}

/**
 * Decides what `eventKey` does to a transaction in `state`: the transition and the actions of the state it
 * enters, or why it is refused with the events allowed instead.
 *
 * @example
 * decide(workflow, 'in_review', 'approve', { allProcessesComplete: false });
 * // { ok: true, eventKey: 'approve', source: 'in_review', target: 'countersigning', actions: [{ addRecipient: 'countersigner' }] }
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
  const event = workflow.events.find((candidate) => candidate.key === eventKey);
  if (!event) {
    return {
      ok: false,
      reason: 'unknown_event',
      allowed,
      message: `unknown event ${quote(eventKey)}; ${listed}`,
    };
  }
  if (!event.from.includes(state)) {
    return {
      ok: false,
      reason: 'not_allowed',
      allowed,
      message: `event "${eventKey}" cannot happen in state "${state}"; ${listed}`,
    };
  }
  if (!guardHolds(event, facts)) {
    return {
      ok: false,
      reason: 'guard_failed',
      allowed,
      message: `event "${eventKey}" needs ${event.guard ?? 'its guard'} to hold, and it does not; ${listed}`,
    };
  }
  return {
    ok: true,
    eventKey,
    source: state,
    target: event.to,
    actions: actionsOnEntering(workflow, event.to),
  };
}

/** The states reachable from the initial state through events. */
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

/** The states from which some sequence of events reaches a final state (final states included). */
export function statesThatCanFinish(workflow: WorkflowDefinition): Set<string> {
  const done = finalStates(workflow);
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
