import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { AppError, fileErrors } from '../../../errors.ts';
import { handRoute } from '../../../http/contract-routes.ts';
import { receiveFileWithOthers } from '../../../http/multipart-file.ts';
import { signedInPerson } from '../../../http/signed-in/person.ts';
import { checkFilename } from '../../recipients/uploads.ts';
import { MAX_AGREEMENT_MEGABYTES } from '../../templates/schema.ts';
import { importTemplateSource } from '../../templates/templates.ts';
import { consoleRoutes as contract } from '../contract.ts';

/** The largest template file the console takes: 1 MB (the example template is 20 KB). */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;
/** The largest fund PDF a template may carry (templates/schema.ts). */
const MAX_PDF_BYTES = MAX_AGREEMENT_MEGABYTES * 1024 * 1024;
/** The most fund PDFs one import sends beside its template. */
const MAX_ATTACHMENTS = 10;

/** FILE_TOO_LARGE for a part past its limit, in the words of what it is. */
const tooLarge = (what: string, maxBytes: number, field: string) => () =>
  new AppError(
    'FILE_TOO_LARGE',
    `The ${what} is larger than ${String(maxBytes / 1024 / 1024)} MB, the most an import takes.`,
    { field, maxBytes },
  );

/** The template file (part `file`, first) and the fund PDFs beside it (parts `attachment`), by their names. */
async function receiveImport(request: FastifyRequest, reply: FastifyReply) {
  const { file, beside } = await receiveFileWithOthers(
    request,
    reply,
    {
      partName: 'file',
      maxBytes: MAX_TEMPLATE_BYTES,
      tooLarge: tooLarge('template file', MAX_TEMPLATE_BYTES, 'file'),
      checkFilename,
    },
    {
      partName: 'attachment',
      maxBytes: MAX_PDF_BYTES,
      maxCount: MAX_ATTACHMENTS,
      tooLarge: tooLarge('fund PDF', MAX_PDF_BYTES, 'attachment'),
      checkFilename,
    },
  );
  if (file.content.byteLength === 0) throw fileErrors.empty('file');
  return {
    filename: file.filename,
    source: file.content.toString('utf8'),
    files: new Map<string, Uint8Array>(beside.map((pdf) => [pdf.filename, pdf.content])),
  };
}

/**
 * POST /templates: an admin's import, a multipart body with the template (part `file`, YAML or JSON, at most
 * 1 MB; pasted text comes as a file) and the fund PDFs its agreements name (parts `attachment`, at most 10 MB
 * each), checked and stored as the CLI's `portico templates import` does: a refusal lists every problem with its
 * line (`details.problems`). The route reads the body itself, so it is added by hand in a scope of its own with
 * the multipart parser.
 */
export function registerTemplateImportRoute(api: FastifyInstance, deps: { db: Database }): void {
  const entry = contract.importTemplate;
  void api.register(async (scope) => {
    await scope.register(multipart, {
      preservePath: true,
      limits: {
        files: MAX_ATTACHMENTS + 1,
        fields: 0,
        parts: MAX_ATTACHMENTS + 1,
        fileSize: MAX_PDF_BYTES,
        headerPairs: 100,
      },
    });
    scope.route({
      ...handRoute(entry),
      handler: async (request, reply) => {
        const caller = signedInPerson(request, 'organization');
        const received = await receiveImport(request, reply);
        const template = await importTemplateSource(deps.db, {
          organizationId: caller.organization.id,
          source: received.source,
          filename: received.filename,
          files: received.files,
        });
        return reply.send({ template });
      },
    });
  });
}
