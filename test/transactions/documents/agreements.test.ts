import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { renderDocument } from '../../../src/transactions/documents/signed-document.ts';
import { importTemplateSource } from '../../../src/transactions/templates/templates.ts';
import { checkTemplate } from '../../../src/transactions/templates/validation.ts';
import { describeProblems } from '../../../src/validation/problems.ts';
import {
  compressionBombPdf,
  FUND_AGREEMENT_MAPPING,
  fundAgreementPdf,
  withAgreement,
} from '../../support/data/fund-pdf.ts';
import { pdfText } from '../../support/pdf-text.ts';
import {
  CREATE_TRANSACTION,
  graphql,
  approveAndCountersign,
  transactionInput,
} from '../../support/data/transactions.ts';
import { useTransactionsSuite, type EmptyTenant } from '../../support/data/transactions-suite.ts';
import { samplePdf, uploadThroughLink } from '../../support/data/uploads.ts';

const suite = useTransactionsSuite();
const EXAMPLE = new URL('../../../templates/examples/subscription.yaml', import.meta.url);
let example: string;
let tenant: EmptyTenant;

beforeAll(async () => {
  example = await readFile(EXAMPLE, 'utf8');
  tenant = await suite.emptyTenant();
});

/** The problems of a template the check refuses, as `line: path: message`. */
function problemsOf(source: string): string[] {
  const checked = checkTemplate(source);
  if (checked.ok) throw new Error('the template passed');
  return describeProblems('t.yaml', checked.problems)
    .split('\n')
    .map((line) => line.replace(/^t\.yaml:/, ''));
}

/** The line of the first occurrence of `text` in `source`, 1-based. */
const lineOf = (source: string, text: string) => source.slice(0, source.indexOf(text)).split('\n').length;

/** Text read from a PDF as one run of words. */
const words = (pdf: Uint8Array) => pdfText(pdf).replace(/\s+/g, ' ');

async function refusedImport(source: string, files: Map<string, Uint8Array>): Promise<AppError> {
  const error = await importTemplateSource(suite.db, {
    organizationId: tenant.organizationId,
    source,
    filename: 'fund.yaml',
    files,
  }).then(
    () => undefined,
    (refused: unknown) => refused,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('a text agreement, checked at import', () => {
  it('refuses a placeholder that names no item or no field, saying which and on which line of the text', () => {
    const source = example
      .replace('{{investor_details.legalName}}', '{{investor_details.fullName}}')
      .replace('{{subscription_amount.amount}}', '{{subscription.amount}}');
    expect(problemsOf(source)).toEqual([
      `${lineOf(source, '          text: |')}: processes[0].documents[0].agreement.text: the placeholder {{investor_details.fullName}} on line 8 of the text: item "investor_details" has no field "fullName" (its fields: investorType, legalName, email, phone, address, dateOfBirth)`,
      `${lineOf(source, '          text: |')}: processes[0].documents[0].agreement.text: the placeholder {{subscription.amount}} on line 13 of the text: no item "subscription" in this process (its items: investor_details, tax_forms, accreditation, subscription_amount)`,
    ]);
  });

  it('refuses an agreement given as text and as a PDF, and PDF mappings on a text agreement', () => {
    const both = example.replace('          text: |\n', '          pdf: fund.pdf\n          text: |\n');
    expect(problemsOf(both)).toEqual([
      `${lineOf(both, '          pdf: fund.pdf')}: processes[0].documents[0].agreement: give the agreement as \`text\` or as \`pdf\`, not both`,
    ]);
    const mapped = example.replace(
      '          text: |\n',
      '          fields: { Name: investor_details.legalName }\n          text: |\n',
    );
    expect(problemsOf(mapped)).toEqual([
      `${lineOf(mapped, '          fields: { Name')}: processes[0].documents[0].agreement.fields: is for a PDF agreement; a text agreement has placeholders`,
    ]);
  });
});

describe('the sample agreement of the example template', () => {
  async function create() {
    const { body } = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(tenant, { inputData: {} }),
    });
    expect(body.errors).toBeUndefined();
    return body.data!.createTransaction as { transactionId: string; transmitToken: string };
  }

  async function preview(token: string): Promise<string> {
    const response = await suite.app.inject({
      url: `/recipient/${token}/documents/subscription_agreement/preview`,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    return words(response.rawPayload);
  }

  it('previews the agreement itself, stamped as a preview, with a blank for each answer not given yet', async () => {
    const { transmitToken } = await create();
    const text = await preview(transmitToken);
    expect(text).toContain('PREVIEW - NOT SIGNED');
    expect(text).toContain('SAMPLE AGREEMENT.');
    expect(text).toContain(
      'This agreement is made between Example Fund I, L.P. (the "Fund") and [Full legal name: not answered yet]',
    );
    expect(text).toContain('(investor): not signed yet');
    expect(text).toContain('(countersigner): not signed yet');
    expect(text).toContain('Appendix: the answers given');
  });

  it('fills the answers into the text as they are, an answer with Markdown or HTML in it as plain text', async () => {
    const { transmitToken } = await create();
    const save = async (item: string, data: Record<string, unknown>) => {
      const response = await suite.app.inject({
        method: 'PUT',
        url: `/recipient/${transmitToken}/items/${item}`,
        payload: { data },
      });
      expect(response.statusCode).toBe(200);
    };
    await save('investor_details', {
      investorType: 'trust',
      legalName: 'The **Hopper** <b>Family</b> Trust',
      email: 'trustee@example.com',
      address: '1 Navy Way\nArlington, VA',
    });
    await save('subscription_amount', { amount: { currency: 'USD', amount: 25_000_000 } });
    await save('tax_forms', { taxResidency: 'US' });
    const text = await preview(transmitToken);
    expect(text).toContain(
      'and The **Hopper** <b>Family</b> Trust of 1 Navy Way, Arlington, VA (the "Investor")',
    );
    // The amount is bold: the text reader sees a run of its own before the comma.
    expect(text).toMatch(/with a capital commitment of \$250,000\.00 ?, on the terms/);
    expect(text).toContain('it invests as: A trust;');
    expect(text).toContain('it is resident for tax purposes in United States (US);');
  });

  it('writes HTML in the agreement text as the text it is, never as markup', async () => {
    const source = example.replace(
      '# Subscription agreement\n',
      '# Subscription agreement\n\n            <script>alert("x")</script>\n\n            A <b>bold</b> claim.\n',
    );
    const checked = checkTemplate(source);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const process = checked.definition.processes[0];
    const document = process?.documents?.[0];
    if (!process || !document) throw new Error('no document');
    const pdf = await renderDocument(
      { query: () => Promise.resolve([]) },
      {
        organizationId: tenant.organizationId,
        transactionId: 'transaction',
        process,
        document,
        items: [],
        signatures: [],
        preview: true,
      },
    );
    const text = words(pdf);
    expect(text).toContain('<script>alert("x")</script>');
    expect(text).toContain('A <b>bold</b> claim.');
  });
});

describe("a fund's own PDF agreement", () => {
  const pdfSource = () => withAgreement(example);

  async function importFundTemplate(files = new Map([['fund-agreement.pdf', fundPdf]])) {
    return importTemplateSource(suite.db, {
      organizationId: tenant.organizationId,
      source: pdfSource().replace('key: subscription\n', 'key: fund_pdf_subscription\n'),
      filename: 'fund.yaml',
      files,
    });
  }

  let fundPdf: Uint8Array;
  beforeAll(async () => {
    fundPdf = await fundAgreementPdf();
  });

  /** The fund's PDF with an extra stream of 100 MB that Flate packs into about 100 KB: a compression bomb. */
  async function bombPdf(place: 'stream' | 'object stream'): Promise<Uint8Array> {
    const bytes = await compressionBombPdf({ megabytes: 100, place });
    expect(bytes.byteLength).toBeLessThan(200 * 1024);
    return bytes;
  }

  async function storedPdfs(): Promise<number> {
    const [row] = await suite.db.query<{ count: number }>(
      'select count(*)::int as count from template_files where organization_id = $1',
      [tenant.organizationId],
    );
    return row?.count ?? -1;
  }

  it('stores the PDF once, names it by its SHA-256 in the definition, and imports the same files again unchanged', async () => {
    const imported = await importFundTemplate();
    expect(imported.outcome).toBe('created');
    const [row] = await suite.db.query<{ agreement: { pdf: string; sha256: string } }>(
      `select definition->'processes'->0->'documents'->0->'agreement' as agreement from templates where id = $1`,
      [imported.id],
    );
    expect(row?.agreement).toMatchObject({
      pdf: 'fund-agreement.pdf',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await importFundTemplate()).outcome).toBe('unchanged');
    expect(await storedPdfs()).toBe(1);
  });

  it.each([
    [
      'a mapping that names a field the PDF does not have',
      (source: string) => source.replace('InvestorName: investor_details', 'Investor_Name: investor_details'),
      () => Promise.resolve(fundPdf),
      'fields.Investor_Name: the PDF has no form field "Investor_Name" (its form fields: InvestorName, Commitment, InvestorType, Accredited, InvestorSignature)',
      'Investor_Name:',
    ],
    [
      'a checkbox mapped to an answer that is not yes or no',
      (source: string) =>
        source.replace('Accredited: accreditation.confirmed', 'Accredited: investor_details.email'),
      () => Promise.resolve(fundPdf),
      'fields.Accredited: the PDF\'s field "Accredited" takes a yes/no (boolean) field; "investor_details.email" is not one',
      'Accredited:',
    ],
    [
      'a signature box on a page the PDF does not have',
      (source: string) => source.replace('{ page: 2,', '{ page: 3,'),
      () => Promise.resolve(fundPdf),
      'signatures.countersigner.page: the PDF has 2 pages',
      'countersigner:',
    ],
    [
      'a file that is not a PDF',
      (source: string) => source,
      () => Promise.resolve(Buffer.from('<html>a web page saved as .pdf</html>')),
      'pdf: "fund-agreement.pdf" is not a PDF (it does not start with %PDF-)',
      'pdf: fund-agreement.pdf',
    ],
    [
      'an encrypted PDF',
      (source: string) => source,
      () => fundAgreementPdf({ encrypted: true }),
      'pdf: "fund-agreement.pdf" is encrypted: Portico cannot fill or sign it. Save a copy without a password or restrictions',
      'pdf: fund-agreement.pdf',
    ],
    [
      'a compression bomb (a PDF of 100 KB whose stream inflates to 100 MB)',
      (source: string) => source,
      () => bombPdf('stream'),
      'pdf: "fund-agreement.pdf" inflates to more than 64 MB once its compressed contents are read: save it with JPEG images, or with fewer pages',
      'pdf: fund-agreement.pdf',
    ],
    [
      'a compression bomb (a PDF of 100 KB whose object stream inflates to 100 MB)',
      (source: string) => source,
      () => bombPdf('object stream'),
      'pdf: "fund-agreement.pdf" inflates to more than 64 MB once its compressed contents are read: save it with JPEG images, or with fewer pages',
      'pdf: fund-agreement.pdf',
    ],
    [
      'a damaged PDF',
      (source: string) => source,
      () => Promise.resolve(Buffer.from('%PDF-1.7\n% nothing else')),
      'pdf: "fund-agreement.pdf" could not be read as a PDF: it is damaged or not a PDF',
      'pdf: fund-agreement.pdf',
    ],
  ])(
    'refuses %s with AGREEMENT_INVALID at its line, and writes nothing',
    async (_, change, content, problem, at) => {
      const source = change(pdfSource());
      const before = await storedPdfs();
      const refused = await refusedImport(source, new Map([['fund-agreement.pdf', await content()]]));
      expect(refused.code).toBe('AGREEMENT_INVALID');
      expect(refused.message).toBe(
        `fund.yaml:${lineOf(source, at)}: processes[0].documents[0].agreement.${problem}`,
      );
      expect(await storedPdfs()).toBe(before);
    },
  );

  it('refuses a PDF that was not sent with the template, and a signing role given no place', async () => {
    const missing = await refusedImport(pdfSource(), new Map());
    expect(missing.message).toContain(
      'processes[0].documents[0].agreement.pdf: "fund-agreement.pdf" was not found beside the template',
    );
    const unplaced = await refusedImport(
      withAgreement(example, FUND_AGREEMENT_MAPPING.replace(/ {12}countersigner:.*\n/, '')),
      new Map([['fund-agreement.pdf', fundPdf]]),
    );
    expect(unplaced.code).toBe('AGREEMENT_INVALID');
    expect(unplaced.message).toMatch(
      /processes\[0\]\.documents\[0\]\.agreement\.signatures: say where the countersigner's signature goes/,
    );
  });

  it('signs the PDF filled in and flattened, each signature in its box, the answers appended', async () => {
    const template = await importFundTemplate();
    const created = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput({ ...tenant, templateId: template.id }, { inputData: {} }),
    });
    expect(created.body.errors).toBeUndefined();
    const { transactionId, transmitToken } = created.body.data!.createTransaction as {
      transactionId: string;
      transmitToken: string;
    };
    const link = async (method: 'PUT' | 'POST' | 'GET', path: string, payload?: object) => {
      const response = await suite.app.inject({
        method,
        url: `/recipient/${transmitToken}/${path}`,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response;
    };
    await link('PUT', 'items/investor_details', {
      data: {
        investorType: 'trust',
        legalName: 'Hopper Family Trust',
        email: 'trustee@example.com',
        address: '1 Navy Way',
      },
    });
    await link('PUT', 'items/accreditation', { data: { basis: ['entity_assets'], confirmed: true } });
    await link('PUT', 'items/subscription_amount', {
      data: { amount: { currency: 'USD', amount: 25_000_000 } },
    });
    const upload = await uploadThroughLink(suite.app, {
      token: transmitToken,
      vulcanKey: 'tax_forms',
      field: 'w9FileId',
      file: { filename: 'W-9.pdf', content: await samplePdf() },
    });
    await link('PUT', 'items/tax_forms', { data: { taxResidency: 'US', w9FileId: upload.body.file.id } });

    const previewed = words((await link('GET', 'documents/subscription_agreement/preview')).rawPayload);
    expect(previewed).toContain('PREVIEW - NOT SIGNED');
    expect(previewed).toContain('To be signed by the investor');
    expect(previewed).toContain('Hopper Family Trust $250,000.00 trust');

    await link('POST', 'esign', { act: 'consented' });
    await link('POST', 'documents/subscription_agreement/signatures', {
      signedName: 'Grace Hopper',
      consent: true,
    });
    await link('POST', 'processes/subscription/submit');
    const signed = await approveAndCountersign(suite, tenant.apiKey, transactionId, 'Ada Byron');

    const { PDFDocument } = await import('pdf-lib');
    const document = await PDFDocument.load(signed);
    // The fund's two pages, then the signatures and the appendix; no field left to edit.
    expect(document.getPageCount()).toBe(4);
    expect(document.getForm().getFields()).toEqual([]);
    expect(document.getPages().map((page) => page.node.Annots()?.size() ?? 0)).toEqual([0, 0, 0, 0]);
    const text = words(signed);
    expect(text).toContain('EXAMPLE FUND I, L.P. - LIMITED PARTNERSHIP SUBSCRIPTION AGREEMENT');
    expect(text).toContain('Hopper Family Trust $250,000.00 trust');
    expect(text).toMatch(/Grace Hopper Signed electronically \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(text).toMatch(/Ada Byron Signed electronically \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(text).toContain('Signed electronically by Grace Hopper (investor) on');
    expect(text).toContain('Appendix: the answers given');
    expect(text).not.toContain('PREVIEW');
  });
});
