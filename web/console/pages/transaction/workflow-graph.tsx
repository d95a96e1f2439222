// The drawing of a transaction's workflow: positions from dagre (workflow-drawing.ts, a layered graph layout, ~17 KB
// compressed), drawn as our own SVG. A chunk of its own, loaded after the page's text into the room its figure
// keeps for it (workflow-figure.tsx): the panel's lists say the same in words (states, events, the path), so the
// drawing is an image named by the figure's caption.
import { curveBasis, line } from 'd3-shape';
import { useId, useMemo } from 'react';
import type { WorkflowPanel } from '../../types.ts';
import { layOut, type Point } from './workflow-drawing.ts';
import { NODE_HEIGHT, stateWidth } from './workflow-layout.ts';
import { useWorkflowNames } from './workflow-names.tsx';

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
 * The workflow as a graph: the states as boxes (the current one filled, those visited outlined in the accent, the
 * final ones with a double border), the events as arrows labelled with their names, the path taken so far lit.
 */
export default function WorkflowGraph({
  workflow,
  labelledBy,
}: {
  workflow: WorkflowPanel;
  /** The id of what names the drawing: its figure's caption. */
  labelledBy: string;
}) {
  const id = useId();
  const names = useWorkflowNames();
  const drawing = useMemo(() => layOut(workflow, names), [workflow, names]);

  const visited = new Set(workflow.path.flatMap((step) => [step.from ?? '', step.to]));
  const arrow = `${id}-arrow`;
  const litArrow = `${id}-lit-arrow`;
  return (
    <svg
      viewBox={`0 0 ${String(drawing.width)} ${String(drawing.height)}`}
      role="img"
      aria-labelledby={labelledBy}
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
        const width = stateWidth(names.state(state.key));
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
  );
}
