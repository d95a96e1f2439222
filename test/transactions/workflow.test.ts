import { beforeAll, describe, expect, it } from 'vitest';
import { loadExampleTemplate } from '../../src/demo/seed.ts';
import type { TemplateDefinition, WorkflowDefinition } from '../../src/transactions/templates/schema.ts';
import {
  actionsOnEntering,
  decide,
  effectiveWorkflow,
  eventsFrom,
  explainEvents,
  explainEventsFrom,
  finalStates,
  reachableStates,
  statesThatCanFinish,
  type WorkflowFacts,
} from '../../src/transactions/workflow.ts';
import type { SubmissionFacts } from '../../src/transactions/submissions.ts';
import { previewEvent } from '../../src/transactions/workflow-preview.ts';

let definition: TemplateDefinition;
let workflow: WorkflowDefinition;

beforeAll(async () => {
  definition = await loadExampleTemplate();
  workflow = definition.workflow;
});

const none: WorkflowFacts = { processes: [] };
const incomplete: WorkflowFacts = { processes: [{ key: 'subscription', isComplete: false }] };
const complete: WorkflowFacts = { processes: [{ key: 'subscription', isComplete: true }] };

describe('the workflow engine', () => {
  it('moves a transaction along an allowed event, with the actions of the state it enters', () => {
    expect(decide(workflow, 'in_review', 'approve', none)).toEqual({
      ok: true,
      eventKey: 'approve',
      source: 'in_review',
      target: 'countersigning',
      actions: [{ addRecipient: 'countersigner' }],
    });
    expect(decide(workflow, 'in_review', 'request_changes', none)).toMatchObject({
      ok: true,
      target: 'changes_requested',
      actions: [{ openRevision: 'subscription' }],
    });
  });

  it('refuses an unknown event, naming the events allowed from the current state', () => {
    expect(decide(workflow, 'in_review', 'aprove', complete)).toEqual({
      ok: false,
      refusal: 'unknown_event',
      reason: 'unknown event "aprove"',
      allowed: ['request_changes', 'approve', 'void'],
      message: 'unknown event "aprove"; allowed from "in_review": request_changes, approve, void',
    });
  });

  it('refuses an event from the wrong state with the states it leaves', () => {
    expect(decide(workflow, 'draft', 'approve', complete)).toEqual({
      ok: false,
      refusal: 'not_allowed',
      reason: 'approve: only from in_review',
      allowed: ['send', 'submit', 'void'],
      message: 'approve: only from in_review; allowed from "draft": send, submit, void',
    });
    expect(decide(workflow, 'in_review', 'submit', complete)).toMatchObject({
      reason: 'submit: only from draft, in_progress or changes_requested',
    });
  });

  it('refuses an event whose guard does not hold by counting complete processes, and leaves it out of the allowed events', () => {
    const facts: WorkflowFacts = {
      processes: [
        { key: 'subscription', isComplete: true },
        { key: 'tax', isComplete: false },
      ],
    };
    expect(decide(workflow, 'countersigning', 'countersign', facts)).toEqual({
      ok: false,
      refusal: 'guard_failed',
      reason: 'countersign: 1 of 2 processes complete',
      allowed: ['void'],
      message: 'countersign: 1 of 2 processes complete; allowed from "countersigning": void',
    });
    expect(decide(workflow, 'countersigning', 'countersign', incomplete)).toMatchObject({
      reason: 'countersign: 0 of 1 process complete',
    });
    expect(decide(workflow, 'countersigning', 'countersign', complete)).toMatchObject({
      ok: true,
      target: 'completed',
    });
  });

  it('refuses every event in a final state, saying the state is final', () => {
    expect(decide(workflow, 'completed', 'void', complete)).toEqual({
      ok: false,
      refusal: 'final_state',
      reason: 'void: the transaction is completed, a final state',
      allowed: [],
      message: 'void: the transaction is completed, a final state; no event is allowed from "completed"',
    });
  });

  it('knows what every state allows and does, and that every state can be reached and can finish', () => {
    expect(eventsFrom(workflow, 'completed')).toEqual([]);
    expect(actionsOnEntering(workflow, 'draft')).toEqual([{ createProcess: 'subscription' }]);
    const states = workflow.states.map((state) => state.key);
    expect([...reachableStates(workflow)].sort()).toEqual([...states, 'voided'].sort());
    expect([...statesThatCanFinish(workflow)].sort()).toEqual([...states].sort());
  });
});

describe('explaining events', () => {
  it('answers every event of the workflow, void included, with whether it can happen now and why not', () => {
    const explained = explainEvents(workflow, 'countersigning', incomplete);
    expect(explained.map((event) => [event.key, event.allowed, event.reason])).toEqual([
      ['send', false, 'send: only from draft'],
      ['submit', false, 'submit: only from draft, in_progress or changes_requested'],
      ['request_changes', false, 'request_changes: only from in_review'],
      ['approve', false, 'approve: only from in_review'],
      ['countersign', false, 'countersign: 0 of 1 process complete'],
      ['void', true, null],
    ]);
    expect(explained[4]).toEqual({
      key: 'countersign',
      description: 'The sender countersigns; every process must be complete.',
      from: ['countersigning'],
      to: 'completed',
      guard: 'all_processes_complete',
      allowed: false,
      reason: 'countersign: 0 of 1 process complete',
    });
  });

  it('lists the events that leave a state, those whose guard fails included, and none from a final state', () => {
    expect(explainEventsFrom(workflow, 'countersigning', incomplete).map((event) => event.key)).toEqual([
      'countersign',
      'void',
    ]);
    expect(explainEventsFrom(workflow, 'completed', complete)).toEqual([]);
    expect(explainEventsFrom(workflow, 'voided', complete)).toEqual([]);
  });

  it('gives the reason decide refuses with, so the API and the console say the same', () => {
    for (const state of ['draft', 'in_review', 'countersigning', 'completed']) {
      for (const event of explainEvents(workflow, state, incomplete)) {
        const decision = decide(workflow, state, event.key, incomplete);
        expect(decision.ok ? null : decision.reason).toBe(event.reason);
      }
    }
  });
});

describe("a recipient's event", () => {
  const lacking = (missing: Partial<SubmissionFacts['missing']>, submitted = false): WorkflowFacts => ({
    processes: [{ key: 'subscription', isComplete: false }],
    submissions: [
      {
        process: 'subscription',
        event: 'submit',
        submitted,
        missing: { answers: 0, consents: 0, uploads: 0, signatures: 0, where: [], ...missing },
      },
    ],
  });

  it('is refused while its revision lacks something, naming how much is missing and where', () => {
    const facts = lacking({ answers: 4, uploads: 1, where: ['About you', 'Tax residency and forms'] });
    expect(decide(workflow, 'in_progress', 'submit', facts)).toMatchObject({
      ok: false,
      refusal: 'revision_incomplete',
      reason: 'submit: 4 required answers and 1 upload missing in About you and Tax residency and forms',
      allowed: ['void'],
    });
    const signature = lacking({ signatures: 1, where: ['Subscription agreement'] });
    expect(
      explainEvents(workflow, 'in_progress', signature).find((event) => event.key === 'submit'),
    ).toMatchObject({
      allowed: false,
      reason: 'submit: 1 signature missing in Subscription agreement',
    });
  });

  it('may happen once its revision lacks nothing, or once the recipient submitted it whatever it lacks', () => {
    expect(decide(workflow, 'in_progress', 'submit', lacking({})).ok).toBe(true);
    const onPaper = lacking({ answers: 2, where: ['About you'] }, true);
    expect(decide(workflow, 'in_progress', 'submit', onPaper).ok).toBe(true);
  });

  it('is still refused from a state it does not leave first, for that reason', () => {
    expect(
      decide(workflow, 'in_review', 'submit', lacking({ answers: 1, where: ['About you'] })),
    ).toMatchObject({
      refusal: 'not_allowed',
      reason: 'submit: only from draft, in_progress or changes_requested',
    });
  });
});

describe('the built-in void', () => {
  it('leaves every state that is not final for the final state voided', () => {
    const effective = effectiveWorkflow(workflow);
    expect(effective.events.at(-1)).toMatchObject({
      key: 'void',
      from: ['draft', 'in_progress', 'in_review', 'changes_requested', 'countersigning'],
      to: 'voided',
    });
    expect(effective.states.at(-1)).toMatchObject({ key: 'voided', final: true });
    expect(finalStates(workflow)).toEqual(new Set(['completed', 'voided']));
    expect(effectiveWorkflow(effective)).toBe(effective);
    expect(effectiveWorkflow(workflow)).toBe(effective);
  });

  it('is left out when the template says void: false', () => {
    const without = { ...workflow, void: false };
    expect(effectiveWorkflow(without)).toBe(without);
    expect(decide(without, 'draft', 'void', none)).toMatchObject({ ok: false, refusal: 'unknown_event' });
  });

  it("gives way to the template's own event void, and reuses its own final state voided", () => {
    const own: WorkflowDefinition = {
      ...workflow,
      events: [...workflow.events, { key: 'void', from: ['draft'], to: 'completed' }],
    };
    expect(effectiveWorkflow(own)).toBe(own);
    expect(decide(own, 'in_review', 'void', none)).toMatchObject({ reason: 'void: only from draft' });

    const withVoided: WorkflowDefinition = {
      ...workflow,
      states: [...workflow.states, { key: 'voided', description: 'Called off.', final: true }],
    };
    const effective = effectiveWorkflow(withVoided);
    expect(effective.states.filter((state) => state.key === 'voided')).toEqual([
      { key: 'voided', description: 'Called off.', final: true },
    ]);
    expect(effective.events.at(-1)).toMatchObject({ key: 'void', to: 'voided' });
  });

  it('is not added when the state voided of the template goes on, which would make a void that does not end', () => {
    const goesOn: WorkflowDefinition = {
      ...workflow,
      states: [...workflow.states, { key: 'voided' }],
      events: [...workflow.events, { key: 'reopen', from: ['voided'], to: 'draft' }],
    };
    expect(effectiveWorkflow(goesOn)).toBe(goesOn);
  });
});

describe('previewing an event', () => {
  it('says a request for changes enters its state, opens a revision and mails the recipient', () => {
    expect(
      previewEvent(definition, 'in_review', 'request_changes', { ...incomplete, transactionComplete: false }),
    ).toEqual({
      decision: {
        ok: true,
        eventKey: 'request_changes',
        source: 'in_review',
        target: 'changes_requested',
        actions: [{ openRevision: 'subscription' }],
      },
      messageRequired: false,
      mails: [{ to: 'primary_recipient', role: 'investor', kind: 'changes_requested' }],
      webhooks: ['transaction.state_changed'],
      completes: false,
    });
  });

  it('says a void needs a message, reports transaction.voided and mails the recipient', () => {
    expect(previewEvent(definition, 'in_review', 'void', incomplete)).toMatchObject({
      decision: { ok: true, target: 'voided', actions: [] },
      messageRequired: true,
      mails: [{ to: 'primary_recipient', role: 'investor', kind: 'voided' }],
      webhooks: ['transaction.state_changed', 'transaction.voided'],
      completes: null,
    });
  });

  it('promises completion only when the facts make it certain', () => {
    const almost: WorkflowFacts = { ...complete, transactionComplete: false };
    expect(previewEvent(definition, 'countersigning', 'countersign', almost)).toMatchObject({
      mails: [{ kind: 'signed_copy' }],
      webhooks: ['transaction.state_changed', 'transaction.completed'],
      completes: true,
    });
    const already: WorkflowFacts = { ...complete, transactionComplete: true };
    expect(previewEvent(definition, 'countersigning', 'countersign', already)).toMatchObject({
      mails: [],
      webhooks: ['transaction.state_changed'],
      completes: false,
    });
    expect(previewEvent(definition, 'countersigning', 'countersign', complete).completes).toBeNull();
  });

  it('does nothing for a refused event, with the refusal as its decision', () => {
    expect(previewEvent(definition, 'draft', 'approve', none)).toEqual({
      decision: expect.objectContaining({ ok: false, reason: 'approve: only from in_review' }),
      messageRequired: false,
      mails: [],
      webhooks: [],
      completes: false,
    });
  });
});
