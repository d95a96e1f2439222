// How the dashboard writes times, amounts and counts: in the reader's language, with unambiguous months.

import { dateFormatters, locale, perReader } from '../shared/format.ts';

const monthFormat = perReader(
  () => new Intl.DateTimeFormat(locale, { month: 'short', year: '2-digit', timeZone: 'UTC' }),
);
const relativeFormat = perReader(() => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));

/** `24 Nov 2026` and `24 Nov 2026, 19:40`: short months, as tables want. */
export const { formatDate, formatDateTime } = dateFormatters('short');

/** `Nov 26`: a chart's axis label for a reporting date (kept in UTC, as the updates report on days). */
export function formatMonth(iso: string | number): string {
  return monthFormat().format(new Date(iso));
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** `3 minutes ago`, `yesterday`, `just now`. */
export function formatRelative(iso: string, now = Date.now()): string {
  const seconds = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relativeFormat().format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** An amount in units of its currency: `$1.2M` when `compact`, else `$1,234,567`. */
export function formatMoney(value: number, currency: string, options: { compact?: boolean } = {}): string {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    notation: options.compact ? 'compact' : 'standard',
    maximumFractionDigits: options.compact ? 1 : 0,
  }).format(value);
}

/**
 * An amount in cents, given as a string of digits (exact beyond 2^53), in units of its currency:
 * `$1,234,567.89`. The digits are formatted as a decimal string, never through a float.
 */
export function formatCents(cents: string, currency: string): string {
  const digits = cents.padStart(3, '0');
  const decimal = `${digits.slice(0, -2)}.${digits.slice(-2)}`;
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  // Intl formats a decimal string exactly (Intl.NumberFormat v3); its types only name numbers.
  return format.format(decimal as unknown as number);
}

/** Sums amounts in cents exactly, by currency. */
export function sumCents<T>(
  items: readonly T[],
  amount: (item: T) => { cents: string; currency: string },
): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const item of items) {
    const { cents, currency } = amount(item);
    sums.set(currency, (sums.get(currency) ?? 0n) + BigInt(cents));
  }
  return sums;
}

/** `1,234`. */
export function formatCount(value: number): string {
  return new Intl.NumberFormat(locale).format(value);
}

/** `14.5 months`. */
export function formatMonths(value: number): string {
  const rounded = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(value);
  return `${rounded} ${value === 1 ? 'month' : 'months'}`;
}

/** `common_equity` → `Common equity`. */
export function formatEnum(value: string | null): string {
  if (value === null) return '—';
  const words = value.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
