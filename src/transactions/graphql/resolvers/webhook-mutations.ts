import {
  createEndpoint,
  deleteEndpoint,
  eventTypeOf,
  resendDeliveries,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
} from '../../../webhooks/endpoints.ts';
import { mutation } from '../context.ts';
import { recordOfPayload } from './payload-records.ts';

/** The mutations on webhook endpoints and deliveries: each parses its input and calls one domain function. */
export const webhookMutations = {
  createWebhookEndpoint: mutation<{ url: string; description?: string | null; eventTypes: string[] }>(
    'createWebhookEndpoint',
    async (tx, input, { caller, webhooksAllowInsecure, webhookLookup }) => {
      const { endpoint, secret } = await createEndpoint(tx, {
        lookup: webhookLookup,
        organizationId: caller.organizationId,
        url: input.url,
        description: input.description ?? undefined,
        eventTypes: input.eventTypes.map(eventTypeOf),
        allowInsecure: webhooksAllowInsecure,
      });
      return { webhookEndpointId: endpoint.id, secret };
    },
  ),
  updateWebhookEndpoint: mutation<{
    id: string;
    url?: string | null;
    description?: string | null;
    eventTypes?: string[] | null;
  }>('updateWebhookEndpoint', async (tx, input, { caller, webhooksAllowInsecure, webhookLookup }) => {
    const endpoint = await updateEndpoint(tx, {
      lookup: webhookLookup,
      organizationId: caller.organizationId,
      endpointId: input.id,
      url: input.url ?? undefined,
      description: input.description,
      eventTypes: input.eventTypes?.map(eventTypeOf),
      allowInsecure: webhooksAllowInsecure,
    });
    return { webhookEndpointId: endpoint.id };
  }),
  disableWebhookEndpoint: mutation<{ id: string }>(
    'disableWebhookEndpoint',
    async (tx, input, { caller }) => {
      const endpoint = await setEndpointEnabled(tx, {
        organizationId: caller.organizationId,
        endpointId: input.id,
        enabled: false,
        reason: 'disabled through the API',
      });
      return { webhookEndpointId: endpoint.id };
    },
  ),
  enableWebhookEndpoint: mutation<{ id: string }>('enableWebhookEndpoint', async (tx, input, { caller }) => {
    const endpoint = await setEndpointEnabled(tx, {
      organizationId: caller.organizationId,
      endpointId: input.id,
      enabled: true,
    });
    return { webhookEndpointId: endpoint.id };
  }),
  deleteWebhookEndpoint: mutation<{ id: string }>('deleteWebhookEndpoint', async (tx, input, { caller }) => {
    await deleteEndpoint(tx, { organizationId: caller.organizationId, endpointId: input.id });
    return { deletedWebhookEndpointId: input.id };
  }),
  rotateWebhookEndpointSecret: mutation<{ id: string }>(
    'rotateWebhookEndpointSecret',
    async (tx, input, { caller }) => {
      const { endpoint, secret } = await rotateEndpointSecret(tx, {
        organizationId: caller.organizationId,
        endpointId: input.id,
      });
      return { webhookEndpointId: endpoint.id, secret };
    },
  ),
  resendWebhookDelivery: mutation<{ id: string }>('resendWebhookDelivery', async (tx, input, { caller }) => ({
    count: await resendDeliveries(tx, { organizationId: caller.organizationId, deliveryId: input.id }),
  })),
  resendFailedWebhookDeliveries: mutation<{ endpointId: string; since: Date }>(
    'resendFailedWebhookDeliveries',
    async (tx, input, { caller }) => ({
      count: await resendDeliveries(tx, {
        organizationId: caller.organizationId,
        endpointId: input.endpointId,
        since: input.since,
      }),
    }),
  ),
};

/** Payloads carry the endpoint's id; the endpoint is read after the change, with what the query selects. */
const endpointOfPayload = recordOfPayload('WebhookEndpoint', 'webhookEndpointId', 'webhook endpoint');

export const webhookPayloadResolvers = {
  WebhookEndpointPayload: { webhookEndpoint: endpointOfPayload },
  WebhookEndpointSecretPayload: { webhookEndpoint: endpointOfPayload },
};
