import { parse as parseCsv } from 'csv-parse/sync';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { AppError } from '../../errors.ts';
import { lineOf, type LocatedProblem, type PathSegment } from '../../validation/problems.ts';
import { RECORD_TYPES, type RecordType } from '../record-types.ts';
import { Company, CompanyInvestment, CompanyUpdate } from '../records.ts';

/** One record as read from a file, with where it came from. */
export interface SourceRecord {
  value: Record<string, unknown>;
  file: string;
  /** Its path in the file: `['companies', 3]` in a JSON document, `[]` for a CSV row. */
  path: PathSegment[];
  /** The 1-based line of a path inside the record, for problem messages. */
  lineOf(path: PathSegment[]): number | undefined;
}

export type ImportSource = Record<RecordType, SourceRecord[]>;

/** Problems found in the files of an import: nothing was written. */
export class ImportProblems extends AppError {
  constructor(readonly problems: (LocatedProblem & { file: string })[]) {
    const shown = problems
      .slice(0, 50)
      .map((p) =>
        [`${p.file}${p.line === undefined ? '' : `:${p.line}`}`, p.path, p.message]
          .filter((part) => part !== '')
          .join(': '),
      );
    if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more`);
    super(
      'BAD_USER_INPUT',
      `Nothing was imported: ${problems.length} problem${problems.length === 1 ? '' : 's'}.\n${shown.join('\n')}`,
      { problems },
    );
  }
}

const SCHEMAS = { companies: Company, updates: CompanyUpdate, investments: CompanyInvestment };
/** A column that tells a CSV file's record type when no type is given. */
const TELLTALE_COLUMNS: Record<RecordType, string> = {
  companies: 'legalName',
  updates: 'title',
  investments: 'amountCents',
};

/** Whether a text is the start of a JSON document, cut short: its only fault is ending too soon. */
function endsEarly(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const position = /at position (\d+)/.exec(message)?.[1];
    return /Unexpected end of JSON input/.test(message) || Number(position) === text.length;
  }
}

function jsonSyntaxLine(content: string, error: unknown): number {
  const position = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  let offset = position?.[1] === undefined ? undefined : Number(position[1]);
  if (offset === undefined) {
    // Node 20 names no position for some mistakes: the longest prefix that is only cut short ends there.
    let [low, high] = [0, content.length];
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (endsEarly(content.slice(0, middle))) low = middle;
      else high = middle - 1;
    }
    offset = low;
  }
  return content.slice(0, offset).split('\n').length;
}

function readJson(file: string, content: string): ImportSource {
  let document: unknown;
  try {
    document = JSON.parse(content);
  } catch (error) {
    throw new ImportProblems([
      {
        file,
        path: '',
        line: jsonSyntaxLine(content, error),
        message: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      },
    ]);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ImportProblems([
      {
        file,
        path: '',
        message: 'must be an object: {"companies": [...], "updates": [...], "investments": [...]}',
      },
    ]);
  }
  // Lines are only needed for problem messages: the document is parsed again for them only then.
  let located: { document: Document; lines: LineCounter } | undefined;
  const locate = (path: PathSegment[]) => {
    if (!located) {
      const lines = new LineCounter();
      located = { document: parseDocument(content, { lineCounter: lines }), lines };
    }
    return lineOf(located.document, located.lines, path);
  };
  const problems: (LocatedProblem & { file: string })[] = [];
  const records: ImportSource = { companies: [], updates: [], investments: [] };
  for (const [key, list] of Object.entries(document)) {
    if (!(RECORD_TYPES as readonly string[]).includes(key)) {
      problems.push({ file, path: key, message: `is not a record type (${RECORD_TYPES.join(', ')})` });
    } else if (!Array.isArray(list)) {
      problems.push({ file, path: key, message: 'must be an array of records' });
    } else {
      list.forEach((value: unknown, index) => {
        const path = [key, index];
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          records[key as RecordType].push({
            value: value as Record<string, unknown>,
            file,
            path,
            lineOf: (inner) => locate([...path, ...inner]),
          });
        } else problems.push({ file, path: `${key}[${index}]`, message: 'must be an object' });
      });
    }
  }
  if (problems.length > 0) throw new ImportProblems(problems);
  return records;
}

/** A CSV cell as the field's schema wants it: empty → null, numbers, booleans, and JSON for arrays. */
function cellValue(schema: { type?: string | string[] } | undefined, cell: string): unknown {
  const types = schema?.type === undefined ? ['string'] : [schema.type].flat();
  if (cell === '') return types.includes('null') ? null : undefined;
  if (
    (types.includes('number') || types.includes('integer')) &&
    /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(cell)
  ) {
    return Number(cell);
  }
  if (types.includes('boolean') && /^(true|false)$/i.test(cell)) return cell.toLowerCase() === 'true';
  if (types.includes('array')) {
    try {
      return JSON.parse(cell) as unknown;
    } catch {
      return cell;
    }
  }
  return cell;
}

function readCsv(file: string, content: string, type: RecordType | undefined): ImportSource {
  type Row = { record: Record<string, string>; info: { lines: number } };
  let rows: Row[];
  let header: string[] = [];
  try {
    rows = parseCsv<Row>(content, {
      // Kept from the header itself, so a file of no records still tells its type.
      columns: (names: string[]) => (header = names),
      bom: true,
      skip_empty_lines: true,
      info: true,
    });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new ImportProblems([
      {
        file,
        path: '',
        ...(line === undefined ? {} : { line }),
        message: `not valid CSV (${error instanceof Error ? error.message : String(error)})`,
      },
    ]);
  }
  const recordType = type ?? RECORD_TYPES.find((candidate) => header.includes(TELLTALE_COLUMNS[candidate]));
  if (recordType === undefined) {
    throw new ImportProblems([
      {
        file,
        path: '',
        line: 1,
        message: `cannot tell the record type from the header: give --type, or a column ${Object.values(TELLTALE_COLUMNS).join(', ')}`,
      },
    ]);
  }
  const properties = SCHEMAS[recordType].properties as Record<string, { type?: string | string[] }>;
  const records = rows.map(({ record, info }): SourceRecord => {
    const value: Record<string, unknown> = {};
    for (const [column, cell] of Object.entries(record)) {
      const converted = cellValue(properties[column], cell);
      if (converted !== undefined) value[column] = converted;
    }
    return { value, file, path: [], lineOf: () => info.lines };
  });
  return { companies: [], updates: [], investments: [], [recordType]: records };
}

/**
 * Reads one import file: a JSON document `{"companies": [...], "updates": [...], "investments": [...]}`, or a
 * CSV file of one record type (`type`, or told by its header) with the API's field names as columns. Throws
 * ImportProblems for a file that cannot be read as either.
 */
export function readImportFile(
  file: string,
  content: string,
  options: { type?: RecordType | undefined } = {},
): ImportSource {
  if (/\.csv$/i.test(file)) return readCsv(file, content, options.type);
  return readJson(file, content);
}
