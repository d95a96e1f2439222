import type { ReactNode } from 'react';
import { Chunked } from './chunk.tsx';

/**
 * What a page shows after its first paint, in a chunk of its own (a chart, a drawn workflow; see `lazyChunk`): its
 * `room` (as large as it will be, so that nothing moves) until its chunk has come, or a message saying `what` did
 * not load, with "Try again". A page the server draws holds the room, not the drawing: the browser's render over
 * the page then starts where the server's ended, and fills it, rather than taking away a drawing the server made
 * to draw it again.
 *
 * @example
 * <AfterFirstPaint what="The chart" room={<div className="trend-chart-plot" aria-busy />}><TrendPlot … /></AfterFirstPaint>
 */
export function AfterFirstPaint({
  what,
  room,
  children,
}: {
  what: string;
  room: ReactNode;
  children: ReactNode;
}) {
  if (typeof window === 'undefined') return room;
  return (
    <Chunked what={what} fallback={room}>
      {children}
    </Chunked>
  );
}
