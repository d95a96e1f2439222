import { describe, expect, it } from 'vitest';
import { layOut } from '../../web/console/pages/transaction/workflow-drawing.ts';
import { estimatedSize, type WorkflowNames } from '../../web/console/pages/transaction/workflow-layout.ts';
import type { WorkflowPanel } from '../../web/console/types.ts';

/** Keys as names: the sizes only need their lengths. */
const names: WorkflowNames = { state: (key) => key, event: (key) => key };

/** A workflow of `states` (the last ones `final`) and `events` (`key: from,from → to`), in its first state. */
function workflowOf(states: string[], finals: string[], events: Record<string, string>): WorkflowPanel {
  return {
    state: states[0] ?? '',
    initialState: states[0] ?? '',
    version: null,
    states: states.map((key) => ({ key, description: null, final: finals.includes(key) })),
    events: Object.entries(events).map(([key, move]) => {
      const [from = '', to = ''] = move.split(' → ');
      return {
        key,
        description: null,
        from: from.split(','),
        to,
        guard: null,
        allowed: false,
        reason: null,
        mayTrigger: false,
        messageRequired: false,
        needsSecondPerson: false,
        onBehalf: false,
      };
    }),
    path: [],
    pendingApproval: null,
  };
}

const WORKFLOWS = {
  'a straight line': workflowOf(['draft', 'sent', 'signed'], ['signed'], {
    send: 'draft → sent',
    sign: 'sent → signed',
  }),
  "the demo's subscription, with its review loop": workflowOf(
    ['draft', 'in_progress', 'in_review', 'changes_requested', 'countersigning', 'completed', 'voided'],
    ['completed', 'voided'],
    {
      send: 'draft → in_progress',
      submit: 'draft,in_progress,changes_requested → in_review',
      request_changes: 'in_review → changes_requested',
      approve: 'in_review → countersigning',
      countersign: 'countersigning → completed',
    },
  ),
  'four branches that meet again': workflowOf(['open', 'a', 'b', 'c', 'd', 'closed'], ['closed'], {
    to_a: 'open → a',
    to_b: 'open → b',
    to_c: 'open → c',
    to_d: 'open → d',
    close: 'a,b,c,d → closed',
  }),
};

describe('estimatedSize', () => {
  for (const [name, workflow] of Object.entries(WORKFLOWS)) {
    it(`keeps as tall a room as dagre lays out ${name} in, and no wider`, () => {
      const laid = layOut(workflow, names);
      const estimate = estimatedSize(workflow, names);
      expect(estimate.height).toBe(laid.height);
      expect(estimate.width).toBeLessThanOrEqual(laid.width);
      expect(estimate.width).toBeGreaterThan(laid.width * 0.6);
    });
  }
});
