import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { formatDate, formatMonth } from '../format.ts';

// The drawing of a TrendChart, with recharts: a module of its own, loaded after the page's text is on screen
// (recharts is most of the company page's script).

/** One value at one date; null where the update did not report it. */
export interface TrendPoint {
  date: string;
  value: number | null;
}

/** The chart's colour: Radix's indigo 9, legible on light and dark backgrounds alike. */
const COLOR = '#3e63dd';
/** Charts draw in a moment, and at once for those who ask their system for less motion. */
const ANIMATION = {
  isAnimationActive: !window.matchMedia('(prefers-reduced-motion: reduce)').matches,
  animationDuration: 400,
};
const AXIS = { fontSize: 12, fill: 'var(--gray-11)' };
/** What an area and a line draw alike: the value, a smooth curve across the updates that did not report it. */
const CURVE = {
  dataKey: 'value',
  type: 'monotone',
  stroke: COLOR,
  strokeWidth: 2,
  connectNulls: true,
  ...ANIMATION,
} as const;

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
  const data = points.map((point) => ({ time: new Date(point.date).getTime(), value: point.value }));
  const common = {
    data,
    // Recharts' accessibility layer: the chart is named and described, and arrow keys move its tooltip.
    title: `${title} by update`,
    desc: summary,
    margin: { top: 8, right: 20, bottom: 0, left: 0 },
    responsive: true,
    style: { width: '100%', height: 200 },
  };
  const axes = (
    <>
      <CartesianGrid stroke="var(--gray-a5)" vertical={false} />
      <XAxis
        dataKey="time"
        type={kind === 'bar' ? 'category' : 'number'}
        scale={kind === 'bar' ? 'auto' : 'time'}
        domain={['dataMin', 'dataMax']}
        tickFormatter={formatMonth}
        tick={AXIS}
        stroke="var(--gray-a7)"
        minTickGap={16}
      />
      <YAxis tickFormatter={axisFormat} tick={AXIS} stroke="var(--gray-a7)" width={56} />
      <Tooltip
        labelFormatter={(time) => formatDate(new Date(Number(time)).toISOString())}
        formatter={(value) => [format(Number(value)), title]}
        contentStyle={{
          background: 'var(--color-panel-solid)',
          border: '1px solid var(--gray-a6)',
          borderRadius: 6,
        }}
      />
    </>
  );

  return (
    <>
      {kind === 'area' ? (
        <AreaChart {...common}>
          {axes}
          <Area {...CURVE} fill={COLOR} fillOpacity={0.15} />
        </AreaChart>
      ) : kind === 'line' ? (
        <LineChart {...common}>
          {axes}
          <Line {...CURVE} dot={{ r: 3 }} />
        </LineChart>
      ) : (
        <BarChart {...common}>
          {axes}
          <Bar dataKey="value" fill={COLOR} radius={[3, 3, 0, 0]} maxBarSize={40} {...ANIMATION} />
        </BarChart>
      )}
    </>
  );
}
