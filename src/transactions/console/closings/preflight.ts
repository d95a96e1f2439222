import { AppError } from '../../../errors.ts';
import { checkNotice, inputDataProblems } from '../../create-transaction.ts';
import { ENTITY_TYPES, type EntityType } from '../../entity-types.ts';
import { parseMoney } from '../../money.ts';
import type { TemplateDefinition } from '../../templates/schema.ts';
import {
  answerProblemsInWords,
  ENTITY_TYPE_TITLES,
  inputDataOf,
  prefillAnswers,
  type PrefillAnswer,
} from '../start/start.ts';
import type { Table } from './table-file.ts';

/**
 * A closing's preflight: every row of its list of investors checked against the template's own rules before
 * anything is created, as `createTransaction` would check it, and each problem said in words on its column.
 */

/** What a column of the list is read as. */
export type ColumnRole =
  | { kind: 'name' }
  | { kind: 'email' }
  | { kind: 'entityType' }
  | { kind: 'answer'; answer: string }
  | { kind: 'currency'; answer: string };

/** A problem of one row, on the column it is about (null: the row as a whole). */
export interface RowProblem {
  column: string | null;
  message: string;
}

/** A row as the preflight reads it: the investor, the answers, and what is wrong with it (nothing: ready). */
export interface CheckedRow {
  row: number;
  /** The row's cells, one per column, as read. */
  cells: string[];
  investor: { name: string; email: string; entityType: EntityType };
  /** The answers by `<item vulcanKey>.<field>`, as `createTransaction`'s inputData takes them. */
  answers: Record<string, unknown>;
  problems: RowProblem[];
}

/** A list checked: how its columns are read, the columns' own problems, and each row. */
export interface Preflight {
  columns: { name: string; role: ColumnRole | null }[];
  /** Problems of the columns: a column no answer has, a column missing. Nothing runs while there are any. */
  columnProblems: string[];
  rows: CheckedRow[];
}

/** A header as compared: lower case, without spaces, dashes, underscores or dots at its ends or inside words. */
function normal(header: string): string {
  return header.toLowerCase().replace(/[\s_-]+/g, '');
}

const NAME_HEADERS = new Set(['name', 'investor', 'investorname', 'contactname', 'fullname']);
const EMAIL_HEADERS = new Set(['email', 'emailaddress', 'investoremail', 'contactemail']);
const TYPE_HEADERS = new Set(['entitytype', 'type', 'investortype']);

/** What a column is, by its header: the investor's name, address or type, an answer or its currency. */
function roleOf(header: string, answers: readonly PrefillAnswer[]): ColumnRole | null {
  const key = normal(header);
  if (NAME_HEADERS.has(key)) return { kind: 'name' };
  if (EMAIL_HEADERS.has(key)) return { kind: 'email' };
  if (TYPE_HEADERS.has(key)) return { kind: 'entityType' };
  for (const answer of answers) {
    const names = [normal(answer.title), normal(answer.answer)];
    if (names.includes(key)) return { kind: 'answer', answer: answer.answer };
    if (
      answer.kind === 'money' &&
      names.some((name) => key === `${name}currency` || key === `${name}.currency`)
    ) {
      return { kind: 'currency', answer: answer.answer };
    }
  }
  return null;
}

/** The columns read, and their problems: each column must be known, and the name and address columns there. */
function readColumns(table: Table, answers: readonly PrefillAnswer[]) {
  const columns = table.columns.map((name) => ({ name, role: roleOf(name, answers) }));
  const problems: string[] = [];
  const known = [
    'Name',
    'E-mail',
    'Entity type',
    ...answers.flatMap((answer) =>
      answer.kind === 'money' && (answer.money?.currencies.length ?? 0) > 1
        ? [answer.title, `${answer.title} currency`]
        : [answer.title],
    ),
  ];
  for (const column of columns) {
    if (column.role === null) {
      problems.push(
        column.name === ''
          ? 'A column has no header: name it, or delete it.'
          : `The column "${column.name}" is not one this template takes: the columns are ${known.join(', ')}.`,
      );
    }
  }
  const seen = new Map<string, string>();
  for (const column of columns) {
    if (column.role === null) continue;
    const role = JSON.stringify(column.role);
    const earlier = seen.get(role);
    if (earlier !== undefined) {
      problems.push(`The columns "${earlier}" and "${column.name}" say the same thing: keep one of them.`);
    }
    seen.set(role, column.name);
  }
  const has = (kind: ColumnRole['kind']) => columns.some((column) => column.role?.kind === kind);
  if (!has('name'))
    problems.push('The list has no Name column: the investor’s name, whom the invitation greets.');
  if (!has('email')) problems.push('The list has no E-mail column: where the invitation goes.');
  return { columns, problems };
}

const TRUE_WORDS = new Set(['yes', 'y', 'true', '1', 'x']);
const FALSE_WORDS = new Set(['no', 'n', 'false', '0']);

/** An amount as written in a European spreadsheet (`1.000,00`, `250,5`): it could mean two amounts. */
function looksEuropean(text: string): boolean {
  return /^\D*\d{1,3}(\.\d{3})+(,\d+)?\D*$/.test(text) || /^\D*\d+,\d{1,2}\D*$/.test(text);
}

/** The value of an answer's cell, or the problem with it (blank: no answer, the investor gives it). */
function answerValue(
  answer: PrefillAnswer,
  text: string,
  currencyCell: string | undefined,
): { value?: unknown; problem?: string } {
  if (text === '') return {};
  switch (answer.kind) {
    case 'money': {
      const currencies = answer.money?.currencies ?? [];
      const written = /\b([A-Z]{3})\b/.exec(text.toUpperCase())?.[1];
      const currency = (currencyCell?.toUpperCase() || written) ?? currencies[0] ?? 'USD';
      if (!currencies.includes(currency)) {
        return { problem: `${currency} is not a currency of this answer: ${currencies.join(', ')}.` };
      }
      if (looksEuropean(text)) {
        return {
          problem: `"${text}" could be read two ways: write it with a point before the cents and no other points, like 1000.00 or 1,000.00.`,
        };
      }
      try {
        return { value: { currency, amount: parseMoney(text, currency) } };
      } catch (error) {
        return { problem: error instanceof AppError ? error.message : 'Not an amount.' };
      }
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (TRUE_WORDS.has(word)) return { value: true };
      if (FALSE_WORDS.has(word)) return { value: false };
      return { problem: `"${text}" is not a yes or a no.` };
    }
    case 'integer':
    case 'number': {
      const number = Number(text.replace(/,/g, ''));
      if (!Number.isFinite(number) || (answer.kind === 'integer' && !Number.isInteger(number))) {
        return { problem: `"${text}" is not ${answer.kind === 'integer' ? 'a whole number' : 'a number'}.` };
      }
      return { value: number };
    }
    case 'choice': {
      const choice = answer.choices?.find(
        (option) => normal(option.title) === normal(text) || normal(String(option.value)) === normal(text),
      );
      if (choice === undefined) {
        return {
          problem: `"${text}" is not one of the choices: ${(answer.choices ?? []).map((option) => option.title).join(', ')}.`,
        };
      }
      return { value: choice.value };
    }
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(text)
        ? { value: text }
        : { problem: `"${text}" is not a date written as 2026-03-31.` };
    case 'text':
      return { value: text };
  }
}

/** The entity type a cell names (by its value or its title, in any case), or undefined. */
function entityTypeOf(text: string): EntityType | undefined {
  return ENTITY_TYPES.find(
    (type) => normal(type) === normal(text) || normal(ENTITY_TYPE_TITLES[type]) === normal(text),
  );
}

/** One row read and checked; `firstRowOf` tells the row an address was first seen on. */
function checkRow(
  definition: TemplateDefinition,
  answers: ReadonlyMap<string, PrefillAnswer>,
  columns: readonly { name: string; role: ColumnRole | null }[],
  row: Table['rows'][number],
  firstRowOf: Map<string, number>,
): CheckedRow {
  const problems: RowProblem[] = [];
  const cell = (kind: ColumnRole['kind'], answer?: string) => {
    const index = columns.findIndex(
      (column) =>
        column.role?.kind === kind &&
        (answer === undefined || ('answer' in column.role && column.role.answer === answer)),
    );
    return index < 0 ? undefined : { column: columns[index]?.name ?? '', text: row.cells[index] ?? '' };
  };
  const name = cell('name');
  const email = cell('email');
  const investor = {
    name: name?.text ?? '',
    email: email?.text ?? '',
    entityType: 'individual' as EntityType,
  };
  try {
    if (investor.email.trim() === '') {
      throw new AppError('BAD_USER_INPUT', 'The e-mail address is missing: where the invitation goes.', {
        field: 'noticeEmail',
      });
    }
    checkNotice({ noticeName: investor.name, noticeEmail: investor.email });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const onName = error.details?.field === 'noticeName';
    problems.push({
      column: (onName ? name : email)?.column ?? null,
      message: error.message.replace(/^noticeName/, 'The name').replace(/^noticeEmail/, 'The e-mail address'),
    });
  }
  const address = investor.email.trim().toLowerCase();
  const first = firstRowOf.get(address);
  if (address !== '' && first !== undefined) {
    problems.push({
      column: email?.column ?? null,
      message: `The same investor as row ${String(first)}: each investor is in a closing once.`,
    });
  } else if (address !== '') {
    firstRowOf.set(address, row.row);
  }
  const type = cell('entityType');
  if (type !== undefined && type.text !== '') {
    const found = entityTypeOf(type.text);
    if (found === undefined) {
      problems.push({
        column: type.column,
        message: `"${type.text}" is not an entity type: ${ENTITY_TYPES.map((each) => ENTITY_TYPE_TITLES[each]).join(', ')}.`,
      });
    } else {
      investor.entityType = found;
    }
  }
  const values: Record<string, unknown> = {};
  const columnOf = new Map<string, string>();
  for (const answer of answers.values()) {
    const found = cell('answer', answer.answer);
    if (found === undefined) continue;
    columnOf.set(answer.answer, found.column);
    const read = answerValue(answer, found.text, cell('currency', answer.answer)?.text);
    if (read.problem !== undefined) problems.push({ column: found.column, message: read.problem });
    else if (read.value !== undefined) values[answer.answer] = read.value;
  }
  // The template's own rules of what was read: bounds, lengths, patterns, as createTransaction checks them.
  const ruled = inputDataProblems(definition, inputDataOf(definition, values));
  for (const problem of answerProblemsInWords(definition, ruled)) {
    problems.push({
      column: (problem.answer === null ? undefined : columnOf.get(problem.answer)) ?? null,
      message: problem.message,
    });
  }
  return { row: row.row, cells: row.cells, investor, answers: values, problems };
}

/**
 * Checks a closing's list against its template: how each column is read (the investor's Name, E-mail and Entity
 * type, and a column per answer the template lets the sender fill in, by its title or `<vulcanKey>.<field>`, with
 * "<title> currency" beside an amount when the answer takes several currencies), and each row as
 * `createTransaction` would check it, with what people write in spreadsheets read as they mean it (Yes/No, a
 * choice by its title) and nothing guessed (an amount written `1.000,00` is flagged).
 */
export function preflight(definition: TemplateDefinition, table: Table): Preflight {
  const answers = prefillAnswers(definition);
  const { columns, problems } = readColumns(table, answers);
  const byAnswer = new Map(answers.map((answer) => [answer.answer, answer]));
  const firstRowOf = new Map<string, number>();
  return {
    columns,
    columnProblems: problems,
    rows: table.rows.map((row) => checkRow(definition, byAnswer, columns, row, firstRowOf)),
  };
}

/**
 * Checks one row again, as fixed on the page, against the closing's columns and the addresses of its other rows
 * (`others`, lower case, each with its first row): what {@link preflight} says of it in the list.
 */
export function checkRowAgain(
  definition: TemplateDefinition,
  columns: readonly { name: string; role: ColumnRole | null }[],
  row: Table['rows'][number],
  others: readonly { email: string; row: number }[],
): CheckedRow {
  const byAnswer = new Map(prefillAnswers(definition).map((answer) => [answer.answer, answer]));
  const firstRowOf = new Map(others.map((other) => [other.email, other.row]));
  return checkRow(definition, byAnswer, columns, row, firstRowOf);
}
