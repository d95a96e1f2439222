import { describe, expect, it } from 'vitest';
import { dateFormatters, formatTime, locale } from '../../web/shared/format.ts';

const at = '2026-11-24T12:30:00Z';
const english = locale.startsWith('en');

describe('dateFormatters', () => {
  it('writes short months for tables and long ones for sentences, never the month as a number', () => {
    const short = dateFormatters('short');
    const long = dateFormatters('long');
    expect(short.formatDate(at)).toContain('2026');
    expect(long.formatDate(at)).toContain('2026');
    expect(short.formatDate(at)).not.toMatch(/\b11\b/);
    expect(long.formatDate(at)).not.toMatch(/\b11\b/);
    if (english) {
      expect(short.formatDate(at)).toMatch(/\bNov\b/);
      expect(long.formatDate(at)).toContain('November');
    }
  });

  it('adds the time of day to a date and time, and takes a Date as well as an ISO string', () => {
    const { formatDate, formatDateTime } = dateFormatters('long');
    expect(formatDateTime(at)).toContain(formatDate(at).replace(/,? 2026/, ''));
    expect(formatDateTime(at)).toMatch(/\d{1,2}:\d{2}/);
    expect(formatDateTime(new Date(at))).toBe(formatDateTime(at));
  });
});

describe('formatTime', () => {
  it('writes hours and minutes only', () => {
    expect(formatTime(at)).toMatch(/^\d{1,2}:\d{2}(\s[AP]M)?$/);
  });
});
