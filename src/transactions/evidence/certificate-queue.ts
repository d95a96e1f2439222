import type { Transaction } from '../../db/database.ts';

/** The channel a commit that queued a certificate of completion notifies, and that the certificates' runs hear. */
export const CERTIFICATE_CHANNEL = 'portico_certificates';

/**
 * Queues a transaction's certificate of completion (docs/evidence.md, "The certificate of completion"), in the
 * database transaction that completes it: a due row of `transaction_certificates` (migration 0035), once however
 * often it is called. The same statement notifies {@link CERTIFICATE_CHANNEL}, which PostgreSQL delivers when that
 * transaction commits (never for a rollback), so that a node makes the certificate from the history as it stands
 * after everything the completing request wrote (an event it applied after completion, say), not before.
 */
export async function queueCertificate(
  tx: Transaction,
  transaction: { id: string; organizationId: string },
): Promise<void> {
  await tx.query(
    `with due as (
       insert into transaction_certificates (transaction_id, organization_id) values ($1, $2)
       on conflict (transaction_id) do nothing
       returning transaction_id)
     select pg_notify('${CERTIFICATE_CHANNEL}', '') from due`,
    [transaction.id, transaction.organizationId],
  );
}
