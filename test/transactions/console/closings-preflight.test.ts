// A closing's list of investors: read from a CSV or an XLSX file as a table, then checked row by row against the
// template's own rules before anything is created.
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import { preflight } from '../../../src/transactions/console/closings/preflight.ts';
import { MAX_TABLE_ROWS, readTable } from '../../../src/transactions/console/closings/table-file.ts';

const text = (value: string) => new TextEncoder().encode(value);

/** The refusal `readTable` gives `content`: its code and message. */
async function refusalOf(content: Uint8Array): Promise<{ code: string; message: string }> {
  const error: unknown = await readTable(content).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

/** An XLSX workbook with `rows` on its first sheet. */
async function workbook(rows: (string | number)[][]): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Investors');
  for (const row of rows) sheet.addRow(row);
  return new Uint8Array(await book.xlsx.writeBuffer());
}

describe('reading a closing’s list of investors', () => {
  it('reads a comma-separated file and a semicolon-separated one with a UTF-8 BOM alike', async () => {
    const comma = await readTable(text('Name,E-mail,Amount\r\nAda Lovelace,ada@example.com,"250,000"\r\n'));
    const semicolon = await readTable(
      text('\uFEFFName;E-mail;Amount\nAda Lovelace;ada@example.com;250,000\n'),
    );
    for (const table of [comma, semicolon]) {
      expect(table).toEqual({
        columns: ['Name', 'E-mail', 'Amount'],
        rows: [{ row: 2, cells: ['Ada Lovelace', 'ada@example.com', '250,000'] }],
      });
    }
  });

  it('reads the first sheet of an XLSX workbook, numbers as written and blank rows skipped', async () => {
    const table = await readTable(
      await workbook([
        ['Name', 'E-mail', 'Amount'],
        ['Zoë Brontë', 'zoe@example.com', 250000],
        [],
        ['Ada', 'ada@example.com', ''],
      ]),
    );
    expect(table).toEqual({
      columns: ['Name', 'E-mail', 'Amount'],
      rows: [
        { row: 2, cells: ['Zoë Brontë', 'zoe@example.com', '250000'] },
        { row: 4, cells: ['Ada', 'ada@example.com', ''] },
      ],
    });
  });

  it('refuses another encoding, a line break inside a cell, no header, too many rows and a file of another type, each with its code', async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('Name,E-mail\n', 'utf16le')]);
    const latin1 = new Uint8Array(Buffer.from('Name,E-mail\nZo\xeb,zoe@example.com\n', 'latin1'));
    const rows = Array.from(
      { length: MAX_TABLE_ROWS + 1 },
      (_, index) => `Investor ${String(index)},i${String(index)}@example.com`,
    );
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(await refusalOf(utf16)).toMatchObject({
      code: 'TABLE_INVALID',
      message: expect.stringMatching(/UTF-16/),
    });
    expect(await refusalOf(latin1)).toMatchObject({
      code: 'TABLE_INVALID',
      message: expect.stringMatching(/not UTF-8/),
    });
    expect(await refusalOf(text('Name,E-mail\n"Ada\nLovelace",ada@example.com\n'))).toEqual({
      code: 'TABLE_INVALID',
      message: expect.stringMatching(/^Row \d+ has a line break inside a cell/),
    });
    expect(await refusalOf(text('Name,E-mail\n"Ada,ada@example.com\n'))).toMatchObject({
      code: 'TABLE_INVALID',
    });
    expect(await refusalOf(text('\n\n'))).toMatchObject({
      code: 'TABLE_INVALID',
      message: expect.stringMatching(/no header/),
    });
    expect(await refusalOf(text(['Name,E-mail', ...rows].join('\n')))).toMatchObject({
      code: 'TOO_MANY_ROWS',
      message: expect.stringMatching(/5,001 rows/),
    });
    expect(await refusalOf(png)).toMatchObject({ code: 'FILE_TYPE_NOT_ALLOWED' });
    expect(await refusalOf(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]))).toMatchObject({
      code: 'TABLE_INVALID',
    });
  });
});

describe('a closing’s preflight', () => {
  it('reads each row as createTransaction takes it and names the problems of the bad rows on their columns', async () => {
    const definition = await loadExampleTemplate();
    expect(definition.prefill).toEqual(['subscription_amount.amount']);
    const table = await readTable(
      text(
        [
          'Name;E-mail;Entity type;Amount;Amount currency',
          'Ada Lovelace;ada@example.com;Trust;250,000.00;EUR',
          'Grace Hopper;grace@example.com;;1000000;',
          'Alan Turing;not-an-address;individual;50000;USD',
          'Ada again;ADA@example.com;Company;60000;USD',
          'Emmy Noether;emmy@example.com;Trustee;70000;USD',
          'Kurt Gödel;kurt@example.com;Individual;1.000,00;USD',
          'Lise Meitner;lise@example.com;Individual;500;USD',
          'Marie Curie;marie@example.com;Individual;70000;JPY',
          'Blank Amount;blank@example.com;;;',
        ].join('\n'),
      ),
    );
    const checked = preflight(definition, table);
    expect(checked.columnProblems).toEqual([]);
    expect(checked.columns.map((column) => column.role)).toEqual([
      { kind: 'name' },
      { kind: 'email' },
      { kind: 'entityType' },
      { kind: 'answer', answer: 'subscription_amount.amount' },
      { kind: 'currency', answer: 'subscription_amount.amount' },
    ]);
    const [ada, grace, alan, again, emmy, kurt, lise, marie, blank] = checked.rows;
    expect(ada).toEqual({
      row: 2,
      cells: ['Ada Lovelace', 'ada@example.com', 'Trust', '250,000.00', 'EUR'],
      investor: { name: 'Ada Lovelace', email: 'ada@example.com', entityType: 'trust' },
      answers: { 'subscription_amount.amount': { currency: 'EUR', amount: 25_000_000 } },
      problems: [],
    });
    expect(grace).toMatchObject({
      investor: { entityType: 'individual' },
      answers: { 'subscription_amount.amount': { currency: 'USD', amount: 100_000_000 } },
      problems: [],
    });
    expect(alan?.problems).toEqual([
      { column: 'E-mail', message: '"not-an-address" is not an e-mail address.' },
    ]);
    expect(again?.problems).toEqual([
      { column: 'E-mail', message: 'The same investor as row 2: each investor is in a closing once.' },
    ]);
    expect(emmy?.problems).toEqual([
      {
        column: 'Entity type',
        message: expect.stringMatching(/^"Trustee" is not an entity type: Individual, Joint holders, Trust/),
      },
    ]);
    expect(kurt?.problems).toEqual([
      { column: 'Amount', message: expect.stringMatching(/^"1\.000,00" could be read two ways/) },
    ]);
    expect(lise?.problems).toEqual([
      { column: 'Amount', message: 'Amount: the amount must be at least $1,000.00' },
    ]);
    expect(marie?.problems).toEqual([
      { column: 'Amount', message: 'JPY is not a currency of this answer: USD, EUR, GBP, CHF.' },
    ]);
    expect(blank).toMatchObject({ answers: {}, problems: [] });
  });

  it('names a column the template does not take, and the name or e-mail column missing', async () => {
    const definition = await loadExampleTemplate();
    const checked = preflight(
      definition,
      await readTable(text('Investor,Commitment,Notes\nAda,250000,VIP\n')),
    );
    expect(checked.columnProblems).toEqual([
      expect.stringMatching(
        /^The column "Commitment" is not one this template takes: the columns are Name, E-mail, Entity type, Amount, Amount currency\.$/,
      ),
      expect.stringMatching(/^The column "Notes" is not one/),
      'The list has no E-mail column: where the invitation goes.',
    ]);
  });
});
