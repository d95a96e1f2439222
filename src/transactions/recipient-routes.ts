import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Database, Transaction } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { FileStore } from '../files/local-file-store.ts';
import { lockTransaction, type LockedTransaction } from './lifecycle.ts';
import { primaryRecipient, saveItem, signDocument, submitRevision } from './recipient-actions.ts';

const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
      const subject = TOKEN.test(token) ? await lockTransaction(tx, { transmitToken: token }) : undefined;
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
    withTransaction(request.params.token, async (tx, subject) => {
      const { signer } = await recipientActor(tx, subject);
      const rows = await tx.query<{
        key: string;
        number: number;
        committedAt: Date | null;
        items: Record<string, { data: unknown; completionPercentage: number }>;
        signatures: { documentKey: string; role: string; signedName: string; signedAt: string }[];
      }>(
        `select p.key, r.number, r.committed_at as "committedAt",
           (select coalesce(jsonb_object_agg(i.vulcan_key, jsonb_build_object('data', i.data, 'completionPercentage', i.completion_percentage)), '{}')
            from transaction_items i where i.transaction_process_revision_id = r.id) as items,
           (select coalesce(jsonb_agg(jsonb_build_object('documentKey', c.document_key, 'role', rc.vulcan_key,
                     'signedName', s.signed_name, 'signedAt', s.signed_at) order by s.signed_at), '[]')
            from transaction_signature_containers c
            join transaction_signatures s on s.transaction_signature_container_id = c.id and s.state = 'signed'
            join transaction_recipients rc on rc.id = s.transaction_recipient_id
            where c.transaction_process_id = p.id and c.state <> 'voided' and c.created_at >= r.created_at) as signatures
         from transaction_processes p
         join lateral (select * from transaction_process_revisions where transaction_process_id = p.id
                       order by number desc limit 1) r on true
         where p.transaction_id = $1 order by p.created_at, p.sequence`,
        [subject.id],
      );
      return {
        transaction: { id: subject.id, state: subject.state },
        recipient: { role: signer.role },
        processes: rows.map((row) => {
          const definition = subject.definition.processes.find((p) => p.key === row.key);
          return {
            key: row.key,
            title: definition?.title ?? row.key,
            revision: { number: row.number, committedAt: row.committedAt },
            items: (definition?.items ?? []).map((item) => ({
              vulcanKey: item.vulcanKey,
              title: item.title ?? item.vulcanKey,
              schema: item.schema,
              data: row.items[item.vulcanKey]?.data ?? {},
              completionPercentage: row.items[item.vulcanKey]?.completionPercentage ?? 0,
            })),
            documents: (definition?.documents ?? []).map((document) => ({
              key: document.key,
              title: document.title ?? document.key,
              signedBy: document.signedBy,
              signatures: row.signatures.filter((s) => s.documentKey === document.key),
            })),
          };
        }),
      };
    }),
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
