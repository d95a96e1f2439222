import { Text } from '@radix-ui/themes';
import { useId, useMemo, type ReactNode } from 'react';
import { AfterFirstPaint } from '../../../shared/app/after-paint.tsx';
import { lazyChunk } from '../../../shared/app/chunk.tsx';
import type { WorkflowPanel } from '../../types.ts';
import { estimatedSize } from './workflow-layout.ts';
import { useWorkflowNames } from './workflow-names.tsx';

/** The drawing (dagre and the SVG): a chunk of its own, after the page's words. */
const WorkflowGraph = lazyChunk(() => import('./workflow-graph.tsx'));

/** The drawing's room: as wide as the figure, as tall as the drawing at that width, and no taller than it is. */
function Room({
  size,
  busy,
  children,
}: {
  size: { width: number; height: number };
  busy?: boolean;
  children: ReactNode;
}) {
  return (
    <div
      className="workflow-graph-room"
      aria-busy={busy}
      style={{ aspectRatio: `${String(size.width)} / ${String(size.height)}`, maxHeight: size.height }}
    >
      {children}
    </div>
  );
}

/**
 * A workflow drawn, in a figure with its caption. The drawing comes in a chunk of its own after the page's words;
 * its room is kept from the first paint (the size dagre will about lay it out in, `estimatedSize`), busy and saying
 * "Drawing the workflow…" until it comes, so that nothing under it moves then.
 */
export function WorkflowFigure({
  workflow,
  caption,
}: {
  workflow: WorkflowPanel;
  /** What the caption says instead of the transaction's (a template's page draws a workflow no one is in). */
  caption?: string;
}) {
  const id = useId();
  const names = useWorkflowNames();
  const size = useMemo(() => estimatedSize(workflow, names), [workflow, names]);
  return (
    <figure className="workflow-graph">
      <AfterFirstPaint
        what="The drawing of the workflow"
        room={
          <Room size={size} busy>
            <Text size="2" color="gray">
              Drawing the workflow…
            </Text>
          </Room>
        }
      >
        <Room size={size}>
          <WorkflowGraph workflow={workflow} labelledBy={`${id}-caption`} />
        </Room>
      </AfterFirstPaint>
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
