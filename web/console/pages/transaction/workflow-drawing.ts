// A workflow laid out by dagre (@dagrejs/dagre, a layered graph layout, ~17 KB compressed): for the drawing
// (workflow-graph.tsx), in its chunk, after the page's words.
import { graphlib, layout } from '@dagrejs/dagre';
import type { WorkflowPanel } from '../../types.ts';
import {
  edgesOf,
  LABEL_HEIGHT,
  LAYOUT,
  NODE_HEIGHT,
  stateWidth,
  widthOf,
  type WorkflowNames,
} from './workflow-layout.ts';

export interface Point {
  x: number;
  y: number;
}
interface DrawnEdge {
  id: string;
  event: string;
  points: Point[];
  label: Point;
  lit: boolean;
}

/** The workflow laid out by dagre: its size, each state's centre, each edge's points and label, the lit ones last. */
export function layOut(workflow: WorkflowPanel, names: WorkflowNames) {
  const graph = new graphlib.Graph({ multigraph: true });
  graph.setGraph({ ...LAYOUT });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const state of workflow.states) {
    graph.setNode(state.key, { width: stateWidth(names.state(state.key)), height: NODE_HEIGHT });
  }
  const edges = edgesOf(workflow);
  for (const edge of edges) {
    graph.setEdge(
      edge.from,
      edge.to,
      { width: widthOf(names.event(edge.event)), height: LABEL_HEIGHT, labelpos: 'c' },
      `${edge.event} ${edge.from}`,
    );
  }
  layout(graph);
  const drawn: DrawnEdge[] = edges.map((edge) => {
    const laid = graph.edge(edge.from, edge.to, `${edge.event} ${edge.from}`) as {
      points: Point[];
      x: number;
      y: number;
    };
    return {
      id: `${edge.event} ${edge.from}`,
      event: edge.event,
      points: laid.points,
      label: { x: laid.x, y: laid.y },
      lit: edge.lit,
    };
  });
  const size = graph.graph() as { width?: number; height?: number };
  return {
    width: Math.ceil(size.width ?? 0),
    height: Math.ceil(size.height ?? 0),
    nodes: workflow.states.map((state) => ({ state, ...(graph.node(state.key) as Point) })),
    edges: [...drawn.filter((edge) => !edge.lit), ...drawn.filter((edge) => edge.lit)],
  };
}
