import {
  Histogram,
  type HistogramConfiguration,
  type LabelValues,
  type ObserveDataWithExemplar,
} from 'prom-client';

/** Adds one observation, in the unit of the buckets, to the series it was bound to. */
export type Observe = (value: number) => void;

/** One label set's counts: per bucket (not cumulative), above the last bucket only in `count`. */
interface Series {
  readonly labels: LabelValues<string>;
  readonly counts: Float64Array;
  sum: number;
  count: number;
  /** Dropped by `reset`, `remove` or `zero`: its bound observers find or make the label set's series again. */
  dropped: boolean;
}

/** Where a bound observer starts: a series it must first find or make. */
const UNMADE: Series = { labels: {}, counts: new Float64Array(0), sum: 0, count: 0, dropped: true };

/** One line of prom-client's export of a histogram, before the registry writes it as text. */
interface ExportedValue {
  labels: { le?: number | '+Inf' };
  sharedLabels: LabelValues<string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

/**
 * A prom-client histogram whose label sets can be bound once: {@link BoundHistogram.bind} checks and keys the
 * labels when called and gives an {@link Observe} that only finds the bucket and adds to that series' counts.
 * prom-client's own `observe` checks the label names, builds the series' key from the labels and converts the
 * bucket's bound to a property name on every call, even through `labels()`: on a path taken by every answer and
 * every statement, that was most of what metrics cost a request.
 *
 * Everything else is prom-client's: the configuration is checked by its constructor, the histogram is registered
 * in the given registries, and the registry writes it (HELP, TYPE, `_bucket` with `le`, `_sum`, `_count`)
 * from the same values a prom-client histogram gives, in the same order. `observe`, `labels`, `startTimer`,
 * `zero`, `remove`, `reset` and `get` behave as prom-client's; exemplars and `collect` are not offered.
 *
 * @example
 * const duration = new BoundHistogram({ name: 'x_seconds', help: 'x', labelNames: ['route'], buckets: [0.1, 1] });
 * const observe = duration.bind({ route: '/companies' });
 * observe(0.04); // the same as duration.observe({ route: '/companies' }, 0.04)
 */
export class BoundHistogram<T extends string = string> extends Histogram<T> {
  readonly #name: string;
  readonly #help: string;
  readonly #labelNames: readonly string[];
  /** The label names in the order the series' keys are written, as prom-client orders them. */
  readonly #keyOrder: readonly string[];
  readonly #bounds: Float64Array;
  /** In order of first observation, which is the order they are written in. */
  #series = new Map<string, Series>();

  constructor(
    configuration: Omit<HistogramConfiguration<T>, 'collect' | 'enableExemplars'> & { buckets: number[] },
  ) {
    super(configuration);
    this.#name = configuration.name;
    this.#help = configuration.help;
    this.#labelNames = [...(configuration.labelNames ?? [])];
    this.#keyOrder = [...this.#labelNames].sort();
    this.#bounds = Float64Array.from(configuration.buckets);
    // As prom-client does, a histogram without labels is written from the start, its counts at zero.
    if (this.#labelNames.length === 0) this.#seriesOf('', {});
    // prom-client's constructor sets `observe` on the instance; this one takes its place.
    this.observe = (
      labelsOrValue: LabelValues<T> | ObserveDataWithExemplar<T> | number,
      value?: number,
    ): void => {
      // Without exemplars, prom-client too reads any object given first as the labels.
      if (typeof labelsOrValue === 'number') this.bind({})(labelsOrValue);
      else this.bind(labelsOrValue as LabelValues<T>)(value ?? Number.NaN);
    };
  }

  /**
   * The observer of one label set: the labels are checked (every name declared) now, not at each observation.
   * A bound observer stays valid across `reset`, `remove` and `zero`: it counts into the label set's new series.
   */
  bind(labels: LabelValues<T>): Observe {
    for (const name in labels) {
      if (!this.#labelNames.includes(name)) {
        throw new Error(
          `Added label "${name}" is not included in initial labelset: ${this.#labelNames.join(', ')}`,
        );
      }
    }
    // A copy: the series' labels are written as they were bound, whatever the caller does with its object.
    const own = { ...labels };
    const key = this.#keyOf(own);
    const bounds = this.#bounds;
    // Made at the first observation, as prom-client makes a series: a label set bound and never observed is
    // not written.
    let series = UNMADE;
    return (value) => {
      if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
      if (series.dropped) series = this.#seriesOf(key, own);
      let bucket = 0;
      for (const bound of bounds) {
        if (value <= bound) break;
        bucket += 1;
      }
      if (bucket < bounds.length) series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
      series.sum += value;
      series.count += 1;
    };
  }

  override labels(...args: [LabelValues<T>] | string[]): Histogram.Internal<T> {
    const labels = this.#labelsOf(args);
    return { observe: this.bind(labels), startTimer: () => this.startTimer(labels) };
  }

  override zero(labels: LabelValues<T>): void {
    const key = this.#keyOf(labels);
    this.#drop(key);
    this.#seriesOf(key, { ...labels });
  }

  override remove(...args: [LabelValues<T>] | string[]): void {
    this.#drop(this.#keyOf(this.#labelsOf(args)));
  }

  override reset(): void {
    // prom-client's constructor resets the histogram before this class's fields exist: nothing to drop then.
    if (!(#series in this)) return;
    for (const series of this.#series.values()) series.dropped = true;
    this.#series = new Map();
  }

  /**
   * What the registry writes (it asks for this before `get`, and prom-client's `get` is built on it): for each
   * series, its cumulative buckets, `+Inf`, `_sum` and `_count`, exactly as prom-client's histogram gives them.
   */
  getForPromString(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: ExportedValue[];
    aggregator: 'sum';
  }> {
    const bucketName = `${this.#name}_bucket`;
    const values: ExportedValue[] = [];
    for (const series of this.#series.values()) {
      const sharedLabels = series.labels;
      let cumulative = 0;
      this.#bounds.forEach((bound, bucket) => {
        cumulative += series.counts[bucket] ?? 0;
        values.push({
          labels: { le: bound },
          sharedLabels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels, value: series.count, metricName: bucketName, exemplar: null },
        { labels: {}, sharedLabels, value: series.sum, metricName: `${this.#name}_sum`, exemplar: undefined },
        {
          labels: {},
          sharedLabels,
          value: series.count,
          metricName: `${this.#name}_count`,
          exemplar: undefined,
        },
      );
    }
    return Promise.resolve({
      name: this.#name,
      help: this.#help,
      type: 'histogram',
      values,
      aggregator: 'sum',
    });
  }

  /** prom-client's series key: each label given, in name order (a label left out is not part of it). */
  #keyOf(labels: LabelValues<T>): string {
    let key = '';
    for (const name of this.#keyOrder) {
      const value = (labels as LabelValues<string>)[name];
      if (value !== undefined) key += `${name}:${String(value)},`;
    }
    return key;
  }

  #seriesOf(key: string, labels: LabelValues<T>): Series {
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels, counts: new Float64Array(this.#bounds.length), sum: 0, count: 0, dropped: false };
      this.#series.set(key, series);
    }
    return series;
  }

  #drop(key: string): void {
    const series = this.#series.get(key);
    if (series === undefined) return;
    series.dropped = true;
    this.#series.delete(key);
  }

  /** Labels given as an object, or as values in the order of the label names (prom-client's two forms). */
  #labelsOf(args: [LabelValues<T>] | string[]): LabelValues<T> {
    const [first] = args;
    if (typeof first === 'object') return first;
    if (args.length !== this.#labelNames.length) {
      throw new Error(
        `Invalid number of arguments (${String(args.length)}) for label names (${this.#labelNames.join(', ')})`,
      );
    }
    return Object.fromEntries(this.#labelNames.map((name, n) => [name, args[n]])) as LabelValues<T>;
  }
}
