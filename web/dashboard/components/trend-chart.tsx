import { Card, Flex, Heading, Text } from '@radix-ui/themes';
import { useId } from 'react';
import { AfterFirstPaint } from '../../shared/app/after-paint.tsx';
import { lazyChunk } from '../../shared/app/chunk.tsx';
import { formatDate } from '../format.ts';
import type { TrendPoint } from './trend-plot.tsx';

export type { TrendPoint };

/** The chart itself, drawn with d3: loaded apart, after the card's title, summary and table. */
const TrendPlot = lazyChunk(async () => ({ default: (await import('./trend-plot.tsx')).TrendPlot }));

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
            // The plot's room is kept (as tall as the plot) and busy until its module has come.
            <AfterFirstPaint what="The chart" room={<div className="trend-chart-plot" aria-busy />}>
              <div className="trend-chart-plot" data-testid={`chart-${title}`}>
                <TrendPlot
                  title={title}
                  summary={summary}
                  kind={kind}
                  points={points}
                  format={format}
                  axisFormat={axisFormat}
                />
              </div>
            </AfterFirstPaint>
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
