// How the console's pages write what the server names with keys and JSON values: states, events, fields and
// answers as text a fund's operations team reads (never as markup: React writes strings as text).
import { label } from '../../src/transactions/templates/key-words.ts';
import { formatMoney, type Money } from '../../src/transactions/money.ts';
import { dateFormatters, locale } from '../shared/format.ts';
import type { QueueRow } from './types.ts';

export { capitalized, label, words } from '../../src/transactions/templates/key-words.ts';

export const { formatDate, formatDateTime } = dateFormatters('short');

/**
 * The contact person beside an investor: their name and address, or the address alone when the investor is the
 * person (their entity bears their name).
 */
export function contactOf(subject: {
  investorName: string;
  noticeName: string;
  noticeEmail: string;
}): string {
  return subject.noticeName === subject.investorName
    ? subject.noticeEmail
    : `${subject.noticeName} · ${subject.noticeEmail}`;
}

/** Where a transaction stands in its state (its stage, from the template's workflow), for a state's badge. */
export const STAGE_WORDS: Record<QueueRow['stage'], string> = {
  recipient: 'Waiting on the investor',
  team: 'Waiting on the team',
  completed: 'Completed',
  voided: 'Voided',
  other: 'A state its template no longer lists',
};

const isMoney = (value: unknown): value is Money =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Money).currency === 'string' &&
  typeof (value as Money).amount === 'number' &&
  Object.keys(value).length === 2;

/**
 * A recipient's answer (or a timeline's detail) as text: money in its currency (`$250,000.00`, from minor units),
 * yes or no, lists joined, objects as `name: value` pairs, nothing as "—".
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return value.toLocaleString(locale);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(formatValue).join(', ');
  if (isMoney(value)) {
    try {
      return formatMoney(value, locale);
    } catch {
      return `${String(value.amount)} ${value.currency} (minor units)`;
    }
  }
  if (typeof value === 'object') {
    return Object.entries(value)
      .map(([key, each]) => `${label(key)}: ${formatValue(each)}`)
      .join('; ');
  }
  return JSON.stringify(value);
}

/** A size in bytes as people read it: "12 KB". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '';
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return `${size.toLocaleString(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units[unit] ?? ''}`;
}
