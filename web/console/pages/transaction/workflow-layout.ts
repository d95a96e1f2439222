// What the drawing of a workflow is laid out from, shared by the drawing (workflow-graph.tsx, with dagre, a chunk of
// its own) and the room the page keeps for it before that chunk has come (workflow-figure.tsx): the edges worth
// drawing, the sizes of the boxes and labels, dagre's settings, and the drawing's size as dagre will about lay it out.
import type { WorkflowPanel } from '../../types.ts';

/** A state or an event by its key, as people read it (workflow-names.tsx gives the page's). */
export interface WorkflowNames {
  /** "in review", or the template's title. */
  state: (key: string) => string;
  /** "Request changes", or the template's title. */
  event: (key: string) => string;
}

/** dagre's settings: top to bottom, the gaps between states, ranks and edges, the margins. */
export const LAYOUT = {
  rankdir: 'TB',
  nodesep: 28,
  ranksep: 30,
  edgesep: 14,
  marginx: 8,
  marginy: 8,
} as const;
/** The height of a state's box. */
export const NODE_HEIGHT = 34;
/** The height of an event's label. */
export const LABEL_HEIGHT = 14;

/** The width of a label in the drawing's 12px font, near enough for the layout. */
export const widthOf = (text: string) => Math.ceil(text.length * 7 + 8);
/** The width of a state's box, by its name. */
export const stateWidth = (name: string) => Math.max(90, widthOf(name) + 16);

/** An edge of the drawing: an event from one of its states. */
export interface WorkflowEdge {
  from: string;
  to: string;
  event: string;
  /** Taken on the transaction's path so far. */
  lit: boolean;
}

/**
 * The edges worth drawing: every event from each of its states, except the built-in void, which may happen from
 * any unfinished state and is drawn only from the state the transaction is in (and where it was taken).
 */
export function edgesOf(workflow: WorkflowPanel): WorkflowEdge[] {
  const taken = new Set(workflow.path.map((step) => `${step.eventKey} ${step.from ?? ''} ${step.to}`));
  return workflow.events.flatMap((event) =>
    event.from
      .filter(
        (from) =>
          !event.messageRequired || from === workflow.state || taken.has(`${event.key} ${from} ${event.to}`),
      )
      .map((from) => ({
        from,
        to: event.to,
        event: event.key,
        lit: taken.has(`${event.key} ${from} ${event.to}`),
      })),
  );
}

/**
 * The drawing's size as dagre will about lay it out, without dagre: the states in ranks (each a rank below the
 * state an event leads from, an event that leads back counted upward, as dagre's own depth-first pass turns it),
 * each rank a state's height and each gap between two a label's and the rank separation; as wide as its widest rank
 * of states or of labels. dagre may find it a little shorter or narrower (never, for these workflows, taller): the
 * page keeps this room, and the drawing is fitted into it.
 */
export function estimatedSize(
  workflow: WorkflowPanel,
  names: WorkflowNames,
): { width: number; height: number } {
  const edges = edgesOf(workflow).filter((edge) => edge.from !== edge.to);
  const known = new Set(workflow.states.map((state) => state.key));
  const outOf = new Map<string, WorkflowEdge[]>();
  for (const edge of edges) {
    if (known.has(edge.from) && known.has(edge.to))
      outOf.set(edge.from, [...(outOf.get(edge.from) ?? []), edge]);
  }
  // dagre's acyclic pass: depth first from each state in order; an edge to a state on the way is turned round.
  const forward: [string, string, string][] = [];
  const visited = new Set<string>();
  const onTheWay = new Set<string>();
  const visit = (state: string) => {
    if (visited.has(state)) return;
    visited.add(state);
    onTheWay.add(state);
    for (const edge of outOf.get(state) ?? []) {
      if (onTheWay.has(edge.to)) forward.push([edge.to, edge.from, edge.event]);
      else {
        forward.push([edge.from, edge.to, edge.event]);
        visit(edge.to);
      }
    }
    onTheWay.delete(state);
  };
  workflow.states.forEach((state) => {
    visit(state.key);
  });
  // Each state a rank below every state an edge leads to it from (the longest path), in as many passes as ranks.
  const rank = new Map(workflow.states.map((state) => [state.key, 0]));
  for (let pass = 0; pass < workflow.states.length; pass++) {
    for (const [from, to] of forward) rank.set(to, Math.max(rank.get(to) ?? 0, (rank.get(from) ?? 0) + 1));
  }
  const ranks = Math.max(0, ...rank.values()) + 1;
  const rowWidth = (widths: number[], gap: number) =>
    widths.reduce((sum, width) => sum + width, 0) + gap * Math.max(0, widths.length - 1);
  const rows: number[][] = Array.from({ length: ranks }, () => []);
  for (const state of workflow.states)
    rows[rank.get(state.key) ?? 0]?.push(stateWidth(names.state(state.key)));
  // An event's label sits halfway down its edge, in the gap under the rank it leaves from when the edge is short.
  const gaps: number[][] = Array.from({ length: ranks }, () => []);
  for (const [from, to, event] of forward) {
    gaps[Math.floor(((rank.get(from) ?? 0) + (rank.get(to) ?? 0)) / 2)]?.push(widthOf(names.event(event)));
  }
  const width = Math.max(
    ...rows.map((row) => rowWidth(row, LAYOUT.nodesep)),
    ...gaps.map((gap) => rowWidth(gap, LAYOUT.edgesep)),
  );
  return {
    width: Math.ceil(width + 2 * LAYOUT.marginx),
    height: 2 * LAYOUT.marginy + ranks * NODE_HEIGHT + (ranks - 1) * (LAYOUT.ranksep + LABEL_HEIGHT),
  };
}
