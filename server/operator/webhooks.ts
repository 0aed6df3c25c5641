/**
 * Procedures for outbound webhooks: endpoints (webhooks/endpoints.ts) and
 * deliveries (webhooks/deliveries.ts). Reading needs any role in the
 * organization owning the environment; registering or changing an endpoint,
 * rotating its secret and resending need a developer (access.ts). The
 * signing secret is only in the answers of createEndpoint and rotateSecret.
 */
import { countFailed, getDelivery, deliveryEnvironmentId, listDeliveries, resendDelivery, resendFailed } from '../webhooks/deliveries';
import { createEndpoint, listEndpoints, loadEndpoint, rotateEndpointSecret, updateEndpoint } from '../webhooks/endpoints';
import { sendTestEvent } from '../webhooks/test-event';
import { notFound } from '../domain/refusal';
import { environmentAccess, projectAccess, recordAccess, visibleOrganizations, type Need } from './access';
import {
  CreateEndpointInput,
  DeliveryIdInput,
  ListDeliveriesInput,
  ListEndpointsInput,
  ResendFailedInput,
  RotateSecretInput,
  SendTestEventInput,
  UpdateEndpointInput,
} from '../contract/operator/webhooks';
import type { OperatorContext } from './procedure';
import { operatorProcedure, operatorT as t } from './procedure';
import { endpointBefore } from '../domain/audit/snapshots';
import { audited, scopeOf } from './audited';

/** The endpoint, once the caller may act on it as `need` says (a foreign one is `not_found`, like a missing one). */
async function endpointAccess(ctx: OperatorContext, endpointId: string, need: Need) {
  const endpoint = await loadEndpoint(ctx.em, endpointId);
  await recordAccess(ctx, endpoint.environment.id, need, notFound('Webhook endpoint', endpointId));
  return endpoint;
}

async function deliveryAccess(ctx: OperatorContext, deliveryId: string, need: Need) {
  await recordAccess(ctx, await deliveryEnvironmentId(ctx.em, deliveryId), need, notFound('Webhook delivery', deliveryId));
}

/**
 * A filter naming something that does not exist, or that the caller may not
 * see, is a mistake to report, not an empty list. Whatever the filter, a
 * member only ever lists their own organizations' records.
 */
async function readableScope(ctx: OperatorContext, filter: { environmentId?: string; projectId?: string; endpointId?: string }) {
  if (filter.environmentId) await environmentAccess(ctx, filter.environmentId, 'read');
  if (filter.projectId) await projectAccess(ctx, filter.projectId, 'read');
  if (filter.endpointId) await endpointAccess(ctx, filter.endpointId, 'read');
  return { organizations: visibleOrganizations(ctx.actor) };
}

export const webhooksRouter = t.router({
  createEndpoint: operatorProcedure.input(CreateEndpointInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    return audited(ctx, async (em, audit) => {
      const created = await createEndpoint(em, ctx.services, input);
      audit({ action: 'webhook_endpoint.created', ...scopeOf(environment), target: { type: 'webhook_endpoint', id: created.id }, before: null, after: await endpointBefore(em, created.id) });
      return created;
    });
  }),

  listEndpoints: operatorProcedure.input(ListEndpointsInput).query(async ({ ctx, input }) => {
    const scope = await readableScope(ctx, input);
    return listEndpoints(ctx.em, ctx.services, { ...input, ...scope });
  }),

  updateEndpoint: operatorProcedure.input(UpdateEndpointInput).mutation(async ({ ctx, input }) => {
    const endpoint = await endpointAccess(ctx, input.endpointId, 'develop');
    const environment = await environmentAccess(ctx, endpoint.environment.id, 'develop');
    return audited(ctx, async (em, audit) => {
      const before = await endpointBefore(em, input.endpointId);
      const answer = await updateEndpoint(em, ctx.services, input);
      audit({ action: 'webhook_endpoint.updated', ...scopeOf(environment), target: { type: 'webhook_endpoint', id: input.endpointId }, before, after: await endpointBefore(em, input.endpointId) });
      return answer;
    });
  }),

  /** `keepPreviousFor`: seconds the replaced secret keeps signing new deliveries (default 24 h), or `now`. */
  rotateSecret: operatorProcedure.input(RotateSecretInput).mutation(async ({ ctx, input }) => {
    const endpoint = await endpointAccess(ctx, input.endpointId, 'develop');
    const environment = await environmentAccess(ctx, endpoint.environment.id, 'develop');
    return audited(ctx, async (em, audit) => {
      const before = await endpointBefore(em, input.endpointId);
      const answer = await rotateEndpointSecret(em, ctx.services, input.endpointId, input.keepPreviousFor);
      const after = { ...(await endpointBefore(em, input.endpointId)), secret: 'changed', previousKeepsSigningUntil: answer.previousSecret?.expiresAt ?? null };
      audit({ action: 'webhook_endpoint.secret_rotated', ...scopeOf(environment), target: { type: 'webhook_endpoint', id: input.endpointId }, before: before && { ...before, secret: 'set' }, after });
      return answer;
    });
  }),

  /**
   * Sends the endpoint a signed `webhook.test` event through the dispatcher (webhooks/test-event.ts); the answer names
   * the delivery, whose outcome `getDelivery` shows once its attempt ends. Not audited: the delivery and its attempts
   * are the record.
   */
  sendTestEvent: operatorProcedure.input(SendTestEventInput).mutation(async ({ ctx, input }) => {
    await endpointAccess(ctx, input.endpointId, 'develop');
    return sendTestEvent(ctx.em, ctx.services, input.endpointId);
  }),

  /** Newest event first; `cursor` is the previous page's `nextCursor`. */
  listDeliveries: operatorProcedure.input(ListDeliveriesInput).query(async ({ ctx, input }) => {
    const scope = await readableScope(ctx, input);
    return listDeliveries(ctx.reads, { ...input, ...scope });
  }),

  getDelivery: operatorProcedure.input(DeliveryIdInput).query(async ({ ctx, input }) => {
    await deliveryAccess(ctx, input.deliveryId, 'read');
    return getDelivery(ctx.services, input.deliveryId);
  }),

  resend: operatorProcedure.input(DeliveryIdInput).mutation(async ({ ctx, input }) => {
    await deliveryAccess(ctx, input.deliveryId, 'develop');
    return resendDelivery(ctx.em, ctx.services, input.deliveryId);
  }),

  /** How many FAILED deliveries `resendFailed` would queue with this filter, and how many it would skip (disabled endpoint). */
  countFailed: operatorProcedure.input(ResendFailedInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    if (input.endpointId) {
      const endpoint = await endpointAccess(ctx, input.endpointId, 'read');
      if (endpoint.environment.id !== input.environmentId) throw notFound('Webhook endpoint', input.endpointId);
    }
    return countFailed(ctx.em, input);
  }),

  /** Queues again every FAILED delivery of the environment matching the filter (at most 1000 per call). */
  resendFailed: operatorProcedure.input(ResendFailedInput).mutation(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'develop');
    if (input.endpointId) {
      const endpoint = await endpointAccess(ctx, input.endpointId, 'develop');
      // An endpoint of another environment would match nothing: say so instead.
      if (endpoint.environment.id !== input.environmentId) throw notFound('Webhook endpoint', input.endpointId);
    }
    return resendFailed(ctx.em, ctx.services, input);
  }),
});
