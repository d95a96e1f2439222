import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BoundHistogram } from '../../src/observability/bound-histogram.ts';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const LABEL_NAMES = ['service', 'route', 'status'] as const;

/** The same histogram twice, each in a registry of its own: prom-client's, and the bound one. */
function pair(labelNames: readonly string[] = LABEL_NAMES) {
  const config = { name: 'portico_test_seconds', help: 'A test "histogram"\\', buckets: BUCKETS, labelNames };
  const stockRegistry = new Registry();
  const boundRegistry = new Registry();
  return {
    stock: new Histogram({ ...config, registers: [stockRegistry] }),
    bound: new BoundHistogram({ ...config, registers: [boundRegistry] }),
    texts: async () => ({ stock: await stockRegistry.metrics(), bound: await boundRegistry.metrics() }),
  };
}

/** Values on a bound, between bounds, above the last one, and zero. */
const VALUES = [0.001, 0.0005, 0.05, 0.1, 7.5, 0, 0.3];

describe('a bound histogram', () => {
  it('is written exactly as prom-client writes the same observations', async () => {
    const { stock, bound, texts } = pair();
    const ok = { service: 'portfolio', route: '/companies', status: 200 };
    const refused = { service: 'portfolio', route: '/companies/:id', status: '404' };
    const observeOk = bound.bind(ok);
    for (const value of VALUES) {
      stock.observe(ok, value);
      observeOk(value);
      stock.observe(refused, value * 2);
      bound.observe(refused, value * 2);
    }
    // A label value that needs escaping, and a label set that leaves a label out.
    const odd = { service: 'a "quoted"\nvalue\\', route: '/x' };
    stock.observe(odd, 0.02);
    bound.bind(odd)(0.02);

    const { stock: expected, bound: actual } = await texts();
    expect(actual).toBe(expected);
    expect(actual).toContain(
      'portico_test_seconds_bucket{le="+Inf",service="portfolio",route="/companies",status="200"} 7',
    );
    expect(await bound.get()).toEqual(await stock.get());
  });

  it('counts through one bound observer and through observe into one series', async () => {
    const { stock, bound, texts } = pair();
    const labels = { service: 'transactions', route: '/beta', status: 200 };
    const observe = bound.bind(labels);
    for (const value of VALUES) {
      observe(value);
      bound.observe({ status: 200, route: '/beta', service: 'transactions' }, value);
      stock.observe(labels, value);
      stock.observe(labels, value);
    }
    const { stock: expected, bound: actual } = await texts();
    expect(actual).toBe(expected);
  });

  it('writes a series under the labels it was bound with, whatever becomes of the object given', async () => {
    const { bound } = pair();
    const labels: Record<string, string | number> = { service: 's', route: '/bound', status: 200 };
    const observe = bound.bind(labels);
    labels.status = 500;
    observe(0.5);
    const count = (await bound.get()).values.find(
      (value) => value.metricName === 'portico_test_seconds_count',
    );
    expect(count?.labels).toEqual({ service: 's', route: '/bound', status: 200 });
  });

  it('observes without labels as prom-client does', async () => {
    const { stock, bound, texts } = pair([]);
    const fresh = await texts();
    expect(fresh.bound).toBe(fresh.stock);
    expect(fresh.bound).toContain('portico_test_seconds_count 0');
    const observe = bound.bind({});
    for (const value of VALUES) {
      stock.observe(value);
      stock.observe(value);
      bound.observe(value);
      observe(value);
    }
    const { stock: expected, bound: actual } = await texts();
    expect(actual).toBe(expected);
  });

  it('refuses a label it was not made with, and a value that is not a finite number', () => {
    const { bound } = pair();
    expect(() => bound.bind({ service: 'x', path: '/secret' })).toThrow(/path/);
    const observe = bound.bind({ service: 'x' });
    expect(() => {
      observe(Number.NaN);
    }).toThrow(TypeError);
    expect(() => {
      observe(Number.POSITIVE_INFINITY);
    }).toThrow(TypeError);
  });

  it('resets, zeroes and removes series as prom-client does, its bound observers counting on afterwards', async () => {
    const { stock, bound, texts } = pair();
    const kept = { service: 's', route: '/kept', status: 200 };
    const removed = { service: 's', route: '/removed', status: 200 };
    const observeKept = bound.bind(kept);
    const observeRemoved = bound.bind(removed);
    const both = (value: number) => {
      stock.observe(kept, value);
      observeKept(value);
      stock.observe(removed, value);
      observeRemoved(value);
    };
    both(0.5);
    stock.reset();
    bound.reset();
    expect((await texts()).bound).toBe((await texts()).stock);
    both(0.05);
    stock.remove(removed);
    bound.remove(removed);
    stock.zero(kept);
    bound.zero(kept);
    stock.zero({ service: 's', route: '/never', status: 500 });
    bound.zero({ service: 's', route: '/never', status: 500 });
    both(0.005);
    stock.labels('s', '/positional', '201').observe(0.2);
    bound.labels('s', '/positional', '201').observe(0.2);
    stock.remove('s', '/never', '500');
    bound.remove('s', '/never', '500');
    const { stock: expected, bound: actual } = await texts();
    expect(actual).toBe(expected);
    expect(actual).toContain('route="/removed"');
  });

  it('times with startTimer into the series of its labels', async () => {
    const { bound } = pair();
    const end = bound.labels({ service: 's', route: '/timed' }).startTimer();
    end({ status: 200 });
    const text = (await bound.get()).values.find(
      (value) => value.metricName === 'portico_test_seconds_count' && value.labels.route === '/timed',
    );
    expect(text?.labels).toEqual({ service: 's', route: '/timed', status: 200 });
    expect(text?.value).toBe(1);
  });
});
