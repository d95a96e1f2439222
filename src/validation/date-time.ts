import { FORMATS, valueRefused } from './schema-errors.ts';

/**
 * A date and time a client sent (a query parameter, a field, a cursor's sort key), read as an instant that both
 * databases and JavaScript's `Date` hold. The `date-time` format of a route schema is not enough: Ajv's admits a
 * leap second (`23:59:60Z`, which `Date` reads as Invalid Date) and year 0000 (which PostgreSQL refuses), and
 * `Date` would roll 2026-02-30 over into March; each of those reached a query and answered 500.
 */

/**
 * The form: ISO 8601 / RFC 3339 as the `date-time` format admits it (`T` or a space between date and time, any
 * fraction of a second, a time zone of `Z` or an offset `±hh`, `±hhmm` or `±hh:mm`).
 */
const DATE_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})[Tt ](?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d+))?(?:[Zz]|(?<sign>[+-])(?<offsetHour>\d{2})(?::?(?<offsetMinute>\d{2}))?)$/;

/**
 * The instants a date-time may name, in UTC: what PostgreSQL's `timestamptz` and JavaScript's `Date` both hold and
 * print as four-digit years (year 0 and years past 9999 would not read back as RFC 3339).
 */
const EARLIEST_DATE_TIME = Date.parse('0001-01-01T00:00:00Z');
const LATEST_DATE_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/** Why a text is not a date-time Portico takes: its form, a part that does not exist, or its year. */
export type DateTimeProblem = 'form' | 'exists' | 'range';

/** The number of days in a month (1 to 12) of a year, leap years counted. */
function daysIn(year: number, month: number): number {
  const lastDay = new Date(0);
  // setUTCFullYear, not Date.UTC, which would read years 0 to 99 as 1900 to 1999.
  lastDay.setUTCFullYear(year, month, 0);
  return lastDay.getUTCDate();
}

/**
 * The instant `text` names (to the millisecond: a finer fraction is cut, as `Date` does), or why it names none.
 * Every part must exist as written: no 30 February, no hour 24, no leap second (`23:59:60`, which neither `Date`
 * nor a round trip through PostgreSQL keeps), and the instant must fall in the years 0001 to 9999, UTC.
 *
 * @example
 * readDateTime('2026-01-31T09:30:00+01:00'); // Date 2026-01-31T08:30:00.000Z
 * readDateTime('2026-02-30T00:00:00Z'); // 'exists'
 * readDateTime('0000-01-01T00:00:00Z'); // 'range'
 */
export function readDateTime(text: string): Date | DateTimeProblem {
  const groups = DATE_TIME.exec(text)?.groups;
  if (groups === undefined) return 'form';
  const part = (name: string) => Number(groups[name] ?? '0');
  const [year, month, day] = [part('year'), part('month'), part('day')];
  const [hour, minute, second] = [part('hour'), part('minute'), part('second')];
  const [offsetHour, offsetMinute] = [part('offsetHour'), part('offsetMinute')];
  const exists =
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHour <= 23 &&
    offsetMinute <= 59;
  if (!exists) return 'exists';
  const milliseconds = Number((groups.fraction ?? '').padEnd(3, '0').slice(0, 3));
  const local = new Date(0);
  local.setUTCFullYear(year, month - 1, day);
  local.setUTCHours(hour, minute, second, milliseconds);
  const offset = (groups.sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute) * 60_000;
  const time = local.getTime() - offset;
  if (time < EARLIEST_DATE_TIME || time > LATEST_DATE_TIME) return 'range';
  return new Date(time);
}

/** What a date-time must be, in words, by what was wrong with it (after `The query parameter "x" `). */
const DATE_TIME_REQUIREMENTS: Readonly<Record<DateTimeProblem, string>> = {
  form: FORMATS['date-time'],
  exists:
    'must be a date and time that exists (no 30 February, no hour 24, seconds 00 to 59), e.g. 2026-01-31T00:00:00Z',
  range: 'must fall in the years 0001 to 9999 (UTC)',
};

/** Where a client's value is: a query parameter or a body's field, and the key of `details` that names it. */
export interface ValuePlace {
  name: string;
  part: 'query parameter' | 'field';
  /** @default 'field' */
  detailsKey?: 'field' | 'parameter';
}

/**
 * The instant a date-time a client sent names; BAD_USER_INPUT naming the parameter or field and saying what it
 * takes otherwise, in the words of a route schema's refusal (validation/schema-errors.ts), e.g. `The query
 * parameter "before" must fall in the years 0001 to 9999 (UTC).`
 *
 * @example
 * const before = clientDateTime(query.before, { name: 'before', part: 'query parameter' });
 */
export function clientDateTime(text: string, place: ValuePlace): Date {
  const read = readDateTime(text);
  if (read instanceof Date) return read;
  const { part, name, detailsKey = 'field' } = place;
  throw valueRefused({ part, name, key: detailsKey }, DATE_TIME_REQUIREMENTS[read]);
}
