import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { Database } from '../../../db/database.ts';
import { AppError } from '../../../errors.ts';
import { handRoute } from '../../../http/contract-routes.ts';
import { receiveFilePart } from '../../../http/multipart-file.ts';
import { signedInPerson } from '../../../http/signed-in/person.ts';
import { documentWorkers, type DocumentWorkers } from '../../documents/document-workers.ts';
import { checkFilename } from '../../recipients/uploads.ts';
import { consoleRoutes as contract } from '../contract.ts';
import { closingDetail } from './closing-detail.ts';
import { draftTemplate, replaceClosingList } from './closings.ts';
import { MAX_TABLE_BYTES } from './table-file.ts';

/**
 * POST /closings/:id/list: a draft closing's list of investors, one CSV or XLSX file in a multipart part `file`
 * (pasted rows come as a CSV file), at most 10 MB. The file is read and every row checked in a document worker,
 * off the event loop; the list then takes the place of the one the closing had. The route reads the body itself,
 * so it is added by hand, in a scope of its own with the multipart parser.
 */
export function registerClosingListRoute(
  api: FastifyInstance,
  deps: { db: Database; documentWorkers?: DocumentWorkers | undefined },
): void {
  const entry = contract.uploadClosingList;
  void api.register(async (scope) => {
    await scope.register(multipart, {
      preservePath: true,
      limits: { files: 1, fields: 0, parts: 1, fileSize: MAX_TABLE_BYTES, headerPairs: 100 },
    });
    scope.route<{ Params: Static<typeof entry.params> }>({
      ...handRoute(entry),
      handler: async (request, reply) => {
        const caller = signedInPerson(request, 'organization');
        const where = { organizationId: caller.organization.id, closingId: request.params.id };
        // Checked before the file is read: another organization's closing, or one that ran, refuses at once.
        const definition = await draftTemplate(deps.db, where);
        const { content } = await receiveFilePart(request, reply, {
          partName: 'file',
          maxBytes: MAX_TABLE_BYTES,
          tooLarge: () =>
            new AppError(
              'FILE_TOO_LARGE',
              'The file is larger than 10 MB: split the closing into several files.',
              {
                maxBytes: MAX_TABLE_BYTES,
              },
            ),
          checkFilename,
        });
        const preflight = await (deps.documentWorkers ?? documentWorkers()).preflight(definition, content);
        await replaceClosingList(deps.db, { ...where, preflight });
        return reply.send({ closing: await closingDetail(deps.db, where) });
      },
    });
  });
}
