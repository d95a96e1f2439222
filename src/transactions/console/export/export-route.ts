import { PassThrough } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { handRoute } from '../../../http/contract-routes.ts';
import { signedInPerson } from '../../../http/signed-in/person.ts';
import { consoleRoutes as contract } from '../contract.ts';
import {
  EXPORT_CONTENT_TYPES,
  exportFileName,
  planQueueExport,
  writeQueueExport,
  type ExportFormat,
} from './export.ts';

/**
 * GET /queue/export: the work queue as filtered (the `queue` route's filters, no pages) as a CSV or XLSX
 * download (export.ts). The export is checked and counted first, so that a refusal (a filter out of its limits,
 * too many rows) is an ordinary error answer; then the file streams as it is read. The route answers with a
 * stream of its own, so it is added by hand, with the access its contract entry declares.
 */
export function registerExportRoute(api: FastifyInstance, deps: { db: Database }): void {
  const entry = contract.exportQueue;
  api.route<{ Querystring: Static<typeof entry.querystring> }>({
    ...handRoute(entry),
    handler: async (request, reply) => {
      const caller = signedInPerson(request, 'organization');
      const { format: asked, template, sender, closing, ...filters } = request.query;
      const format: ExportFormat = asked ?? 'csv';
      const plan = await planQueueExport(deps.db, {
        organizationId: caller.organization.id,
        filters: { ...filters, templateKey: template, senderEntityId: sender, closingId: closing },
      });
      const headers = {
        'content-type': EXPORT_CONTENT_TYPES[format],
        'content-disposition': `attachment; filename="${exportFileName(format)}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      };
      // A HEAD asks for the headers alone: the export, checked and counted above, is not written.
      if (request.method === 'HEAD') return reply.headers(headers).send();
      const body = new PassThrough();
      writeQueueExport(deps.db, plan, { format, output: body }).catch((error: unknown) => {
        // The head is sent: a broken stream is all the reader can be told (no last chunk, a failed download).
        request.log.error({ err: error }, 'the export of the queue failed while streaming');
        body.destroy(error instanceof Error ? error : new Error(String(error)));
      });
      return reply.headers(headers).send(body);
    },
  });
}
