import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../../db/database.ts';
import { AppError, fileErrors } from '../../../errors.ts';
import { schemaOf } from '../../../http/contract-routes.ts';
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
const tooLarge = (what: string, maxBytes: number, field: string) =>
  new AppError(
    'FILE_TOO_LARGE',
    `The ${what} is larger than ${String(maxBytes / 1024 / 1024)} MB, the most an import takes.`,
    { field, maxBytes },
  );

/** A part's content, refused the moment it passes `maxBytes`. */
async function readPart(
  file: AsyncIterable<unknown> & { truncated?: boolean },
  maxBytes: number,
  refuse: () => AppError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of file) {
      size += (chunk as Buffer).byteLength;
      if (size > maxBytes) throw refuse();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw refuse();
    throw error;
  }
  if (file.truncated === true) throw refuse();
  return Buffer.concat(chunks, size);
}

/** The template file (part `file`, first) and the fund PDFs beside it (parts `attachment`), by their names. */
async function receiveImport(
  request: FastifyRequest,
): Promise<{ filename: string; source: string; files: Map<string, Uint8Array> }> {
  if (!request.isMultipart()) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      'send the template as multipart/form-data, in a part named "file"',
    );
  }
  let template: { filename: string; source: string } | undefined;
  const files = new Map<string, Uint8Array>();
  for await (const part of request.files({ limits: { fileSize: MAX_PDF_BYTES } })) {
    const name = checkFilename(part.filename);
    if (template === undefined) {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw new AppError('BAD_USER_INPUT', 'send the template first, in a part named "file"', {
          field: 'file',
        });
      }
      const content = await readPart(part.file, MAX_TEMPLATE_BYTES, () =>
        tooLarge('template file', MAX_TEMPLATE_BYTES, 'file'),
      );
      if (content.byteLength === 0) throw fileErrors.empty('file');
      template = { filename: name, source: content.toString('utf8') };
      continue;
    }
    if (part.fieldname !== 'attachment') {
      part.file.resume();
      throw new AppError('BAD_USER_INPUT', 'send each fund PDF in a part named "attachment"', {
        field: 'attachment',
      });
    }
    files.set(
      name,
      await readPart(part.file, MAX_PDF_BYTES, () => tooLarge(`PDF ${name}`, MAX_PDF_BYTES, 'attachment')),
    );
  }
  if (template === undefined) {
    throw new AppError('BAD_USER_INPUT', 'send the template in a part named "file"', { field: 'file' });
  }
  return { ...template, files };
}

/** Ends the connection with a 413 instead of reading the rest of a body nobody wants. */
function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  request.raw.unpipe();
  request.raw.pause();
  void reply.header('connection', 'close');
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
      method: entry.method,
      url: entry.url,
      schema: schemaOf(entry),
      config: { access: entry.access },
      handler: async (request, reply) => {
        const caller = signedInPerson(request, 'organization');
        let received;
        try {
          received = await receiveImport(request);
        } catch (error) {
          if (error instanceof AppError && error.status === 413) closeAfterAnswer(request, reply);
          if (error instanceof AppError) throw error;
          const { statusCode: status, code } = (error ?? {}) as { statusCode?: unknown; code?: unknown };
          if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
            throw new AppError(
              'PAYLOAD_TOO_LARGE',
              `send the template and at most ${String(MAX_ATTACHMENTS)} PDFs, each a file part`,
              { field: 'attachment' },
              { cause: error },
            );
          }
          if (typeof status === 'number' && status < 500) throw error;
          throw fileErrors.multipartInvalid(error);
        }
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
