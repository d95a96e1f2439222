import type { GraphQLResolveInfo } from 'graphql';
import { notFound } from '../../../errors.ts';
import {
  createEndpoint,
  deleteEndpoint,
  eventTypeOf,
  resendDeliveries,
  rotateEndpointSecret,
  setEndpointEnabled,
  updateEndpoint,
} from '../../../webhooks/endpoints.ts';
import { mutation, type Context } from '../context.ts';
import { findById, type Row } from '../read-model.ts';
import { treeOf } from '../selection.ts';

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

/** The endpoint of a mutation's payload, read after the change with the relations the query selects. */
async function endpointOfPayload(
  payload: { webhookEndpointId: string },
  _: unknown,
  { db, caller }: Context,
  info: GraphQLResolveInfo,
): Promise<Row> {
  const endpoint = await findById(
    db,
    'WebhookEndpoint',
    { id: payload.webhookEndpointId, organizationId: caller.organizationId },
    treeOf('WebhookEndpoint', info),
  );
  if (!endpoint) throw notFound('webhook endpoint', payload.webhookEndpointId);
  return endpoint;
}

/** Payloads carry the endpoint's id; the endpoint is read after the change, with what the query selects. */
export const webhookPayloadResolvers = {
  WebhookEndpointPayload: { webhookEndpoint: endpointOfPayload },
  WebhookEndpointSecretPayload: { webhookEndpoint: endpointOfPayload },
};
