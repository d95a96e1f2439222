import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Cell, ExportColumn } from './export-columns.ts';

/**
 * The two formats of a queue export (export.ts), each written to a stream as its rows come: CSV with
 * csv-stringify (UTF-8 with a byte order mark, so that Excel reads it as UTF-8; CRLF line ends) and XLSX with
 * exceljs' streaming workbook writer (no shared strings table, which would grow with the rows). Both start with
 * two header rows: the columns' titles for people, then their machine keys.
 *
 * Text is never run as a formula (OWASP, "CSV Injection"): in a CSV a text cell that begins with `=`, `+`, `-`,
 * `@`, a tab or a carriage return (or the full-width `＝`, `＋`, `－`, `＠`) gets a `'` in front, which spreadsheets
 * read as "this is text"; numbers are left as they are. In an XLSX a text cell is a string cell, which no
 * spreadsheet runs, so it is written as it is.
 */

/** The formats an export is written in. */
export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The content type of each format. */
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Writes an export's rows to its stream, a page at a time. */
export interface SheetWriter {
  /** Writes rows; resolves when the stream may take more (the reader has taken what it held). */
  write(rows: readonly Cell[][]): Promise<void>;
  /** Ends the file; resolves once it is all written to the stream. */
  end(): Promise<void>;
}

/**
 * Resolves when `stream` may be written again, or when it or `reader` (the stream it ends up in) has ended: never
 * hangs when the reader went away.
 */
function drained(stream: EventEmitter, reader: EventEmitter = stream): Promise<void> {
  return new Promise((resolve) => {
    const events = [
      [stream, 'drain'],
      [stream, 'close'],
      [stream, 'error'],
      [reader, 'close'],
      [reader, 'error'],
    ] as const;
    const done = () => {
      for (const [emitter, event] of events) emitter.off(event, done);
      resolve();
    };
    for (const [emitter, event] of events) emitter.on(event, done);
  });
}

/** The first characters that make a spreadsheet run a CSV cell as a formula (OWASP's list, and their full-width forms). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Text a spreadsheet reads as text: a `'` before what it would run as a formula. */
export function csvText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A time as `2026-11-28 14:03:00`, in UTC: the ISO 8601 form Excel, LibreOffice and Google Sheets read as a time. */
export function csvTime(time: Date): string {
  return (
    `${String(time.getUTCFullYear())}-${pad(time.getUTCMonth() + 1)}-${pad(time.getUTCDate())} ` +
    `${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:${pad(time.getUTCSeconds())}`
  );
}

function csvField(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'string') return csvText(cell);
  if (typeof cell === 'number') return String(cell);
  if (cell instanceof Date) return csvTime(cell);
  if ('date' in cell) return cell.date;
  return cell.amount.toFixed(cell.digits);
}

/** A CSV of `columns` on `output`: the two header rows now, the rows as they come. */
export function csvWriter(output: Writable, columns: readonly ExportColumn[]): SheetWriter {
  const stringifier = stringify({ bom: true, record_delimiter: 'windows' });
  const finished = pipeline(stringifier, output);
  // Awaited by end(); an export given up midway (the reader went away) leaves it rejected, and unread.
  finished.catch(() => undefined);
  stringifier.write(columns.map((column) => csvText(column.title)));
  stringifier.write(columns.map((column) => csvText(column.key)));
  return {
    async write(rows) {
      for (const row of rows) {
        if (!stringifier.write(row.map(csvField)) && !stringifier.destroyed) await drained(stringifier);
      }
    },
    async end() {
      stringifier.end();
      await finished;
    },
  };
}

/** The longest text an Excel cell holds. */
const MOST_CHARACTERS = 32_767;
const TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DATE_FORMAT = 'yyyy-mm-dd';
/** How much of a sheet the zip may have yet to take before the rows wait for it. */
const MOST_PENDING_BYTES = 1024 * 1024;

/** A stream the zip reads a sheet from, and how much it holds. */
interface ZipInput {
  stream: EventEmitter;
  pending(): number;
}

/**
 * The streams the zip reads a sheet from. exceljs 4's streaming writer writes a sheet's XML into them whatever
 * they hold (its `StreamBuf` ignores their backpressure), so a sheet written faster than it is compressed and
 * read piles up there: that is where the rows wait. Read through exceljs' internals (a sheet's `stream` and its
 * `pipes`), defensively: where none is found, none is waited for.
 */
function zipInputs(sheet: unknown): ZipInput[] {
  const pipes = (sheet as { stream?: { pipes?: unknown } }).stream?.pipes;
  if (!Array.isArray(pipes)) return [];
  return pipes.flatMap((pipe: unknown): ZipInput[] => {
    if (!(pipe instanceof EventEmitter)) return [];
    const writable = pipe as EventEmitter & { writableLength?: number; _writableState?: { length?: number } };
    return [
      { stream: writable, pending: () => writable.writableLength ?? writable._writableState?.length ?? 0 },
    ];
  });
}

/** An amount's format by its decimals: `0.00` for USD, `0` for JPY. */
const amountFormat = (digits: number) => (digits === 0 ? '0' : `0.${'0'.repeat(digits)}`);

/** A cell's value in a workbook and the number format it is shown with, if any. */
function xlsxValue(cell: Cell): { value: string | number | Date | null; numFmt?: string } {
  if (cell === null || typeof cell === 'number') return { value: cell };
  if (typeof cell === 'string') return { value: cell.slice(0, MOST_CHARACTERS) };
  if (cell instanceof Date) return { value: cell, numFmt: TIME_FORMAT };
  if ('date' in cell) {
    // Excel counts days from 1900: an earlier date stays text.
    return cell.date < '1900-03-01'
      ? { value: cell.date }
      : { value: new Date(`${cell.date}T00:00:00Z`), numFmt: DATE_FORMAT };
  }
  return { value: cell.amount, numFmt: amountFormat(cell.digits) };
}

/**
 * An XLSX workbook of one sheet, "Transactions", of `columns` on `output`: the two header rows in bold and
 * frozen, each column as wide as its `width`.
 */
export async function xlsxWriter(output: Writable, columns: readonly ExportColumn[]): Promise<SheetWriter> {
  // Loaded with the first XLSX export: exceljs is hundreds of modules that a start need not load.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: output,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = workbook.addWorksheet('Transactions', { views: [{ state: 'frozen', ySplit: 2 }] });
  sheet.columns = columns.map((column) => ({ key: column.key, width: column.width }));
  for (const header of [columns.map((column) => column.title), columns.map((column) => column.key)]) {
    const row = sheet.addRow(header);
    row.font = { bold: true };
    row.commit();
  }
  return {
    async write(rows) {
      for (const cells of rows) {
        const values = cells.map(xlsxValue);
        const row = sheet.addRow(values.map((cell) => cell.value));
        for (const [index, cell] of values.entries()) {
          if (cell.numFmt !== undefined) row.getCell(index + 1).numFmt = cell.numFmt;
        }
        row.commit();
      }
      // The zip compresses the sheet into `output` as the reader takes it: the next page waits until it has
      // taken most of what it was given, so that no more than a page and a megabyte are held.
      for (const input of zipInputs(sheet)) {
        while (input.pending() > MOST_PENDING_BYTES && !output.destroyed) await drained(input.stream, output);
      }
      if (output.writableNeedDrain && !output.destroyed) await drained(output);
    },
    async end() {
      sheet.commit();
      await workbook.commit();
    },
  };
}
