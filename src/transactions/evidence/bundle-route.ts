import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { AppError, downloadLinkRefused } from '../../errors.ts';
import { SIGNED_LINK_SCHEMA, type SignedLinkRequest } from '../../files/download-route.ts';
import type { FileLinks } from '../../files/file-links.ts';
import type { FileStore } from '../../files/file-store.ts';
import { planEvidenceBundle, writeEvidenceBundle, type EvidenceScope } from './bundle.ts';

/**
 * How an evidence bundle leaves Portico over HTTP: the console's buttons (a transaction's, a closing's) and the
 * signed link the API gives (`genEvidenceBundleLink`) all plan the bundle first, so that a refusal (another
 * organization's transaction, a closing that is not there) is an ordinary error answer, then stream the zip as
 * it is written: a closing of hundreds of investors is never held in memory.
 */

/** What a bundle is made from. */
export interface BundleDeps {
  db: Database;
  files: FileStore;
}

/** An attachment's header for a name the bundle chose (ASCII fallback, and the UTF-8 name). */
function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** Plans the bundle of `scope` and streams it as the answer (a HEAD gets the headers alone). */
export async function sendEvidenceBundle(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: BundleDeps,
  scope: EvidenceScope,
): Promise<FastifyReply> {
  const plan = await planEvidenceBundle(deps.db, scope);
  const headers = {
    'content-type': 'application/zip',
    'content-disposition': attachment(plan.fileName),
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  };
  if (request.method === 'HEAD') return reply.headers(headers).send();
  const body = new PassThrough();
  writeEvidenceBundle(deps, plan, body).catch((error: unknown) => {
    // The head is sent: a broken stream is all the reader can be told (no end of the zip, a failed download).
    request.log.error({ err: error }, 'the evidence bundle failed while streaming');
    body.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return reply.headers(headers).send(body);
}

/**
 * `GET /evidence/:id?expires=…&signature=…`: a transaction's evidence bundle through the signed link the API
 * gave (`genEvidenceBundleLink`), without an API key, as files are downloaded. A link that is forged, altered or
 * expired gets 403.
 */
export function registerEvidenceLinkRoute(
  app: FastifyInstance,
  deps: BundleDeps & { links: FileLinks },
): void {
  app.route<SignedLinkRequest>({
    method: ['GET', 'HEAD'],
    url: '/evidence/:id',
    schema: SIGNED_LINK_SCHEMA,
    handler: async (request, reply) => {
      const { id } = request.params;
      const { expires = '', signature = '' } = request.query;
      if (!deps.links.verifyBundle(id, expires, signature)) {
        throw downloadLinkRefused();
      }
      const [owner] = await deps.db.query<{ organizationId: string }>(
        `select organization_id as "organizationId" from transactions where id = $1`,
        [id],
      );
      if (!owner) throw new AppError('NOT_FOUND', 'This transaction no longer exists.');
      return sendEvidenceBundle(request, reply, deps, {
        organizationId: owner.organizationId,
        transactionId: id,
      });
    },
  });
}
