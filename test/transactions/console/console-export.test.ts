// The console's export of its work queue (GET /console/api/queue/export): the transactions the queue lists for its
// filters, as CSV and as XLSX, with two header rows, each transaction's current answers in the template's words,
// text never run as a formula, and the organization's rows only.
import { PassThrough, Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { loadExampleTemplate } from '../../../src/demo/seed.ts';
import { AppError } from '../../../src/errors.ts';
import type { QueueRow } from '../../../src/transactions/console/contract.ts';
import { exportSheet } from '../../../src/transactions/console/export/export-columns.ts';
import { planQueueExport, writeQueueExport } from '../../../src/transactions/console/export/export.ts';
import { createTransaction } from '../../../src/transactions/create-transaction.ts';
import type { Browser } from '../../support/data/dashboard.ts';
import { createPerson } from '../../support/data/dashboard.ts';
import { api, consoleApiWorld, signedIn } from '../../support/data/console-api.ts';
import { organizationStory } from '../../support/data/stories.ts';
import { madeBeforeAll } from '../../support/made-before-all.ts';

const world = madeBeforeAll('the console', consoleApiWorld);

/** What a formula injection looks like: a spreadsheet would make it a link that runs. */
const FORMULA = '=HYPERLINK("http://x","y")';

/**
 * Our organization: a submitted transaction (every item answered, $250,000.00), one just created, and one whose
 * investor is named like a formula; a viewer and an operator signed in. Beside it another organization, whose
 * template is a side letter.
 */
const data = madeBeforeAll('the organizations', async () => {
  const ours = await organizationStory(world.db, world.files, { transactions: ['submitted', 'created'] });
  const [submitted, created] = ours.transactions;
  if (!submitted || !created) throw new Error('the story made too few transactions');
  const formula = await world.db.transaction(async (tx) => {
    const made = await createTransaction(tx, {
      organizationId: ours.organizationId,
      actor: { type: 'system', id: null },
      input: {
        templateId: ours.templateId,
        senderEntityId: ours.senderEntityId,
        noticeName: FORMULA,
        noticeEmail: 'formula@example.com',
      },
    });
    return made.transactionId;
  });
  const tenant = { kind: 'organization' as const, id: ours.organizationId };
  const viewer = await signedIn(world, await createPerson(world.db, { tenant, role: 'viewer' }));
  const operator = await signedIn(world, await createPerson(world.db, { tenant, role: 'operator' }));
  const theirs = await organizationStory(world.db, world.files, {
    transactions: ['created'],
    template: (example) => ({ ...example, key: 'side_letter', name: 'Side letter' }),
  });
  return { ours, submitted, created, formula, theirs, viewer, operator };
});

/** A CSV's records, its byte order mark left out. */
const parseCsv = (text: string): string[][] => parse(text, { bom: true });

const exportPath = (query: Record<string, string> = {}) =>
  api(`/queue/export?${new URLSearchParams(query).toString()}`);

/** The export as CSV: its answer, and its records parsed (the two header rows first). */
async function csv(browser: Browser, query: Record<string, string> = {}) {
  const response = await browser.get(exportPath({ ...query, format: 'csv' }));
  expect(response.status, response.text).toBe(200);
  const records = parseCsv(response.text);
  return { response, records, titles: records[0] ?? [], keys: records[1] ?? [], rows: records.slice(2) };
}

/** The export as XLSX, read back with exceljs: its answer and its one sheet. */
async function xlsx(browser: Browser, query: Record<string, string> = {}) {
  const response = await world.app.inject({
    method: 'GET',
    url: exportPath({ ...query, format: 'xlsx' }),
    headers: { 'x-forwarded-proto': 'https', cookie: `${browser.surface.cookie}=${browser.cookie ?? ''}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.read(Readable.from([response.rawPayload]));
  const sheet = workbook.getWorksheet('Transactions');
  if (!sheet) throw new Error('the workbook has no sheet "Transactions"');
  return { response, sheet };
}

/** A CSV row's cells by their machine keys. */
const byKey = (keys: readonly string[], row: readonly string[] | undefined) =>
  Object.fromEntries(keys.map((key, index) => [key, row?.[index]]));

const FIXED_KEYS = [
  'id',
  'investor_name',
  'contact_name',
  'contact_email',
  'state_title',
  'template_name',
  'template_version',
  'sender_name',
  'created_at',
  'updated_at',
  'completed_at',
];

describe('the CSV export of the queue', () => {
  it('downloads the queue’s transactions in its order, under a title row and a machine-key row', async () => {
    const { viewer, ours, submitted, created, formula } = data;
    const { response, records, titles, keys, rows } = await csv(viewer);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text.startsWith('\uFEFF')).toBe(true);
    expect(response.text).toContain('\r\n');
    expect(response.text.replaceAll('\r\n', '')).not.toContain('\n');
    expect(titles.slice(0, 11)).toEqual([
      'Transaction',
      'Investor',
      'Contact name',
      'Contact e-mail',
      'State',
      'Template',
      'Template version',
      'Sender',
      'Created (UTC)',
      'Last changed (UTC)',
      'Completed (UTC)',
    ]);
    expect(keys.slice(0, 11)).toEqual(FIXED_KEYS);
    // The answer columns: every field of the example template, in the forms' order, the amount as two.
    expect(keys.slice(11)).toEqual([
      'investor_details.investorType',
      'investor_details.legalName',
      'investor_details.dateOfBirth',
      'investor_details.email',
      'investor_details.phone',
      'investor_details.address',
      'tax_forms.taxResidency',
      'tax_forms.taxId',
      'tax_forms.usPerson',
      'tax_forms.w9FileId',
      'accreditation.basis',
      'accreditation.confirmed',
      'subscription_amount.amount',
      'subscription_amount.amount.currency',
    ]);
    expect(titles.slice(-3)).toEqual([
      'I confirm that what I have given here is true and complete',
      'Amount',
      'Amount currency',
    ]);
    expect(records.every((record) => record.length === keys.length)).toBe(true);
    // The queue's order (newest first), which the queue's own route gives.
    const queue = await viewer.get(api('/queue'));
    const queued = (queue.body as { rows: QueueRow[] }).rows.map((row) => row.id);
    expect(rows.map((row) => row[0])).toEqual(queued);
    expect(new Set(queued)).toEqual(new Set([submitted.id, created.id, formula]));
    const row = byKey(
      keys,
      rows.find((each) => each[0] === submitted.id),
    );
    expect(row).toMatchObject({
      investor_name: submitted.investor.name,
      contact_email: submitted.investor.email,
      state_title: 'in review',
      template_name: 'Fund subscription',
      template_version: '1',
      sender_name: ours.sender.name,
      completed_at: '',
    });
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('gives the current answers as a spreadsheet reads them: money as an amount and a currency, choices by their titles, yes/no, dates, countries and uploads by name', async () => {
    const { viewer, submitted, created } = data;
    const { keys, rows } = await csv(viewer);
    const row = byKey(
      keys,
      rows.find((each) => each[0] === submitted.id),
    );
    expect(row).toMatchObject({
      'investor_details.legalName': submitted.investor.name,
      'investor_details.dateOfBirth': '1979-04-18',
      'investor_details.investorType': '',
      'tax_forms.taxResidency': 'United States',
      'tax_forms.usPerson': 'Yes',
      'tax_forms.w9FileId': submitted.files[0],
      'accreditation.basis': 'Net worth over $1,000,000, excluding your home',
      'accreditation.confirmed': 'Yes',
      'subscription_amount.amount': '250000.00',
      'subscription_amount.amount.currency': 'USD',
    });
    // A transaction just created has only the amount its sender filled in.
    const fresh = byKey(
      keys,
      rows.find((each) => each[0] === created.id),
    );
    expect(fresh['investor_details.legalName']).toBe('');
    expect(fresh['subscription_amount.amount']).toBe('250000.00');
  });

  it('writes text a spreadsheet would run as a formula with a quote in front, and leaves numbers alone', async () => {
    const { viewer, formula } = data;
    const { keys, rows } = await csv(viewer);
    const row = byKey(
      keys,
      rows.find((each) => each[0] === formula),
    );
    expect(row.investor_name).toBe(`'${FORMULA}`);
    expect(row.contact_name).toBe(`'${FORMULA}`);
    expect(row.template_version).toBe('1');
  });

  it('applies the queue’s filters: a state, a search', async () => {
    const { viewer, submitted, formula } = data;
    const inReview = await csv(viewer, { state: 'in_review' });
    expect(inReview.rows.map((row) => row[0])).toEqual([submitted.id]);
    const searched = await csv(viewer, { search: 'formula@exam' });
    expect(searched.rows.map((row) => row[0])).toEqual([formula]);
    const sorted = await csv(viewer, { sort: 'oldest', template: 'subscription' });
    expect(sorted.rows.map((row) => row[0])).toEqual(
      (await csv(viewer)).rows.map((row) => row[0]).toReversed(),
    );
  });

  it('holds only the organization’s transactions: another organization’s template key gives the header rows alone', async () => {
    const { viewer, theirs, ours } = data;
    const all = await csv(viewer);
    expect(all.rows.map((row) => row[0])).not.toContain(theirs.transactionId);
    const other = await csv(viewer, { template: 'side_letter' });
    expect(other.records).toEqual([other.titles, FIXED_KEYS]);
    expect(other.titles).toHaveLength(FIXED_KEYS.length);
    // Their own export, by their viewer, holds theirs alone.
    const theirViewer = await signedIn(
      world,
      await createPerson(world.db, {
        tenant: { kind: 'organization', id: theirs.organizationId },
        role: 'viewer',
      }),
    );
    const theirsOnly = await csv(theirViewer);
    expect(theirsOnly.rows.map((row) => row[0])).toEqual([theirs.transactionId]);
    expect(theirsOnly.rows[0]?.[5]).toBe('Side letter');
    expect(ours.organizationId).not.toBe(theirs.organizationId);
  });

  it('refuses filters out of their limits with an error answer, not a download', async () => {
    const response = await data.operator.get(exportPath({ search: 'ab' }));
    expect(response.status).toBe(400);
    expect(response.headers['content-disposition']).toBeUndefined();
    expect(response.body).toMatchObject({ error: { code: 'BAD_USER_INPUT', details: { field: 'search' } } });
    const format = await data.operator.get(exportPath({ format: 'pdf' }));
    expect(format.status).toBe(400);
  });

  it('answers a HEAD with the download’s headers and no file', async () => {
    const head = await data.operator.request('HEAD', exportPath({ format: 'csv' }));
    expect(head.status).toBe(200);
    expect(head.headers['content-disposition']).toMatch(
      /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(head.text).toBe('');
  });
});

describe('the XLSX export of the queue', () => {
  it('writes one sheet with bold, frozen header rows, typed cells, and the formula as text', async () => {
    const { viewer, submitted, formula } = data;
    const { response, sheet } = await xlsx(viewer);
    expect(response.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="transactions-\d{4}-\d{2}-\d{2}\.xlsx"$/,
    );
    expect(response.headers['cache-control']).toBe('no-store');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 2 });
    const values = (row: number) => (sheet.getRow(row).values as unknown[]).slice(1);
    const keys = values(2) as string[];
    expect(values(1).slice(0, 2)).toEqual(['Transaction', 'Investor']);
    expect(keys.slice(0, 11)).toEqual(FIXED_KEYS);
    expect(sheet.getRow(1).getCell(1).font.bold).toBe(true);
    expect(sheet.getRow(2).getCell(1).font.bold).toBe(true);
    expect(sheet.rowCount).toBe(5);
    const rowOf = (id: string) => {
      for (let index = 3; index <= sheet.rowCount; index += 1) {
        if (sheet.getRow(index).getCell(1).value === id) return sheet.getRow(index);
      }
      throw new Error(`no row for ${id}`);
    };
    const column = (key: string) => keys.indexOf(key) + 1;

    const injected = rowOf(formula).getCell(column('investor_name'));
    expect(injected.value).toBe(FORMULA);
    expect(injected.type).toBe(ExcelJS.ValueType.String);
    expect(injected.formula).toBeUndefined();

    const row = rowOf(submitted.id);
    const amount = row.getCell(column('subscription_amount.amount'));
    expect(amount.value).toBe(250000);
    expect(amount.numFmt).toBe('0.00');
    expect(row.getCell(column('subscription_amount.amount.currency')).value).toBe('USD');
    expect(row.getCell(column('accreditation.basis')).value).toBe(
      'Net worth over $1,000,000, excluding your home',
    );
    expect(row.getCell(column('tax_forms.usPerson')).value).toBe('Yes');
    expect(row.getCell(column('investor_details.dateOfBirth')).value).toEqual(
      new Date('1979-04-18T00:00:00Z'),
    );
    expect(row.getCell(column('created_at')).value).toBeInstanceOf(Date);
    expect(row.getCell(column('template_version')).value).toBe(1);
  });

  it('lets a viewer export, and follows the filters as the CSV does', async () => {
    const { viewer, submitted } = data;
    const { sheet } = await xlsx(viewer, { state: 'in_review' });
    expect(sheet.rowCount).toBe(3);
    expect(sheet.getRow(3).getCell(1).value).toBe(submitted.id);
    const head = await viewer.request('HEAD', exportPath({ format: 'xlsx' }));
    expect([head.status, head.text]).toEqual([200, '']);
    expect(head.headers['content-disposition']).toMatch(/^attachment; /);
  });
});

describe('an export in the domain', () => {
  it('refuses, before writing anything, an export of more transactions than its limit, naming their count', async () => {
    const { ours } = data;
    const error: unknown = await planQueueExport(world.db, {
      organizationId: ours.organizationId,
      filters: {},
      maxRows: 2,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', details: { count: 3, limit: 2 } });
    expect((error as AppError).message).toMatch(/keep 3 transactions.*at most 2: narrow the filters/);
    const fits = await planQueueExport(world.db, {
      organizationId: ours.organizationId,
      filters: {},
      maxRows: 3,
    });
    expect(fits.count).toBe(3);
  });

  it('walks the rows a page at a time in the queue’s order, for every sort', async () => {
    const { ours } = data;
    for (const sort of ['newest', 'oldest', 'longest_in_state', 'recently_updated'] as const) {
      const plan = await planQueueExport(world.db, {
        organizationId: ours.organizationId,
        filters: { sort },
      });
      const read = async (pageSize: number) => {
        const output = new PassThrough();
        const chunks: Buffer[] = [];
        output.on('data', (chunk: Buffer) => chunks.push(chunk));
        const written = await writeQueueExport(world.db, plan, { format: 'csv', output, pageSize });
        const records = parseCsv(Buffer.concat(chunks).toString('utf8'));
        return { written, ids: records.slice(2).map((record) => record[0]) };
      };
      const whole = await read(500);
      const paged = await read(1);
      expect(whole.written).toEqual({ rows: 3, complete: true });
      expect(paged.written).toEqual(whole.written);
      expect(paged.ids, sort).toEqual(whole.ids);
    }
  });

  it('names a field by its item too when two fields share a title, and its currency column after it', async () => {
    const example = await loadExampleTemplate();
    const [subscription] = example.processes;
    if (!subscription) throw new Error('the example template has no process');
    const definition = {
      ...example,
      processes: [
        {
          ...subscription,
          items: subscription.items.map((item) =>
            item.vulcanKey === 'investor_details'
              ? {
                  ...item,
                  schema: {
                    ...item.schema,
                    properties: {
                      ...(item.schema as { properties?: object }).properties,
                      amount: { type: 'number', title: 'Amount' },
                    },
                  },
                }
              : item,
          ),
        },
      ],
    };
    const sheet = exportSheet([
      { id: 't', key: 'subscription', name: 'Fund subscription', version: 1, definition },
    ]);
    const titles = sheet.columns.map((column) => column.title);
    expect(titles).toContain('Amount (About you)');
    expect(titles).toContain('Amount (Subscription amount)');
    expect(titles).toContain('Amount (Subscription amount) currency');
    expect(titles).not.toContain('Amount');
  });
});
