// How every page writes dates and times: in the reader's language, with months in words, never as numbers
// (is 03/12 March or December?).

/**
 * The reader's language (`en` where there is no browser, as in a unit test under Node). A page drawn on the server
 * writes in the language and time zone its reader's browser told (`setReader`), so a live binding: read it when
 * formatting, not once when a module loads.
 */
export let locale = typeof navigator === 'undefined' ? 'en' : navigator.language;
/** The reader's time zone; undefined: the runtime's own (in a browser, the reader's). */
let timeZone: string | undefined;
/** Counts the readers set, so that what was made for one reader is made again for the next. */
let readers = 0;

/**
 * Formats for a reader other than this runtime's: the server's page renderer (web/shared/app/server-render.tsx)
 * sets the language and time zone the reader's browser told before drawing their page.
 */
export function setReader(reader: { locale: string; timeZone: string | undefined }): void {
  locale = reader.locale;
  timeZone = reader.timeZone;
  readers += 1;
}

/**
 * A formatter made once for the current reader, and again when the reader changes.
 *
 * @example
 * const monthFormat = perReader(() => new Intl.DateTimeFormat(locale, { month: 'short' }));
 * monthFormat().format(date);
 */
export function perReader<T>(make: () => T): () => T {
  let made: { of: number; value: T } | undefined;
  return () => {
    if (made?.of !== readers) made = { of: readers, value: make() };
    return made.value;
  };
}

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
  const date = perReader(
    () => new Intl.DateTimeFormat(locale, { day: 'numeric', month, year: 'numeric', timeZone }),
  );
  const dateTime = perReader(
    () =>
      new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month,
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone,
      }),
  );
  return {
    formatDate: (iso) => date().format(new Date(iso)),
    formatDateTime: (iso) => dateTime().format(new Date(iso)),
  };
}

const timeFormat = perReader(
  () => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone }),
);

/** `10:42`, in the reader's time zone. */
export const formatTime: DateFormatter = (iso) => timeFormat().format(new Date(iso));
