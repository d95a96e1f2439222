import { parse as parseCsv } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';
import { AppError } from '../../../errors.ts';

/**
 * A closing's list of investors as a file: a CSV (any of `,` `;` or tab between cells, UTF-8 with or without its
 * BOM, as Excel, Numbers and LibreOffice save it) or an XLSX workbook's first sheet, read into a header and rows
 * of text. What is not such a table is refused with its own code, and nothing of it is guessed.
 */

/** The most rows of investors a closing takes from one file. */
export const MAX_TABLE_ROWS = 5000;
/** The largest file a closing takes, in bytes (10 MB). */
export const MAX_TABLE_BYTES = 10 * 1024 * 1024;

/** A table read from a file: its columns (the header's cells) and its rows, each with its row number. */
export interface Table {
  columns: string[];
  /** Each row's cells, one per column (missing ones blank), and its number as a spreadsheet shows it (header: 1). */
  rows: { row: number; cells: string[] }[];
}

/** What separates cells in a CSV: the one of `,` `;` and tab its header line has most of (`,` on a tie). */
function delimiterOf(text: string): string {
  const header = text.slice(0, text.search(/\r?\n|$/));
  const counts = [',', ';', '\t'].map((delimiter) => ({
    delimiter,
    count: header.split(delimiter).length - 1,
  }));
  return counts.reduce((best, next) => (next.count > best.count ? next : best)).delimiter;
}

/** The text of a CSV file: UTF-8 (its BOM dropped), or TABLE_INVALID saying how to save it. */
function csvText(content: Uint8Array): string {
  const utf16 = (content[0] === 0xff && content[1] === 0xfe) || (content[0] === 0xfe && content[1] === 0xff);
  if (utf16) {
    throw new AppError(
      'TABLE_INVALID',
      'The file is saved as UTF-16 text. Save it as "CSV UTF-8" (or as an Excel workbook) and try again.',
    );
  }
  if (content.includes(0)) {
    throw new AppError('FILE_TYPE_NOT_ALLOWED', 'The file is not a CSV or an Excel workbook (.xlsx).');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(content);
  } catch {
    throw new AppError(
      'TABLE_INVALID',
      'The file is not UTF-8 text: it was saved in another encoding. Save it as "CSV UTF-8" (or as an Excel workbook) and try again, so that names with accents come through as written.',
    );
  }
}

/** The cells of a CSV file, row by row; TABLE_INVALID for a quote left open or a line break inside a cell. */
function csvCells(content: Uint8Array): { row: number; cells: string[] }[] {
  const text = csvText(content);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      delimiter: delimiterOf(text),
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const line = (error as { lines?: unknown }).lines;
    throw new AppError(
      'TABLE_INVALID',
      `The file is not a CSV table${typeof line === 'number' ? ` (near line ${String(line)})` : ''}: a quote is left open or a cell is not closed.`,
    );
  }
  return records.map(({ record, info }) => {
    const breaks = record.reduce((count, cell) => count + (cell.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
    if (breaks > 0) {
      // The line the row starts on, as a spreadsheet numbers it.
      const row = info.lines - breaks;
      throw new AppError(
        'TABLE_INVALID',
        `Row ${String(row)} has a line break inside a cell. Put each investor on one line, with no line breaks in a cell, and try again.`,
        { row },
      );
    }
    return { row: info.lines, cells: record };
  });
}

/** A cell of a sheet as text: numbers as written, dates as ISO dates, a formula by its result. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    if ('result' in value) return cellText(value.result);
    if ('richText' in value) return value.richText.map((part) => part.text).join('');
    if ('text' in value) return value.text;
    // An error cell (#N/A) or a shape the sheet should not hold: no answer.
    return '';
  }
  return String(value);
}

/** The cells of an XLSX workbook's first sheet, row by row. */
async function xlsxCells(content: Uint8Array): Promise<{ row: number; cells: string[] }[]> {
  // Loaded with the first workbook read: exceljs is hundreds of modules that a start need not load.
  const { Workbook } = (await import('exceljs')).default;
  const workbook = new Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(content) as unknown as ExcelJS.Buffer);
  } catch {
    throw new AppError('TABLE_INVALID', 'The file is not an Excel workbook that can be read (.xlsx).');
  }
  const [sheet] = workbook.worksheets;
  if (sheet === undefined) return [];
  const rows: { row: number; cells: string[] }[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, number) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    const cells = Array.from(values, (value) => cellText(value).trim());
    if (cells.some((cell) => /[\r\n]/.test(cell))) {
      throw new AppError(
        'TABLE_INVALID',
        `Row ${String(number)} has a line break inside a cell. Put each investor on one row, with no line breaks in a cell, and try again.`,
        { row: number },
      );
    }
    if (cells.some((cell) => cell !== '')) rows.push({ row: number, cells });
  });
  return rows;
}

/** Whether the bytes are a ZIP archive, as an XLSX workbook is. */
function isZip(content: Uint8Array): boolean {
  return content[0] === 0x50 && content[1] === 0x4b && content[2] === 0x03 && content[3] === 0x04;
}

/**
 * Reads a closing's file (or pasted rows, as CSV text) into a {@link Table}: the first row is the header.
 * Refuses a file over {@link MAX_TABLE_BYTES} (FILE_TOO_LARGE) or with more than {@link MAX_TABLE_ROWS} rows
 * (TOO_MANY_ROWS), one that is not CSV or XLSX (FILE_TYPE_NOT_ALLOWED), and one that cannot be read as a table:
 * another encoding, a line break inside a cell, a quote left open, no header (TABLE_INVALID).
 */
export async function readTable(content: Uint8Array): Promise<Table> {
  if (content.byteLength > MAX_TABLE_BYTES) {
    throw new AppError(
      'FILE_TOO_LARGE',
      `The file is larger than ${String(MAX_TABLE_BYTES / 1024 / 1024)} MB: split the closing into several files.`,
    );
  }
  const read = isZip(content) ? await xlsxCells(content) : csvCells(content);
  const [header, ...rows] = read;
  if (header === undefined || header.cells.every((cell) => cell.trim() === '')) {
    throw new AppError(
      'TABLE_INVALID',
      'The file has no header row: its first row must name the columns (Name, E-mail, …).',
    );
  }
  if (rows.length > MAX_TABLE_ROWS) {
    throw new AppError(
      'TOO_MANY_ROWS',
      `The file has ${rows.length.toLocaleString('en-US')} rows of investors; a closing takes at most ${MAX_TABLE_ROWS.toLocaleString('en-US')}. Split it into several closings.`,
    );
  }
  const columns = header.cells.map((cell) => cell.trim());
  return {
    columns,
    rows: rows.map(({ row, cells }) => ({
      row,
      cells: columns.map((_, index) => (cells[index] ?? '').trim()),
    })),
  };
}
