import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Database, Transaction } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { FileStore } from '../files/local-file-store.ts';
import { isUuid } from '../validation/uuid.ts';
import { primaryRecipient, saveItem, signDocument, submitRevision } from './recipient-actions.ts';
import { recipientView } from './recipient-view.ts';
import { lockTransaction, type LockedTransaction } from './transitions.ts';

const ItemBody = Type.Object(
  { data: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);
const SignatureBody = Type.Object(
  { signedName: Type.String({ maxLength: 200 }), consent: Type.Boolean() },
  { additionalProperties: false },
);

/**
 * The recipient's JSON routes, authorized by the transmit token in the path instead of an API key
 * (`/recipient/<token>/…`). A wrong or unknown token reads as not found. A web page builds on them later.
 */
export function registerRecipientRoutes(
  app: FastifyInstance,
  deps: { db: Database; files: FileStore },
): void {
  const withTransaction = <Result>(
    token: string,
    work: (tx: Transaction, subject: LockedTransaction) => Promise<Result>,
  ): Promise<Result> =>
    deps.db.transaction(async (tx) => {
      const subject = isUuid(token) ? await lockTransaction(tx, { transmitToken: token }) : undefined;
      if (!subject) throw new AppError('NOT_FOUND', 'This link does not open any transaction.');
      return work(tx, subject);
    });
  const recipientActor = async (tx: Transaction, subject: LockedTransaction) => {
    const signer = await primaryRecipient(tx, subject);
    return { signer, actor: { type: 'recipient' as const, id: signer.recipientId } };
  };
  const context = (request: FastifyRequest) => ({
    ipAddress: request.ip,
    userAgent: request.headers['user-agent'],
  });

  app.get<{ Params: { token: string } }>('/recipient/:token', (request) =>
    withTransaction(request.params.token, (tx, subject) => recipientView(tx, { transaction: subject })),
  );

  app.put<{ Params: { token: string; vulcanKey: string }; Body: Static<typeof ItemBody> }>(
    '/recipient/:token/items/:vulcanKey',
    { schema: { body: ItemBody } },
    (request) =>
      withTransaction(request.params.token, (tx, subject) =>
        saveItem(tx, subject, { vulcanKey: request.params.vulcanKey, data: request.body.data }),
      ),
  );

  app.post<{ Params: { token: string; documentKey: string }; Body: Static<typeof SignatureBody> }>(
    '/recipient/:token/documents/:documentKey/signatures',
    { schema: { body: SignatureBody } },
    (request) =>
      withTransaction(request.params.token, async (tx, subject) => {
        const { signer } = await recipientActor(tx, subject);
        return signDocument(tx, subject, {
          signer,
          documentKey: request.params.documentKey,
          signedName: request.body.signedName,
          consent: request.body.consent,
          context: context(request),
          files: deps.files,
        });
      }),
  );

  app.post<{ Params: { token: string; processKey: string } }>(
    '/recipient/:token/processes/:processKey/submit',
    (request) =>
      withTransaction(request.params.token, async (tx, subject) => {
        const { actor } = await recipientActor(tx, subject);
        return submitRevision(tx, subject, { processKey: request.params.processKey, actor });
      }),
  );
}
