import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Database } from '../../../db/database.ts';
import { notFound } from '../../../errors.ts';
import type { FileStore } from '../../../files/file-store.ts';
import { handRoute } from '../../../http/contract-routes.ts';
import { receiveFilePart } from '../../../http/multipart-file.ts';
import { signedInPerson } from '../../../http/signed-in/person.ts';
import { checkContent, checkFilename, fileTooLarge, type DetectedType } from '../../recipients/uploads.ts';
import { PAPER_FORM_KEY } from '../../transitions.ts';
import { consoleRoutes as contract } from '../contract.ts';

/**
 * Paper forms: what a recipient signed on paper (by post, or a scan), uploaded by staff so that they can run the
 * recipient's event on their behalf (`runEvent`'s `onBehalf`, transitions.ts). A form is a PDF, read from its
 * content; it is kept among the transaction's files, which is where it shows and where its download link comes
 * from.
 */

/** What a paper form may be, by its content. */
const PAPER_FORM = { field: 'file', accept: ['application/pdf'] } as const;

/** A paper form as the route answers it. */
export type PaperForm = Static<(typeof contract.uploadPaperForm.response)[201]>['paperForm'];

/**
 * Keeps a stored PDF as a paper form of a transaction of the organization: its file row and its link to the
 * transaction. NOT_FOUND when the transaction is not the organization's.
 */
async function keepPaperForm(
  db: Database,
  options: {
    organizationId: string;
    transactionId: string;
    filename: string;
    type: DetectedType;
    storageKey: string;
    byteSize: number;
  },
): Promise<PaperForm> {
  return db.transaction(async (tx) => {
    const [file] = await tx.query<{ id: string }>(
      `with file as (
         insert into files (organization_id, mime_type, extension, original_filename, storage_key, byte_size, uploaded_at)
         select t.organization_id, $3, $4, $5, $6, $7, clock_timestamp() from transactions t
         where t.id = $1 and t.organization_id = $2
         returning id, organization_id)
       insert into transaction_files (organization_id, transaction_id, file_id, vulcan_key)
       select organization_id, $1, id, $8 from file returning file_id as id`,
      [
        options.transactionId,
        options.organizationId,
        options.type.mimeType,
        options.type.extension,
        options.filename,
        options.storageKey,
        options.byteSize,
        PAPER_FORM_KEY,
      ],
    );
    if (!file) throw notFound('transaction', options.transactionId);
    return { id: file.id, name: options.filename, byteSize: options.byteSize };
  });
}

/**
 * POST /transactions/:id/paper-forms: one PDF in a multipart part `file`, at most `maxBytes`, refused as a
 * recipient's upload is (FILE_TYPE_NOT_ALLOWED for what is not a PDF, whatever its name; PAYLOAD_TOO_LARGE at the
 * limit; FILENAME_INVALID). The route reads the body itself, so it is added by hand, in a scope of its own with
 * the multipart parser.
 */
export function registerPaperFormRoute(
  api: FastifyInstance,
  deps: { db: Database; files: FileStore; maxBytes: number },
): void {
  const entry = contract.uploadPaperForm;
  void api.register(async (scope) => {
    await scope.register(multipart, {
      preservePath: true,
      limits: { files: 1, fields: 0, parts: 1, fileSize: deps.maxBytes, headerPairs: 100 },
    });
    scope.route<{ Params: Static<typeof entry.params> }>({
      ...handRoute(entry),
      handler: async (request, reply) => {
        const caller = signedInPerson(request, 'organization');
        const where = { organizationId: caller.organization.id, transactionId: request.params.id };
        // Checked before the file is read: another organization's transaction refuses at once.
        const [exists] = await deps.db.query(
          `select 1 from transactions where id = $1 and organization_id = $2`,
          [where.transactionId, where.organizationId],
        );
        if (!exists) throw notFound('transaction', where.transactionId);
        const target = { ...PAPER_FORM, maxBytes: deps.maxBytes };
        const { filename, content } = await receiveFilePart(request, reply, {
          partName: PAPER_FORM.field,
          maxBytes: target.maxBytes,
          tooLarge: () => fileTooLarge(target),
          checkFilename,
        });
        const type = await checkContent(content, target);
        const storageKey = `paper-forms/${randomUUID()}.${type.extension}`;
        await deps.files.put(storageKey, content, { contentType: type.mimeType });
        try {
          const paperForm = await keepPaperForm(deps.db, {
            ...where,
            filename,
            type,
            storageKey,
            byteSize: content.byteLength,
          });
          return await reply.code(201).send({ paperForm });
        } catch (error) {
          // Nothing half-written: without its rows, the stored object goes too.
          await deps.files.delete(storageKey).catch((cleanup: unknown) => {
            request.log.warn({ err: cleanup, storageKey }, 'could not remove the object of a failed upload');
          });
          throw error;
        }
      },
    });
  });
}
