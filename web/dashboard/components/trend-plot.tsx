import { scaleBand, scaleLinear, scaleTime } from 'd3-scale';
import { area, curveMonotoneX, line } from 'd3-shape';
import {
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type RefObject,
} from 'react';
import { formatDate, formatMonth } from '../format.ts';

// The drawing of a TrendChart: SVG drawn with d3's scales and shapes (d3-scale, d3-shape), in a module of its
// own loaded after the page's text is on screen. A pointer or the arrow keys (once the plot has focus) show a
// point's date and value; the chart's card holds the same values as a table for screen readers.

/** One value at one date; null where the update did not report it. */
export interface TrendPoint {
  date: string;
  value: number | null;
}

interface Known {
  date: string;
  time: number;
  value: number;
}

/** The plot's height: its room in the chart's card is kept as tall before it comes (dashboard.css). */
const HEIGHT = 200;
const MARGIN = { top: 8, right: 20, bottom: 24, left: 56 };
/** Bars no wider than this, however few. */
const MAX_BAR_WIDTH = 40;
/** About this much room for each label of the time axis. */
const TICK_SPACING = 80;

/** The width of the element, kept up to date as it resizes (0 until it is laid out). */
function useWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const target = element.current;
    if (target === null) return;
    setWidth(target.clientWidth);
    const observer = new ResizeObserver(([entry]) => {
      if (entry !== undefined) setWidth(entry.contentRect.width);
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return width;
}

/** An area, line or bar chart of the points, named and described for screen readers. */
export function TrendPlot({
  title,
  summary,
  kind,
  points,
  format,
  axisFormat,
}: {
  title: string;
  summary: string;
  kind: 'area' | 'line' | 'bar';
  points: TrendPoint[];
  format: (value: number) => string;
  axisFormat: (value: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const [active, setActive] = useState<number | null>(null);

  // Like the summary, a series joins the updates that reported a value across those that did not.
  const known: Known[] = points.flatMap(({ date, value }) =>
    value === null ? [] : [{ date, time: new Date(date).getTime(), value }],
  );
  const values = known.map((point) => point.value);
  const y = scaleLinear()
    .domain([Math.min(0, ...values), Math.max(0, ...values)])
    .range([HEIGHT - MARGIN.bottom, MARGIN.top])
    .nice(4);
  const left = MARGIN.left;
  const right = Math.max(left + 1, width - MARGIN.right);
  const band = scaleBand()
    .domain(points.map((point) => point.date))
    .range([left, right])
    .padding(0.2);
  const time = scaleTime()
    .domain([known[0]?.time ?? 0, known.at(-1)?.time ?? 1])
    .range([left, right]);
  const xOf = (point: Known) =>
    kind === 'bar' ? (band(point.date) ?? 0) + band.bandwidth() / 2 : time(point.time);

  const xTicks =
    kind === 'bar'
      ? band
          .domain()
          .filter((_, index) => index % Math.max(1, Math.ceil(TICK_SPACING / band.step())) === 0)
          .map((date) => ({ x: (band(date) ?? 0) + band.bandwidth() / 2, label: formatMonth(date) }))
      : time
          .ticks(Math.max(2, Math.floor((right - left) / TICK_SPACING)))
          .map((tick) => ({ x: time(tick), label: formatMonth(tick.getTime()) }));
  const barWidth = Math.min(band.bandwidth(), MAX_BAR_WIDTH);
  const linePath = line<Known>(xOf, (point) => y(point.value)).curve(curveMonotoneX)(known) ?? '';
  const areaPath = area<Known>(xOf, y(0), (point) => y(point.value)).curve(curveMonotoneX)(known) ?? '';

  const shown = active === null ? undefined : known[active];
  const move = (index: number) => {
    setActive(Math.min(known.length - 1, Math.max(0, index)));
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const x = event.clientX - event.currentTarget.getBoundingClientRect().left;
    let nearest = 0;
    known.forEach((point, index) => {
      const current = known[nearest];
      if (current !== undefined && Math.abs(xOf(point) - x) < Math.abs(xOf(current) - x)) nearest = index;
    });
    setActive(nearest);
  };
  const onKeyDown = (event: KeyboardEvent<SVGSVGElement>) => {
    const to: Record<string, number | null> = {
      ArrowLeft: (active ?? known.length) - 1,
      ArrowRight: (active ?? -1) + 1,
      Home: 0,
      End: known.length - 1,
      Escape: null,
    };
    if (!(event.key in to)) return;
    event.preventDefault();
    const index = to[event.key];
    if (index === undefined || index === null) setActive(null);
    else move(index);
  };

  return (
    <div ref={box} className="trend-plot">
      {width === 0 ? null : (
        <svg
          width={width}
          height={HEIGHT}
          role="img"
          aria-label={`${title} by update`}
          tabIndex={0}
          onPointerMove={onPointerMove}
          onPointerLeave={() => {
            setActive(null);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            setActive(null);
          }}
        >
          <desc>{summary}</desc>
          <g className="trend-plot-axis">
            {y.ticks(4).map((tick) => (
              <g key={tick}>
                <line className="trend-plot-grid" x1={left} x2={right} y1={y(tick)} y2={y(tick)} />
                <text x={left - 8} y={y(tick)} dy="0.32em" textAnchor="end">
                  {axisFormat(tick)}
                </text>
              </g>
            ))}
            <line x1={left} x2={right} y1={HEIGHT - MARGIN.bottom} y2={HEIGHT - MARGIN.bottom} />
            {xTicks.map((tick) => (
              <text key={tick.x} x={tick.x} y={HEIGHT - MARGIN.bottom + 16} textAnchor="middle">
                {tick.label}
              </text>
            ))}
          </g>
          {kind === 'bar' ? (
            known.map((point) => (
              <rect
                key={point.date}
                className="trend-plot-bar"
                x={xOf(point) - barWidth / 2}
                width={barWidth}
                y={Math.min(y(point.value), y(0))}
                height={Math.abs(y(0) - y(point.value))}
                rx={3}
              />
            ))
          ) : (
            <>
              {kind === 'area' ? <path className="trend-plot-area" d={areaPath} /> : null}
              <path className="trend-plot-line" d={linePath} />
              {kind === 'line'
                ? known.map((point) => (
                    <circle
                      key={point.date}
                      className="trend-plot-dot"
                      cx={xOf(point)}
                      cy={y(point.value)}
                      r={3}
                    />
                  ))
                : null}
            </>
          )}
          {shown === undefined ? null : (
            <g className="trend-plot-cursor">
              <line x1={xOf(shown)} x2={xOf(shown)} y1={MARGIN.top} y2={HEIGHT - MARGIN.bottom} />
              <circle cx={xOf(shown)} cy={y(shown.value)} r={5} />
            </g>
          )}
        </svg>
      )}
      <div
        className="trend-plot-tooltip"
        aria-live="polite"
        hidden={shown === undefined}
        style={
          shown === undefined
            ? undefined
            : {
                left: xOf(shown),
                top: y(shown.value),
                transform:
                  xOf(shown) > width / 2 ? 'translate(calc(-100% - 12px), -50%)' : 'translate(12px, -50%)',
              }
        }
      >
        {shown === undefined ? null : (
          <>
            <strong>{formatDate(shown.date)}</strong>
            <br />
            {title}: {format(shown.value)}
          </>
        )}
      </div>
    </div>
  );
}
