// How every page writes dates and times: in the reader's language, with months in words, never as numbers
// (is 03/12 March or December?).

/** The reader's language (`en` where there is no browser, as in a unit test under Node). */
export const locale = typeof navigator === 'undefined' ? 'en' : navigator.language;

/** Formats a date, given as an ISO string or a Date, to text. */
export type DateFormatter = (iso: string | Date) => string;

/**
 * A surface's dates: `short` months for tables (`24 Nov 2026`, `24 Nov 2026, 19:40`), `long` ones for prose
 * (`3 December 2026`, `3 December 2026, 10:42`). Times are in the reader's time zone.
 *
 * @example
 * export const { formatDate, formatDateTime } = dateFormatters('short');
 */
export function dateFormatters(month: 'short' | 'long'): {
  formatDate: DateFormatter;
  formatDateTime: DateFormatter;
} {
  const date = new Intl.DateTimeFormat(locale, { day: 'numeric', month, year: 'numeric' });
  const dateTime = new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month,
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
  return {
    formatDate: (iso) => date.format(new Date(iso)),
    formatDateTime: (iso) => dateTime.format(new Date(iso)),
  };
}

const timeFormat = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });

/** `10:42`, in the reader's time zone. */
export const formatTime: DateFormatter = (iso) => timeFormat.format(new Date(iso));
