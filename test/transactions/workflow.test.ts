import { beforeAll, describe, expect, it } from 'vitest';
import { loadExampleTemplate } from '../../src/demo/seed.ts';
import type { WorkflowDefinition } from '../../src/transactions/templates/schema.ts';
import {
  actionsOnEntering,
  decide,
  eventsFrom,
  reachableStates,
  statesThatCanFinish,
} from '../../src/transactions/workflow.ts';

let workflow: WorkflowDefinition;

beforeAll(async () => {
  workflow = (await loadExampleTemplate()).workflow;
});

describe('the workflow engine', () => {
  it('moves a transaction along an allowed event, with the actions of the state it enters', () => {
    expect(decide(workflow, 'in_review', 'approve', { allProcessesComplete: false })).toEqual({
      ok: true,
      eventKey: 'approve',
      source: 'in_review',
      target: 'countersigning',
      actions: [{ addRecipient: 'countersigner' }],
    });
    expect(decide(workflow, 'in_review', 'request_changes', { allProcessesComplete: false })).toMatchObject({
      ok: true,
      target: 'changes_requested',
      actions: [{ openRevision: 'subscription' }],
    });
  });

  it('refuses an unknown event, naming the events allowed from the current state', () => {
    const decision = decide(workflow, 'in_review', 'aprove', { allProcessesComplete: true });
    expect(decision).toEqual({
      ok: false,
      reason: 'unknown_event',
      allowed: ['request_changes', 'approve'],
      message: 'unknown event "aprove"; allowed from "in_review": request_changes, approve',
    });
  });

  it('refuses an event from the wrong state', () => {
    expect(decide(workflow, 'draft', 'approve', { allProcessesComplete: true })).toMatchObject({
      ok: false,
      reason: 'not_allowed',
      allowed: ['send', 'submit'],
      message: 'event "approve" cannot happen in state "draft"; allowed from "draft": send, submit',
    });
  });

  it('refuses an event whose guard does not hold, and leaves it out of the allowed events', () => {
    const refused = decide(workflow, 'countersigning', 'countersign', { allProcessesComplete: false });
    expect(refused).toMatchObject({ ok: false, reason: 'guard_failed', allowed: [] });
    expect(refused.ok || refused.message).toContain('no event is allowed from "countersigning"');
    expect(decide(workflow, 'countersigning', 'countersign', { allProcessesComplete: true })).toMatchObject({
      ok: true,
      target: 'completed',
    });
  });

  it('knows what every state allows and does, and that every state can be reached and can finish', () => {
    expect(eventsFrom(workflow, 'completed')).toEqual([]);
    expect(actionsOnEntering(workflow, 'draft')).toEqual([{ createProcess: 'subscription' }]);
    const states = workflow.states.map((state) => state.key);
    expect([...reachableStates(workflow)].sort()).toEqual([...states].sort());
    expect([...statesThatCanFinish(workflow)].sort()).toEqual([...states].sort());
  });
});
