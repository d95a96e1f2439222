// Documents sealed for the evidence tests: a folder of the file's own for their files, a one-page document sealed
// by a credential, and the job of a signed document as the document workers make it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll } from 'vitest';
import type { RenderJob } from '../../../src/transactions/documents/document-pdf.ts';
import { sealPdf } from '../../../src/transactions/evidence/pades.ts';
import type { SealCredential } from '../../../src/transactions/evidence/seal-credential.ts';

/** A folder made before the calling file's tests and removed after them: read `path()` inside tests. */
export function useTempFolder(prefix: string): { path: () => string } {
  let folder: string | undefined;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });
  return {
    path: () => {
      if (folder === undefined) throw new Error('the folder is made before the tests');
      return folder;
    },
  };
}

/** A one-page document sealed by `credential`. */
export async function sealedDocument(credential: SealCredential): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.addPage().drawText('Subscription agreement, signed', { x: 50, y: 700 });
  return sealPdf(pdf, credential, { reason: 'Completed in Portico', signingTime: new Date() });
}

/** A document signed by its investor, as the document workers are asked to make it (and seal it). */
export const signedJob: RenderJob = {
  organizationId: '00000000-0000-4000-8000-000000000002',
  transactionId: '00000000-0000-4000-8000-000000000001',
  name: 'Subscription agreement',
  preview: false,
  signedBy: ['investor'],
  signatures: [{ role: 'investor', signedName: 'Jane Q. Doe', signedAt: new Date('2026-11-28T12:00:00Z') }],
  sections: [],
};
