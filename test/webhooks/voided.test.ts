import { describe, expect, it } from 'vitest';
import { fanOutEvents } from '../../src/webhooks/delivery.ts';
import { fakeLookupAll } from '../support/peers/dns.ts';
import { CREATE_TRANSACTION, graphql, transactionInput, triggerEvent } from '../support/data/transactions.ts';
import { useTransactionsSuite } from '../support/data/transactions-suite.ts';

const suite = useTransactionsSuite({
  webhookLookup: fakeLookupAll({ 'hooks.example.com': ['93.184.215.14'] }),
});

describe('the transaction.voided webhook', () => {
  it('goes to an endpoint that asked for it, with the reason and who voided, and to no other', async () => {
    const tenant = await suite.emptyTenant();
    const endpoints: Record<string, string> = {};
    for (const eventType of ['TRANSACTION_VOIDED', 'TRANSACTION_COMPLETED']) {
      const { body } = await graphql(
        suite.app,
        tenant.apiKey,
        `
          mutation ($input: CreateWebhookEndpointInput!) {
            createWebhookEndpoint(input: $input) {
              webhookEndpoint {
                id
                eventTypes
              }
            }
          }
        `,
        { input: { url: 'https://hooks.example.com/portico', eventTypes: [eventType] } },
      );
      expect(body.errors).toBeUndefined();
      expect(body.data?.createWebhookEndpoint.webhookEndpoint.eventTypes).toEqual([eventType]);
      endpoints[eventType] = body.data?.createWebhookEndpoint.webhookEndpoint.id as string;
    }
    const created = await graphql(suite.app, tenant.apiKey, CREATE_TRANSACTION, {
      input: transactionInput(tenant),
    });
    const transactionId = created.body.data?.createTransaction.transactionId as string;
    const voided = await triggerEvent(suite.app, tenant.apiKey, {
      transactionId,
      eventKey: 'void',
      message: 'Sent to the wrong investor.',
    });
    expect(voided.body.errors).toBeUndefined();

    await fanOutEvents(suite.db);
    const deliveries = await suite.db.query<{ endpointId: string; eventType: string; body: string }>(
      `select endpoint_id as "endpointId", event_type as "eventType", body from webhook_deliveries
       where organization_id = $1`,
      [tenant.organizationId],
    );
    expect(deliveries.map((delivery) => [delivery.endpointId, delivery.eventType])).toEqual([
      [endpoints.TRANSACTION_VOIDED, 'transaction.voided'],
    ]);
    expect(JSON.parse(deliveries[0]?.body ?? '{}')).toMatchObject({
      type: 'transaction.voided',
      data: {
        transactionId,
        previousState: 'draft',
        state: 'voided',
        reason: 'Sent to the wrong investor.',
        actorType: 'API_KEY',
      },
    });
  });
});
