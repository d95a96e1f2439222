// What the server hands a surface's drawing module (web/<surface>/draw.tsx, run by page-drawing.ts in a thread):
// the one contract between the two, type-only on the page's side.
/** What a page is drawn from (web/shared/app/draw.tsx draws it): its address, its first reads' answers, its reader. */
export interface DrawRequest {
  /** The page's address under the surface's path, e.g. `/transactions/0b5…` (the router's basename is apart). */
  path: string;
  /** The answers of the page's first reads, the session's among them, by their addresses (`/console/api/…`). */
  answers: Record<string, unknown>;
  /** How the reader reads, as their browser told (web/shared/app/drawn-page.ts, `tellReader`). */
  reader: Reader;
}

/** The name of the cookie in which the page tells the server how its reader reads (the server and page each name it). */
export type ReaderCookie = 'portico_reader';

/** The reader of a drawn page: their language, time zone (undefined: UTC) and light or dark appearance. */
export interface Reader {
  locale: string;
  timeZone: string | undefined;
  scheme: 'light' | 'dark';
}

/** A drawn page, as the surface's page route sends it (web-pages.ts). */
export interface DrawnPage {
  /** The app's HTML, inside the page's root element. */
  html: string;
  /** The page's first reads' answers by address, for the app to render over the HTML with. */
  answers: Record<string, unknown>;
  /** What the head links besides the app's: the page's chunk and its style sheets, e.g. `<link …>`. */
  head: string[];
}
