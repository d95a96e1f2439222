import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface SignedDocumentContent {
  title: string;
  transactionId: string;
  /** The data of the items of the signed revision, by vulcanKey. */
  items: { vulcanKey: string; data: unknown }[];
  signatures: { role: string; signedName: string; signedAt: Date }[];
}

function lines(value: unknown, indent = ''): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
      inner !== null && typeof inner === 'object'
        ? [`${indent}${key}:`, ...lines(inner, `${indent}  `)]
        : [`${indent}${key}: ${String(inner)}`],
    );
  }
  return [`${indent}${JSON.stringify(value)}`];
}

/** A PDF of a signed document: the data it was signed on, and who signed it when. */
export async function renderSignedDocument(content: SignedDocumentContent): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  document.setTitle(content.title);
  let page = document.addPage([612, 792]);
  let y = 720;
  const write = (text: string, options: { size?: number; strong?: boolean } = {}) => {
    if (y < 72) {
      page = document.addPage([612, 792]);
      y = 720;
    }
    // The standard fonts encode WinAnsi only: anything else is shown as '?'.
    const printable = text.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
    page.drawText(printable, { x: 72, y, size: options.size ?? 11, font: options.strong ? bold : font });
    y -= (options.size ?? 11) + 7;
  };
  write(content.title, { size: 18, strong: true });
  write(`Transaction ${content.transactionId}`);
  y -= 8;
  for (const item of content.items) {
    write(item.vulcanKey, { strong: true });
    for (const line of lines(item.data, '  ')) write(line);
  }
  y -= 8;
  write('Signatures', { strong: true });
  for (const signature of content.signatures) {
    write(`  ${signature.role}: ${signature.signedName}, ${signature.signedAt.toISOString()}`);
  }
  return document.save();
}
