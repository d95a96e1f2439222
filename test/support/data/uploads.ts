import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A small real PDF with a line of text, like a scanned form exported to PDF. */
export async function samplePdf(text = 'Form W-9 (test)'): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage([612, 792]).drawText(text, { x: 72, y: 720, size: 14, font });
  return Buffer.from(await document.save());
}

/** The start of a Windows executable: what a ".pdf" that lies about itself holds. */
export const EXECUTABLE = Buffer.concat([
  Buffer.from('MZ'),
  Buffer.alloc(58),
  Buffer.from([0x80, 0, 0, 0]),
  Buffer.alloc(64),
  Buffer.from('PE\0\0'),
  Buffer.from([0x4c, 0x01]),
  Buffer.alloc(200),
]);

/** A file part as a browser's form sends it. */
export interface FilePart {
  filename: string;
  content: Buffer;
  /** What the browser claims; Portico reads the content instead. @default application/pdf */
  contentType?: string;
  /** The part's name. @default file */
  name?: string;
}

/** A multipart/form-data body holding one file part, and its headers. */
export function multipartBody(part: FilePart): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----portico${randomBytes(8).toString('hex')}`;
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="${part.name ?? 'file'}"; filename="${part.filename}"\r\n` +
    `Content-Type: ${part.contentType ?? 'application/pdf'}\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head, 'utf8'), part.content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** Uploads a file to an item's upload field through the recipient's link; answers status and body. */
export async function uploadThroughLink(
  app: FastifyInstance,
  options: { token: string; vulcanKey: string; field: string; file: FilePart },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read responses loosely and assert them
): Promise<{ status: number; body: any }> {
  const { payload, headers } = multipartBody(options.file);
  const response = await app.inject({
    method: 'POST',
    url: `/recipient/${options.token}/items/${options.vulcanKey}/files/${options.field}`,
    payload,
    headers,
  });
  return { status: response.statusCode, body: response.json() };
}

/**
 * Answers every item of the example template through a recipient's link, as the portal saves them: the investor's
 * details, their W-9 ("W-9 Grace Hopper.pdf") uploaded, income accreditation and $250,000. What is left is the
 * signature. Throws on any refusal.
 */
export async function answerThroughLink(
  app: FastifyInstance,
  token: string,
  investor: { legalName: string; email: string },
): Promise<void> {
  const save = async (vulcanKey: string, data: Record<string, unknown>) => {
    const response = await app.inject({
      method: 'PUT',
      url: `/recipient/${token}/items/${vulcanKey}`,
      payload: { data },
    });
    if (response.statusCode >= 300) throw new Error(`saving ${vulcanKey}: ${response.body}`);
  };
  await save('investor_details', { ...investor, address: '1 Navy Way, Arlington, VA 22201' });
  const upload = await uploadThroughLink(app, {
    token,
    vulcanKey: 'tax_forms',
    field: 'w9FileId',
    file: { filename: 'W-9 Grace Hopper.pdf', content: await samplePdf('Form W-9: Grace Hopper') },
  });
  if (upload.status !== 201) throw new Error(`uploading the W-9: ${JSON.stringify(upload.body)}`);
  await save('tax_forms', { taxResidency: 'US', usPerson: true, w9FileId: upload.body.file.id });
  await save('accreditation', { basis: ['income'], confirmed: true });
  await save('subscription_amount', { amount: { currency: 'USD', amount: 25_000_000 } });
}
