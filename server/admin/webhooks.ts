/**
 * Operator procedures for outbound webhooks: endpoints per environment (the
 * signing secret is in the create and rotate answers only), deliveries with
 * their attempt history, and manual resend of the original bytes.
 */
import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import type { FilterQuery } from '@mikro-orm/core';
import { Environment, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../db/entities';
import { WEBHOOK_DELIVERY_STATUSES } from '../webhooks/delivery-statuses';
import { randomToken } from '../domain/ids';
import type { Services } from '../services';
import { attemptDelivery } from '../webhooks/attempt';
import { claimForResend } from '../webhooks/claims';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/event-types';
import { newSigningSecret } from '../webhooks/signature';
import { checkWebhookUrl, MAX_URL_LENGTH, urlPolicy, WebhookUrlRefused } from '../webhooks/url-guard';
import { deliveryDetail, deliveryView, endpointView } from '../webhooks/views';
import type { AdminContext } from './procedure';
import { adminProcedure, adminT as t, notFound } from './procedure';

/** Event types the endpoint receives; an empty list means all of them. */
const EnabledEvents = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((types) => [...new Set(types)].sort());

const Url = z.string().min(1).max(MAX_URL_LENGTH);

async function guardedUrl(services: Services, url: string, environmentKind: string): Promise<string> {
  try {
    return await checkWebhookUrl(url, urlPolicy(services.config, environmentKind), services.webhooks.resolveHost);
  } catch (error) {
    if (error instanceof WebhookUrlRefused) throw new TRPCError({ code: 'BAD_REQUEST', message: `Webhook URL refused: ${error.message}.` });
    throw error;
  }
}

async function loadEndpoint(ctx: AdminContext, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await ctx.em.findOne(WebhookEndpoint, { id: endpointId }, { populate: ['environment'] });
  if (!endpoint) throw notFound('Webhook endpoint', endpointId);
  return endpoint;
}

async function loadDeliveryDetail(ctx: AdminContext, deliveryId: string) {
  const em = ctx.services.db.fork();
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId });
  if (!delivery) throw notFound('Webhook delivery', deliveryId);
  const attempts = await em.find(WebhookAttempt, { delivery }, { orderBy: { number: 'asc' } });
  return deliveryDetail(delivery, attempts);
}

export const webhooksRouter = t.router({
  /** Registers an endpoint after the SSRF guard; the signing secret is in this answer only. */
  createEndpoint: adminProcedure
    .input(
      z.object({
        environmentId: z.string(),
        url: Url,
        enabledEvents: EnabledEvents.optional(),
        enabled: z.boolean().default(true),
        description: z.string().max(255).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const environment = await ctx.em.findOne(Environment, { id: input.environmentId });
      if (!environment) throw notFound('Environment', input.environmentId);
      const url = await guardedUrl(ctx.services, input.url, environment.kind);
      const secret = newSigningSecret();
      const endpoint = ctx.em.create(WebhookEndpoint, {
        environment,
        url,
        enabledEvents: input.enabledEvents ?? [],
        enabled: input.enabled,
        description: input.description ?? null,
        secretSealed: ctx.services.secrets.seal(secret),
      });
      await ctx.em.flush();
      return { ...endpointView(endpoint), secret };
    }),

  listEndpoints: adminProcedure
    .input(z.object({ environmentId: z.string().optional(), projectId: z.string().optional() }))
    .query(async ({ ctx, input }) => {
      const where: FilterQuery<WebhookEndpoint> = {};
      if (input.environmentId) where.environment = input.environmentId;
      if (input.projectId) where.environment = { ...(input.environmentId ? { id: input.environmentId } : {}), project: input.projectId };
      const endpoints = await ctx.em.find(WebhookEndpoint, where, { populate: ['environment'], orderBy: { createdAt: 'asc' } });
      return endpoints.map(endpointView);
    }),

  /** Changes the URL (guarded again), the event types (empty list: all), the enabled flag or the description. */
  updateEndpoint: adminProcedure
    .input(
      z.object({
        endpointId: z.string(),
        url: Url.optional(),
        enabledEvents: EnabledEvents.optional(),
        enabled: z.boolean().optional(),
        description: z.string().max(255).nullable().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const endpoint = await loadEndpoint(ctx, input.endpointId);
      if (input.url !== undefined) endpoint.url = await guardedUrl(ctx.services, input.url, endpoint.environment.kind);
      if (input.enabledEvents !== undefined) endpoint.enabledEvents = input.enabledEvents;
      if (input.enabled !== undefined) endpoint.enabled = input.enabled;
      if (input.description !== undefined) endpoint.description = input.description;
      await ctx.em.flush();
      return endpointView(endpoint);
    }),

  /**
   * Replaces the signing secret at once; the new one is in this answer only.
   * Deliveries already made keep their original signature (a resend sends it unchanged).
   */
  rotateSecret: adminProcedure.input(z.object({ endpointId: z.string() })).mutation(async ({ ctx, input }) => {
    const endpoint = await loadEndpoint(ctx, input.endpointId);
    const secret = newSigningSecret();
    endpoint.secretSealed = ctx.services.secrets.seal(secret);
    endpoint.secretRotatedAt = ctx.services.now();
    await ctx.em.flush();
    return { ...endpointView(endpoint), secret };
  }),

  /** Deliveries, newest event first, filtered by environment, endpoint, status, event type or event. */
  listDeliveries: adminProcedure
    .input(
      z.object({
        environmentId: z.string().optional(),
        endpointId: z.string().optional(),
        status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
        eventType: z.string().max(64).optional(),
        eventId: z.string().optional(),
        limit: z.int().min(1).max(500).default(50),
      }),
    )
    .query(async ({ ctx, input }) => {
      const where: FilterQuery<WebhookDelivery> = {};
      if (input.environmentId) where.environment = input.environmentId;
      if (input.endpointId) where.endpoint = input.endpointId;
      if (input.status) where.status = input.status;
      if (input.eventType) where.eventType = input.eventType;
      if (input.eventId) where.event = input.eventId;
      const deliveries = await ctx.em.find(WebhookDelivery, where, { orderBy: { eventSequence: 'desc', id: 'asc' }, limit: input.limit });
      const attempts = deliveries.length
        ? await ctx.em.find(WebhookAttempt, { delivery: { $in: deliveries.map((d) => d.id) } }, { orderBy: { number: 'asc' } })
        : [];
      const last = new Map(attempts.map((attempt) => [attempt.delivery.id, attempt]));
      return deliveries.map((delivery) => deliveryView(delivery, last.get(delivery.id)));
    }),

  /** One delivery with its exact payload, timestamp, signature and every attempt. */
  getDelivery: adminProcedure.input(z.object({ deliveryId: z.string() })).query(({ ctx, input }) => loadDeliveryDetail(ctx, input.deliveryId)),

  /**
   * Sends a delivery that has an outcome (FAILED, or SENT again) once more,
   * now: the original body, timestamp and signature, as a new attempt on the
   * same delivery. Refused while the delivery is still waiting for its first
   * attempt or is being sent.
   */
  resend: adminProcedure.input(z.object({ deliveryId: z.string() })).mutation(async ({ ctx, input }) => {
    const delivery = await ctx.em.findOne(WebhookDelivery, { id: input.deliveryId }, { populate: ['endpoint'] });
    if (!delivery) throw notFound('Webhook delivery', input.deliveryId);
    if (!delivery.endpoint.enabled) {
      throw new TRPCError({ code: 'CONFLICT', message: `Webhook endpoint ${delivery.endpoint.id} is disabled; enable it before resending.` });
    }
    const claim = await claimForResend(ctx.em, delivery.id, `rsd_${randomToken(24)}`, ctx.services.config.webhooks.leaseMs);
    if ('refused' in claim) {
      if (claim.refused === 'not_found') throw notFound('Webhook delivery', input.deliveryId);
      throw new TRPCError({
        code: 'CONFLICT',
        message:
          claim.refused === 'not_attempted_yet'
            ? `Webhook delivery ${delivery.id} has no outcome yet (its first attempt is queued or in flight); the dispatcher sends it.`
            : `Webhook delivery ${delivery.id} is being sent right now.`,
      });
    }
    await attemptDelivery(ctx.services, claim.claimed, 'resend');
    return loadDeliveryDetail(ctx, delivery.id);
  }),
});
