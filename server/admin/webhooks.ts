/** Operator procedures for outbound webhooks: endpoints (webhooks/endpoints.ts) and deliveries (webhooks/deliveries.ts). */
import { z } from 'zod';
import { TEXT_LIMITS } from '../contract/limits';
import { Description, RecordId, text } from '../contract/schemas/text';
import { WEBHOOK_DELIVERY_STATUSES } from '../domain/delivery-statuses';
import { WEBHOOK_EVENT_TYPES } from '../domain/event-types';
import { getDelivery, listDeliveries, resendDelivery } from '../webhooks/deliveries';
import { createEndpoint, DEFAULT_SECRET_OVERLAP_SECONDS, listEndpoints, loadEndpoint, MAX_SECRET_OVERLAP_SECONDS, rotateEndpointSecret, updateEndpoint } from '../webhooks/endpoints';
import { Project } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { notFound } from '../domain/operator-errors';
import { loadEnvironment } from '../domain/tenancy';
import { adminProcedure, adminT as t } from './procedure';

/** Event types the endpoint receives; an empty list means all of them. */
const EnabledEvents = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((types) => [...new Set(types)].sort());

const Url = text({ min: 1, max: TEXT_LIMITS.url });

/** A filter naming something that does not exist is a mistake to report, not an empty list. */
async function checkFilters(em: EntityManager, filter: { environmentId?: string; projectId?: string; endpointId?: string }): Promise<void> {
  if (filter.environmentId) await loadEnvironment(em, filter.environmentId);
  if (filter.projectId && !(await em.findOne(Project, { id: filter.projectId }))) throw notFound('Project', filter.projectId);
  if (filter.endpointId) await loadEndpoint(em, filter.endpointId);
}

export const webhooksRouter = t.router({
  createEndpoint: adminProcedure
    .input(
      z.strictObject({
        environmentId: RecordId,
        url: Url,
        enabledEvents: EnabledEvents.optional(),
        enabled: z.boolean().default(true),
        description: Description.optional(),
      }),
    )
    .mutation(({ ctx, input }) => createEndpoint(ctx.em, ctx.services, input)),

  listEndpoints: adminProcedure
    .input(z.strictObject({ environmentId: RecordId.optional(), projectId: RecordId.optional() }))
    .query(async ({ ctx, input }) => {
      await checkFilters(ctx.em, input);
      return listEndpoints(ctx.em, ctx.services, input);
    }),

  updateEndpoint: adminProcedure
    .input(
      z.strictObject({
        endpointId: RecordId,
        url: Url.optional(),
        enabledEvents: EnabledEvents.optional(),
        enabled: z.boolean().optional(),
        description: Description.nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => updateEndpoint(ctx.em, ctx.services, input)),

  /** `keepPreviousFor`: seconds the replaced secret keeps signing new deliveries (default 24 h), or `now`. */
  rotateSecret: adminProcedure
    .input(
      z.strictObject({
        endpointId: RecordId,
        keepPreviousFor: z.union([z.int().min(1).max(MAX_SECRET_OVERLAP_SECONDS), z.literal('now')]).default(DEFAULT_SECRET_OVERLAP_SECONDS),
      }),
    )
    .mutation(({ ctx, input }) => rotateEndpointSecret(ctx.em, ctx.services, input.endpointId, input.keepPreviousFor)),

  listDeliveries: adminProcedure
    .input(
      z.strictObject({
        environmentId: RecordId.optional(),
        endpointId: RecordId.optional(),
        status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
        eventType: text({ max: TEXT_LIMITS.eventType }).optional(),
        eventId: RecordId.optional(),
        limit: z.int().min(1).max(500).default(50),
      }),
    )
    .query(async ({ ctx, input }) => {
      await checkFilters(ctx.em, input);
      return listDeliveries(ctx.em, input);
    }),

  getDelivery: adminProcedure.input(z.strictObject({ deliveryId: RecordId })).query(({ ctx, input }) => getDelivery(ctx.services, input.deliveryId)),

  resend: adminProcedure.input(z.strictObject({ deliveryId: RecordId })).mutation(({ ctx, input }) => resendDelivery(ctx.em, ctx.services, input.deliveryId)),
});
