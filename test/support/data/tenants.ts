import type { Database } from '../../../src/db/database.ts';
import type { FileStore } from '../../../src/files/file-store.ts';
import { createApiKey } from '../../../src/keys/api-key-store.ts';
import { fanOutEvents } from '../../../src/webhooks/delivery.ts';
import { createEndpoint } from '../../../src/webhooks/endpoints.ts';
import { organizationStory } from './stories.ts';

/**
 * A Transactions tenant of its own for one test: an organization with one complete transaction, a key, and the id
 * of one record of every kind a root field reads, so a test can name each of them (or another tenant's).
 */
export interface TransactionsTenant {
  organizationId: string;
  apiKey: string;
  /** A production key (sk_live_) of the same organization, for the other-environment case. */
  productionKey: string;
  ids: {
    organization: string;
    template: string;
    senderEntity: string;
    transaction: string;
    transactionRecipient: string;
    transactionItem: string;
    transactionFile: string;
    file: string;
    transactionSignatureFile: string;
    webhookEndpoint: string;
    webhookDelivery: string;
  };
}

/** The id of the oldest row of `table` that belongs to the organization. `table` is a name from this file. */
async function firstId(db: Database, table: string, organizationId: string): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `select id from ${table} where organization_id = $1 order by created_at, sequence limit 1`,
    [organizationId],
  );
  if (!row) throw new Error(`the organization has no row in ${table}`);
  return row.id;
}

/**
 * Makes a new organization with one complete transaction (`organizationStory`), a webhook endpoint and a failed
 * delivery to it, and reads the ids of its records. The delivery comes from the organization's own events; fanning out dispatches the pending
 * events of every organization, which only matters to tests that count dispatches (and those make their own).
 */
export async function createTransactionsTenant(db: Database, files: FileStore): Promise<TransactionsTenant> {
  const story = await organizationStory(db, files);
  const { endpoint } = await createEndpoint(db, {
    organizationId: story.organizationId,
    url: 'http://127.0.0.1:9/hooks',
    eventTypes: ['transaction.completed', 'transaction.state_changed'],
    allowInsecure: true,
  });
  await fanOutEvents(db);
  const { key: productionKey } = await createApiKey(db, {
    organizationId: story.organizationId,
    environment: 'production',
  });
  const first = (table: string) => firstId(db, table, story.organizationId);
  const webhookDelivery = await first('webhook_deliveries');
  // Failed, so that resending the endpoint's failed deliveries finds one.
  await db.query("update webhook_deliveries set status = 'failed' where id = $1", [webhookDelivery]);
  return {
    organizationId: story.organizationId,
    apiKey: story.apiKey,
    productionKey,
    ids: {
      organization: story.organizationId,
      template: story.templateId,
      senderEntity: story.senderEntityId,
      transaction: story.transactionId,
      transactionRecipient: await first('transaction_recipients'),
      transactionItem: await first('transaction_items'),
      transactionFile: await first('transaction_files'),
      file: await first('files'),
      transactionSignatureFile: await first('transaction_signature_files'),
      webhookEndpoint: endpoint.id,
      webhookDelivery,
    },
  };
}
