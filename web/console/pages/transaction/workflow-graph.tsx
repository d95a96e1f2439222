// The drawing of a transaction's workflow: positions from dagre (@dagrejs/dagre, a layered graph layout, ~17 KB
// compressed), drawn as our own SVG. A chunk of its own, loaded after the page's text: the panel's lists say the
// same in words (states, events, the path), so the drawing is an image with a caption.
import { graphlib, layout } from '@dagrejs/dagre';
import { curveBasis, line } from 'd3-shape';
import { useId, useMemo } from 'react';
import type { WorkflowPanel } from '../../types.ts';
import { useWorkflowNames } from './workflow-names.tsx';

interface Point {
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

/** The width of a label in the drawing's 12px font, near enough for the layout. */
const widthOf = (text: string) => Math.ceil(text.length * 7 + 8);
const NODE_HEIGHT = 34;
const curve = line<Point>()
  .x((point) => point.x)
  .y((point) => point.y)
  .curve(curveBasis);

/** An arrowhead for the end of an edge. */
function Arrow({ id, className }: { id: string; className: string }) {
  return (
    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
      <path d="M0,0 L10,5 L0,10 z" className={className} />
    </marker>
  );
}

/**
 * The edges worth drawing: every event from each of its states, except the built-in void, which may happen from
 * any unfinished state and is drawn only from the state the transaction is in (and where it was taken).
 */
function edgesOf(workflow: WorkflowPanel) {
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
 * The workflow as a graph: the states as boxes (the current one filled, those visited outlined in the accent, the
 * final ones with a double border), the events as arrows labelled with their names, the path taken so far lit.
 */
export default function WorkflowGraph({
  workflow,
  caption,
}: {
  workflow: WorkflowPanel;
  /** What the caption says instead of the transaction's (a template's page draws a workflow no one is in). */
  caption?: string;
}) {
  const id = useId();
  const names = useWorkflowNames();
  const drawing = useMemo(() => {
    const graph = new graphlib.Graph({ multigraph: true });
    graph.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 30, edgesep: 14, marginx: 8, marginy: 8 });
    graph.setDefaultEdgeLabel(() => ({}));
    for (const state of workflow.states) {
      graph.setNode(state.key, {
        width: Math.max(90, widthOf(names.state(state.key)) + 16),
        height: NODE_HEIGHT,
      });
    }
    const edges = edgesOf(workflow);
    for (const edge of edges) {
      graph.setEdge(
        edge.from,
        edge.to,
        { width: widthOf(names.event(edge.event)), height: 14, labelpos: 'c' },
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
  }, [workflow, names]);

  const visited = new Set(workflow.path.flatMap((step) => [step.from ?? '', step.to]));
  const arrow = `${id}-arrow`;
  const litArrow = `${id}-lit-arrow`;
  return (
    <figure className="workflow-graph">
      <svg
        viewBox={`0 0 ${String(drawing.width)} ${String(drawing.height)}`}
        width={drawing.width}
        role="img"
        aria-labelledby={`${id}-caption`}
      >
        <defs>
          <Arrow id={arrow} className="workflow-arrow" />
          <Arrow id={litArrow} className="workflow-arrow lit" />
        </defs>
        {drawing.edges.map((edge) => (
          <g key={edge.id} className={edge.lit ? 'workflow-edge lit' : 'workflow-edge'}>
            <path d={curve(edge.points) ?? ''} markerEnd={`url(#${edge.lit ? litArrow : arrow})`} />
            <text x={edge.label.x} y={edge.label.y} textAnchor="middle" dominantBaseline="middle">
              {names.event(edge.event)}
            </text>
          </g>
        ))}
        {drawing.nodes.map(({ state, x, y }) => {
          const width = Math.max(90, widthOf(names.state(state.key)) + 16);
          const classes = [
            'workflow-state',
            state.key === workflow.state ? 'current' : visited.has(state.key) ? 'visited' : '',
            state.final ? 'final' : '',
          ].join(' ');
          return (
            <g
              key={state.key}
              className={classes}
              transform={`translate(${String(x - width / 2)} ${String(y - NODE_HEIGHT / 2)})`}
            >
              <rect width={width} height={NODE_HEIGHT} rx="8" />
              {state.final ? (
                <rect className="inner" x="3" y="3" width={width - 6} height={NODE_HEIGHT - 6} rx="6" />
              ) : null}
              <text x={width / 2} y={NODE_HEIGHT / 2} textAnchor="middle" dominantBaseline="central">
                {names.state(state.key)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption id={`${id}-caption`}>
        {caption ?? (
          <>
            The workflow drawn: now {names.state(workflow.state)}; the path taken so far is lit, final states
            have a double border. The lists below say the same in words.
          </>
        )}
      </figcaption>
    </figure>
  );
}
