import { randomUUID } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database, Transaction } from '../../db/database.ts';
import type { FileLinks } from '../../files/file-links.ts';
import type { FileStore } from '../../files/file-store.ts';
import { contractRoutes, schemaOf } from '../../http/contract-routes.ts';
import { receiveFilePart } from '../../http/multipart-file.ts';
import {
  latestOpenRevision,
  latestRevision,
  primaryRecipient,
  processOfDocument,
  processOfItem,
  revisionItems,
  saveItem,
  signDocument,
  submitRevision,
} from './actions.ts';
import { linkOrigin, recordRecipientAct, type RecipientAct } from '../history/activity.ts';
import { openRecipientLink, type OpenedLink } from './link.ts';
import type { RecipientNotices } from './notice-sender.ts';
import { recipientView } from './view.ts';
import { recordEsignAct } from '../esign/consent.ts';
import { attachUpload } from './attach-upload.ts';
import { recipientRoutes as contract } from './contract.ts';
import { documentJob, makeDocument } from '../documents/signed-document.ts';
import type { DocumentWorkers } from '../documents/document-workers.ts';
import {
  checkContent,
  checkFilename,
  DEFAULT_UPLOAD_MAX_BYTES,
  fileTooLarge,
  uploadFieldOf,
} from './uploads.ts';

export interface RecipientRoutesDeps {
  db: Database;
  files: FileStore;
  links: FileLinks;
  /** The largest file a recipient may upload; an upload field may allow less. @default DEFAULT_UPLOAD_MAX_BYTES */
  uploadMaxBytes?: number | undefined;
  /** Kicked after a signature or a submission, which may complete the transaction and queue the signed copy. */
  recipientNotices?: Pick<RecipientNotices, 'kick'> | undefined;
  /** The threads previews and signed copies are made in. @default the process's (documents/document-workers.ts) */
  documentWorkers?: DocumentWorkers | undefined;
}

/** A page opened again within this long is one `opened` in the transaction's activity, not one per load. */
const OPENED_ONCE_WITHIN_MS = 30 * 60_000;

/**
 * The recipient's JSON routes behind the recipient portal (`/r/<token>`), authorized by the transmit token in
 * the path instead of an API key (`/recipient/<token>/…`): the view, saving an item, uploading a file to an
 * item, a document's preview, consent to sign electronically (or its withdrawal, or paper), signing, submitting. An unknown token reads as not found; a replaced or expired
 * link says so (LINK_REVOKED, LINK_EXPIRED).
 */
export async function registerRecipientRoutes(
  app: FastifyInstance,
  deps: RecipientRoutesDeps,
): Promise<void> {
  const uploadMaxBytes = deps.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  const withLink = <Result>(
    token: string,
    work: (tx: Transaction, link: OpenedLink) => Promise<Result>,
    act?: RecipientAct,
  ) =>
    deps.db.transaction(async (tx) => {
      const link = await openRecipientLink(tx, token);
      const result = await work(tx, link);
      if (act) await recordRecipientAct(tx, link.subject, act);
      return result;
    });
  /** {@link withLink} for a change that may queue recipient mail: sent once it committed. */
  const withLinkThenMail = async <Result>(
    token: string,
    work: (tx: Transaction, link: OpenedLink) => Promise<Result>,
    act?: RecipientAct,
  ) => {
    const result = await withLink(token, work, act);
    deps.recipientNotices?.kick();
    return result;
  };
  const context = (request: FastifyRequest) => ({
    ipAddress: request.ip,
    userAgent: request.headers['user-agent'],
    requestId: request.id,
  });

  // The token in the path is the only credential, and each route opens its link in the database transaction of
  // its work (withLink): the caller is the request itself.
  const route = contractRoutes(app, (request) => request);

  // Added by hand until view.ts and saveItem type the JSON they pass through (a schema, answers) as objects, as
  // the contract does: `route` checks an answer's type against its entry's.
  app.route<{ Params: Static<typeof contract.view.params> }>({
    method: contract.view.method,
    url: contract.view.url,
    schema: schemaOf(contract.view),
    handler: (request) =>
      withLink(
        request.params.token,
        (tx, link) =>
          recipientView(tx, {
            transaction: link.subject,
            token: request.params.token,
            linkExpiresAt: link.expiresAt,
            links: deps.links,
            uploadMaxBytes,
          }),
        { action: 'opened', requestId: request.id, client: request, onceWithinMs: OPENED_ONCE_WITHIN_MS },
      ),
  });

  app.route<{ Params: Static<typeof contract.saveItem.params>; Body: Static<typeof contract.saveItem.body> }>(
    {
      method: contract.saveItem.method,
      url: contract.saveItem.url,
      schema: schemaOf(contract.saveItem),
      handler: (request) =>
        withLink(
          request.params.token,
          (tx, { subject }) =>
            saveItem(tx, subject, { vulcanKey: request.params.vulcanKey, data: request.body.data }),
          {
            action: 'saved',
            requestId: request.id,
            client: request,
            details: { vulcanKey: request.params.vulcanKey },
          },
        ),
    },
  );

  // Uploads read multipart bodies: only this route does, so the parser is registered in its own scope. The route
  // reads the body itself, and closes the connection after refusing a file too large, so it is added by hand.
  await app.register(async (scope) => {
    await scope.register(multipart, {
      // The name is kept as sent, so that a name holding a path is refused rather than quietly cut.
      preservePath: true,
      limits: { files: 1, fields: 0, parts: 1, fileSize: uploadMaxBytes, headerPairs: 100 },
    });
    scope.route<{ Params: Static<typeof contract.upload.params> }>({
      method: contract.upload.method,
      url: contract.upload.url,
      schema: schemaOf(contract.upload),
      handler: async (request, reply) => {
        const { token, vulcanKey, field } = request.params;
        // Checked before the file is read: a submitted revision or a wrong field refuses at once.
        const target = await withLink(token, async (tx, { subject }) => {
          const { process, item } = processOfItem(subject, vulcanKey);
          const upload = uploadFieldOf(item, field, uploadMaxBytes);
          await latestOpenRevision(tx, subject.id, process.key);
          return upload;
        });
        const { filename, content } = await receiveFilePart(request, reply, {
          partName: 'file',
          maxBytes: target.maxBytes,
          tooLarge: () => fileTooLarge(target),
          checkFilename,
        });
        const type = await checkContent(content, target);
        const storageKey = `uploads/${randomUUID()}.${type.extension}`;
        await deps.files.put(storageKey, content, { contentType: type.mimeType });
        try {
          const result = await withLink(
            token,
            (tx, { subject }) =>
              attachUpload(tx, subject, {
                vulcanKey,
                field,
                filename,
                type,
                storageKey,
                byteSize: content.byteLength,
              }),
            {
              action: 'uploaded',
              requestId: request.id,
              client: request,
              details: { vulcanKey, field, filename },
            },
          );
          return await reply.code(201).send(result);
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

  // A PDF, sent as it is: added by hand.
  app.route<{ Params: Static<typeof contract.preview.params> }>({
    method: contract.preview.method,
    url: contract.preview.url,
    schema: schemaOf(contract.preview),
    handler: async (request, reply) => {
      const job = await withLink(request.params.token, async (tx, { subject }) => {
        const { process, document } = processOfDocument(subject, request.params.documentKey);
        const revision = await latestRevision(tx, subject.id, process.key);
        const items = await revisionItems(tx, revision.revisionId);
        return documentJob(tx, {
          organizationId: subject.organizationId,
          transactionId: subject.id,
          process,
          document,
          items,
          signatures: [],
          preview: true,
        });
      });
      const pdf = await makeDocument(job, deps.documentWorkers);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${request.params.documentKey}-preview.pdf"`)
        .header('cache-control', 'private, no-store')
        .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'")
        .send(Buffer.from(pdf));
    },
  });

  route(contract.sign, (request, { params, body }) =>
    withLinkThenMail(
      params.token,
      async (tx, { subject }) =>
        signDocument(tx, subject, {
          signer: await primaryRecipient(tx, subject),
          documentKey: params.documentKey,
          signedName: body.signedName,
          consent: body.consent,
          context: context(request),
          files: deps.files,
          workers: deps.documentWorkers,
          openRevisionOnly: true,
        }),
      {
        action: 'signed',
        requestId: request.id,
        client: request,
        details: { documentKey: params.documentKey },
      },
    ),
  );

  // A withdrawal or a request for paper queues the organization's mail (esign/organization-notice.ts).
  route(contract.esign, (request, { params, body }) =>
    withLinkThenMail(params.token, async (tx, { subject }) =>
      recordEsignAct(tx, subject, {
        recipientId: (await primaryRecipient(tx, subject)).recipientId,
        act: body.act,
        message: body.message,
        context: context(request),
      }),
    ),
  );

  route(contract.submit, (request, { params }) =>
    withLinkThenMail(
      params.token,
      async (tx, { subject }) => {
        const signer = await primaryRecipient(tx, subject);
        return submitRevision(tx, subject, {
          processKey: params.processKey,
          actor: {
            type: 'recipient',
            id: signer.recipientId,
            requestId: request.id,
            origin: await linkOrigin(tx, subject.id, request),
          },
          requireComplete: { signer },
        });
      },
      {
        action: 'submitted',
        requestId: request.id,
        client: request,
        details: { processKey: params.processKey },
      },
    ),
  );
}
