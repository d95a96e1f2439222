import { Suspense, type ReactNode } from 'react';

/**
 * What a page shows after its first paint, in a chunk of its own (a chart, a drawn workflow): its `room` (as large
 * as it will be, so that nothing moves) until its chunk has come. A page the server draws holds the room, not the
 * drawing: the browser's render over the page then starts where the server's ended, and fills it, rather than
 * taking away a drawing the server made to draw it again.
 *
 * @example
 * <AfterFirstPaint room={<div className="trend-chart-plot" aria-busy />}><TrendPlot … /></AfterFirstPaint>
 */
export function AfterFirstPaint({ room, children }: { room: ReactNode; children: ReactNode }) {
  if (typeof window === 'undefined') return room;
  return <Suspense fallback={room}>{children}</Suspense>;
}
