import type { Queryable } from '../db/database.ts';
import { primaryRecipient } from './recipient-actions.ts';
import type { LockedTransaction } from './transitions.ts';

/** What the primary recipient sees of a transaction through its link (`GET /recipient/:token`). */
export interface RecipientView {
  transaction: { id: string; state: string };
  recipient: { role: string };
  processes: {
    key: string;
    title: string;
    revision: { number: number; committedAt: Date | null };
    items: {
      vulcanKey: string;
      title: string;
      schema: unknown;
      data: unknown;
      completionPercentage: number;
    }[];
    documents: {
      key: string;
      title: string;
      signedBy: string[];
      signatures: SignatureShown[];
    }[];
  }[];
}

interface SignatureShown {
  documentKey: string;
  role: string;
  signedName: string;
  signedAt: string;
}

/**
 * The recipient's view of a transaction: its state, the recipient's role, and each process's latest revision
 * with its items (as the template orders them, with their data and completion) and its documents with the
 * signatures made on that revision.
 */
export async function recipientView(
  tx: Queryable,
  options: { transaction: LockedTransaction },
): Promise<RecipientView> {
  const subject = options.transaction;
  const signer = await primaryRecipient(tx, subject);
  const rows = await tx.query<{
    key: string;
    number: number;
    committedAt: Date | null;
    items: Record<string, { data: unknown; completionPercentage: number }>;
    signatures: SignatureShown[];
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
}
