import { deflateSync } from 'node:zlib';
/**
 * A fund's own subscription agreement as a fund's counsel would send it: a two-page PDF with an AcroForm (text
 * fields, a checkbox, a dropdown, and a box where the investor signs), made with pdf-lib as any PDF editor would.
 */
export async function fundAgreementPdf(
  options: { fields?: string[]; encrypted?: boolean } = {},
): Promise<Uint8Array> {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.TimesRoman);
  const first = document.addPage([612, 792]);
  const second = document.addPage([612, 792]);
  first.drawText('EXAMPLE FUND I, L.P. - LIMITED PARTNERSHIP SUBSCRIPTION AGREEMENT', {
    x: 60,
    y: 720,
    size: 12,
    font,
  });
  first.drawText('Name of investor:', { x: 60, y: 660, size: 11, font });
  first.drawText('Capital commitment:', { x: 60, y: 620, size: 11, font });
  first.drawText('Investing as:', { x: 60, y: 580, size: 11, font });
  first.drawText('The investor confirms it is accredited:', { x: 60, y: 540, size: 11, font });
  second.drawText('IN WITNESS WHEREOF the parties sign this agreement.', { x: 60, y: 720, size: 11, font });
  second.drawText('Investor:', { x: 60, y: 640, size: 11, font });
  second.drawText('Accepted by the General Partner:', { x: 60, y: 540, size: 11, font });
  const form = document.getForm();
  const names = options.fields ?? [
    'InvestorName',
    'Commitment',
    'InvestorType',
    'Accredited',
    'InvestorSignature',
  ];
  if (names.includes('InvestorName')) {
    form.createTextField('InvestorName').addToPage(first, { x: 200, y: 652, width: 300, height: 20, font });
  }
  if (names.includes('Commitment')) {
    form.createTextField('Commitment').addToPage(first, { x: 200, y: 612, width: 200, height: 20, font });
  }
  if (names.includes('InvestorType')) {
    const type = form.createDropdown('InvestorType');
    type.addOptions(['individual', 'joint', 'entity', 'trust']);
    type.addToPage(first, { x: 200, y: 572, width: 150, height: 20, font });
  }
  if (names.includes('Accredited')) {
    form.createCheckBox('Accredited').addToPage(first, { x: 300, y: 535, width: 14, height: 14 });
  }
  if (names.includes('InvestorSignature')) {
    form
      .createTextField('InvestorSignature')
      .addToPage(second, { x: 200, y: 625, width: 250, height: 40, font });
  }
  const bytes = await document.save({ useObjectStreams: false });
  if (!options.encrypted) return bytes;
  // pdf-lib writes no encryption; a trailer naming an /Encrypt dictionary is what readers take for one.
  const text = Buffer.from(bytes).toString('latin1');
  return Buffer.from(
    text.replace(
      'trailer\n<<',
      'trailer\n<<\n/Encrypt << /Filter /Standard /V 2 /R 3 /Length 128 /P -3904 >>',
    ),
    'latin1',
  );
}

/** How the example template's agreement maps the fields of `fundAgreementPdf` and places its signatures. */
/**
 * A compression bomb: the fund's agreement PDF with one more Flate stream of `megabytes`, packed to about a
 * thousandth of that. `place` says where: a stream of its own (zeros, named from the catalog), an object stream
 * (spaces; pdf-lib inflates those as it parses), or a content stream of the first page (spaces: drawn as nothing,
 * read by anything that reads the page).
 */
export async function compressionBombPdf(options: {
  megabytes: number;
  place: 'stream' | 'object stream' | 'page content';
}): Promise<Uint8Array> {
  const { PDFDocument, PDFName, PDFArray } = await import('pdf-lib');
  const document = await PDFDocument.load(await fundAgreementPdf());
  const inflated = Buffer.alloc(options.megabytes * 1024 * 1024, options.place === 'stream' ? 0 : 0x20);
  const packed = deflateSync(inflated, { level: 9 });
  if (options.place === 'page content') {
    const page = document.getPage(0);
    const contents = page.node.get(PDFName.of('Contents'));
    const array = contents instanceof PDFArray ? contents : document.context.obj([contents ?? []]);
    array.push(document.context.register(document.context.stream(packed, { Filter: 'FlateDecode' })));
    page.node.set(PDFName.of('Contents'), array);
  } else {
    const bomb =
      options.place === 'stream'
        ? document.context.stream(packed, { Filter: 'FlateDecode' })
        : document.context.stream(packed, { Type: 'ObjStm', N: 1, First: 0, Filter: 'FlateDecode' });
    document.catalog.set(PDFName.of('Extra'), document.context.register(bomb));
  }
  return document.save({ useObjectStreams: false });
}

export const FUND_AGREEMENT_MAPPING = `        agreement:
          pdf: fund-agreement.pdf
          fields:
            InvestorName: investor_details.legalName
            Commitment: subscription_amount.amount
            InvestorType: investor_details.investorType
            Accredited: accreditation.confirmed
          signatures:
            investor: { field: InvestorSignature }
            countersigner: { page: 2, x: 250, y: 525, width: 250, height: 40 }
`;

/** The example template (its source) with its sample text agreement replaced by `agreement` (YAML, indented). */
export function withAgreement(example: string, agreement: string = FUND_AGREEMENT_MAPPING): string {
  const changed = example.replace(/ {8}agreement:\n {10}text: \|\n[\s\S]*?\n(?=\nworkflow:)/, agreement);
  if (changed === example) throw new Error('the example template has no text agreement to replace');
  return changed;
}
