import { describe, expect, it } from 'vitest';
import {
  formatCents,
  formatCount,
  formatEnum,
  formatMoney,
  formatMonths,
  formatRelative,
  sumCents,
} from '../../web/dashboard/format.ts';
import { locale } from '../../web/shared/format.ts';

const english = locale.startsWith('en');
const now = Date.parse('2026-11-24T12:00:00Z');
const before = (seconds: number) => new Date(now - seconds * 1000).toISOString();

describe('formatRelative', () => {
  it('says "just now" under a minute, then the largest whole unit', () => {
    expect(formatRelative(before(30), now)).toBe('just now');
    if (!english) return;
    expect(formatRelative(before(3 * 60), now)).toBe('3 minutes ago');
    expect(formatRelative(before(2 * 3600), now)).toBe('2 hours ago');
    expect(formatRelative(before(24 * 3600), now)).toBe('yesterday');
    expect(formatRelative(before(400 * 24 * 3600), now)).toBe('last year');
  });
});

describe('formatCents', () => {
  it('writes cents beyond 2^53 exactly, never through a float', () => {
    const written = formatCents('123456789012345678', 'USD');
    expect(written.replace(/[^\d.]/g, '')).toBe('1234567890123456.78');
  });

  it('writes amounts under a unit with their leading zero', () => {
    expect(formatCents('5', 'EUR').replace(/[^\d.,]/g, '')).toMatch(/^0[.,]05$/);
  });
});

describe('sumCents', () => {
  it('sums amounts by currency, exactly', () => {
    const sums = sumCents(
      [
        { cents: '9007199254740993', currency: 'USD' },
        { cents: '7', currency: 'USD' },
        { cents: '100', currency: 'EUR' },
      ],
      (item) => item,
    );
    expect(sums).toEqual(
      new Map([
        ['USD', 9007199254741000n],
        ['EUR', 100n],
      ]),
    );
  });
});

describe('the numbers of the dashboard', () => {
  it('says one month in the singular, others in the plural, to a tenth', () => {
    expect(formatMonths(1)).toBe('1 month');
    if (english) expect(formatMonths(14.54)).toBe('14.5 months');
  });

  it('writes enum values as words, and an absent one as a dash', () => {
    expect(formatEnum('common_equity')).toBe('Common equity');
    expect(formatEnum(null)).toBe('—');
  });

  it('groups digits of counts and amounts, and shortens amounts when asked', () => {
    if (!english) return;
    expect(formatCount(1234)).toBe('1,234');
    expect(formatMoney(1234567, 'USD')).toBe('$1,234,567');
    expect(formatMoney(1234567, 'USD', { compact: true })).toBe('$1.2M');
  });
});
