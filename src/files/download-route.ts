import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { AppError, downloadLinkRefused } from '../errors.ts';
import type { FileLinks } from './file-links.ts';
import type { FileStore } from './file-store.ts';

/** A signed link's request, as {@link SIGNED_LINK_SCHEMA} validates it. */
export interface SignedLinkRequest {
  Params: { id: string };
  Querystring: { expires?: string; signature?: string };
}

function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

/** What a signed link's route takes: the id in its path, its expiry and signature in its query. */
export const SIGNED_LINK_SCHEMA = {
  params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] },
  querystring: {
    type: 'object',
    properties: { expires: { type: 'string' }, signature: { type: 'string' } },
    required: ['expires', 'signature'],
  },
} as const;

/**
 * `GET /files/:id?expires=…&signature=…`: downloads a file through a signed link, without an API key.
 * A link that is forged, altered or expired gets 403; no file behind a genuine link gets 404.
 */
export function registerDownloadRoute(
  app: FastifyInstance,
  deps: { db: Queryable; links: FileLinks; store: FileStore },
) {
  app.get<SignedLinkRequest>(
    '/files/:id',
    {
      schema: SIGNED_LINK_SCHEMA,
    },
    async (request, reply) => {
      const { id } = request.params;
      const { expires = '', signature = '' } = request.query;
      if (!deps.links.verify(id, expires, signature)) {
        throw downloadLinkRefused();
      }
      const [file] = await deps.db.query<{ storageKey: string | null; mimeType: string; filename: string }>(
        `select storage_key as "storageKey", mime_type as "mimeType",
           coalesce(override_filename, original_filename) as filename from files where id = $1`,
        [id],
      );
      const content = file?.storageKey ? await deps.store.open(file.storageKey) : undefined;
      if (!file || !content) throw new AppError('NOT_FOUND', 'This file has no content yet.');
      return reply
        .header('content-type', file.mimeType)
        .header('content-length', content.size)
        .header('content-disposition', contentDisposition(file.filename))
        .header('cache-control', 'private, no-store')
        .send(content.stream);
    },
  );
}
