import { Card, Flex, Heading, Text } from '@radix-ui/themes';
import { useId } from 'react';
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

/**
 * One measure over time in a card: an area, line or bar chart with a tooltip that the arrow keys move too, a
 * summary, and for screen readers the values as a table.
 */
export function TrendChart({
  title,
  kind,
  points,
  format,
  axisFormat = format,
  note,
}: {
  title: string;
  kind: 'area' | 'line' | 'bar';
  points: TrendPoint[];
  /** A value as the summary and the tooltip write it (`24.1 months`). */
  format: (value: number) => string;
  /** A value as the vertical axis writes it, shorter (`24`). @default format */
  axisFormat?: (value: number) => string;
  note?: string | undefined;
}) {
  const id = useId();
  const known = points.filter((point): point is { date: string; value: number } => point.value !== null);
  const first = known[0];
  const last = known.at(-1);
  const summary =
    first === undefined || last === undefined
      ? 'Not reported in any update.'
      : first === last
        ? `${format(last.value)} on ${formatDate(last.date)}.`
        : `From ${format(first.value)} on ${formatDate(first.date)} to ${format(last.value)} on ${formatDate(last.date)}.`;
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
    <Card asChild>
      <figure className="trend-chart" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
        <Flex direction="column" gap="2">
          <Heading as="h3" size="3" id={`${id}-title`}>
            {title}
          </Heading>
          <Text as="p" size="1" color="gray" id={`${id}-summary`}>
            {summary}
          </Text>
          {known.length === 0 ? null : (
            <div className="trend-chart-plot" data-testid={`chart-${title}`}>
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
            </div>
          )}
          {note === undefined ? null : (
            <Text as="p" size="1" color="gray">
              {note}
            </Text>
          )}
          <table className="visually-hidden">
            <caption>{title} by update</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                <th scope="col">{title}</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr key={point.date}>
                  <td>{formatDate(point.date)}</td>
                  <td>{point.value === null ? 'not reported' : format(point.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Flex>
      </figure>
    </Card>
  );
}
