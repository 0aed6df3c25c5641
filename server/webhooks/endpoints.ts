/**
 * Operator use cases for webhook endpoints: register one behind the SSRF
 * guard, change it, rotate its signing secret. The secret appears only in
 * the answers of create and rotate; it is kept sealed with the master key.
 */
import { LockMode, type FilterQuery } from '@mikro-orm/core';
import type { WebhookEventType } from '../contract/event-types';
import { notFound, operatorRefusal } from '../domain/refusal';
import { loadEnvironment, type OrganizationCondition } from '../domain/tenancy';
import { WebhookEndpoint } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import { newSigningSecret } from '../contract/webhook-signature';
import { checkOutboundUrl, webhookUrlPolicy, UrlRefused } from '../outbound/url-guard';
import { endpointHealth } from './endpoint-health';
import { endpointView } from './views';

async function guardedUrl(services: Services, url: string, environmentKind: string): Promise<string> {
  try {
    return await checkOutboundUrl(url, webhookUrlPolicy(services.config, environmentKind), services.webhooks.resolveHost);
  } catch (error) {
    if (error instanceof UrlRefused) throw operatorRefusal('invalid', `Webhook URL refused: ${error.message}.`);
    throw error;
  }
}

export async function loadEndpoint(em: EntityManager, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await em.findOne(WebhookEndpoint, { id: endpointId }, { populate: ['environment'] });
  if (!endpoint) throw notFound('Webhook endpoint', endpointId);
  return endpoint;
}

export interface NewEndpoint {
  environmentId: string;
  url: string;
  /** Event types the endpoint receives; an empty list means all of them. */
  enabledEvents?: WebhookEventType[];
  enabled: boolean;
  description?: string;
  /** Automatic retries of failed deliveries (decision 23); off unless asked. */
  retries?: boolean;
}

/** Registers an endpoint after the SSRF guard; the signing secret is in this answer only. */
export async function createEndpoint(em: EntityManager, services: Services, input: NewEndpoint) {
  const environment = await loadEnvironment(em, input.environmentId);
  const url = await guardedUrl(services, input.url, environment.kind);
  const secret = newSigningSecret();
  const endpoint = em.create(WebhookEndpoint, {
    environment,
    url,
    enabledEvents: input.enabledEvents ?? [],
    enabled: input.enabled,
    retries: input.retries ?? false,
    description: input.description ?? null,
    secretSealed: services.secrets.seal(secret),
  });
  await em.flush();
  return { ...endpointView(endpoint, services), secret };
}

/**
 * `organizations`: which organizations' endpoints (a dashboard member's, or all but some for an operator); undefined means all.
 * Each comes with its health (success rate over 24 h, oldest waiting delivery), read for all of them in one statement.
 */
export async function listEndpoints(em: EntityManager, services: Services, filter: { environmentId?: string; projectId?: string; organizations?: OrganizationCondition | undefined }) {
  const where: FilterQuery<WebhookEndpoint> = {};
  if (filter.environmentId) where.environment = filter.environmentId;
  if (filter.projectId) where.environment = { ...(filter.environmentId ? { id: filter.environmentId } : {}), project: filter.projectId };
  if (filter.organizations) where.$and = [{ environment: { project: { organization: filter.organizations } } }];
  const endpoints = await em.find(WebhookEndpoint, where, { populate: ['environment'], orderBy: { createdAt: 'asc' } });
  const health = await endpointHealth(em, endpoints.map((endpoint) => endpoint.id));
  return endpoints.map((endpoint) => ({ ...endpointView(endpoint, services), health: health.get(endpoint.id)! }));
}

export interface EndpointChanges {
  endpointId: string;
  url?: string;
  enabledEvents?: WebhookEventType[];
  enabled?: boolean;
  description?: string | null;
  retries?: boolean;
}

/**
 * Changes the URL (guarded again), the event types (empty list: all), the enabled flag, the description or the
 * automatic retries. Turning retries on applies to failures from then on (a FAILED delivery stays FAILED: resend it);
 * turning them off lets a delivery already waiting make its scheduled attempt, and that one is its last.
 */
export async function updateEndpoint(em: EntityManager, services: Services, input: EndpointChanges) {
  const endpoint = await loadEndpoint(em, input.endpointId);
  if (input.url !== undefined) endpoint.url = await guardedUrl(services, input.url, endpoint.environment.kind);
  if (input.enabledEvents !== undefined) endpoint.enabledEvents = input.enabledEvents;
  if (input.enabled !== undefined) endpoint.enabled = input.enabled;
  if (input.description !== undefined) endpoint.description = input.description;
  if (input.retries !== undefined && input.retries !== endpoint.retries) {
    endpoint.retries = input.retries;
    services.log.info({ endpointId: endpoint.id, retries: input.retries }, 'webhook endpoint automatic retries changed');
  }
  await em.flush();
  return endpointView(endpoint, services);
}

/** How long the replaced secret keeps signing after a rotation, unless the operator says otherwise. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
/** The longest overlap: a forgotten old secret should not sign for ever. */
export const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 60 * 60;

/** Seconds the replaced secret keeps signing, or `now` to stop it at once. */
export type SecretOverlap = number | 'now';

/**
 * Replaces the signing secret; the new one is in this answer only. The
 * secret that signs deliveries today keeps signing them alone for
 * `keepPreviousFor` seconds (default 24 h), so a receiver can add the new
 * secret before it takes over; `now` switches to the new one at once (a
 * leaked secret). Every delivery carries exactly one `sha256=` signature, as
 * the contract fixes it. Rotating again during an overlap keeps the secret
 * that is still signing and discards the one that never signed. Deliveries
 * already made keep their original signature (a resend sends it unchanged).
 * Runs under the endpoint's row lock, so two rotations never lose one.
 */
export async function rotateEndpointSecret(em: EntityManager, services: Services, endpointId: string, keepPreviousFor: SecretOverlap = DEFAULT_SECRET_OVERLAP_SECONDS) {
  const secret = newSigningSecret();
  const endpoint = await em.transactional(async (tx) => {
    const locked = await tx.findOne(WebhookEndpoint, { id: endpointId }, { populate: ['environment'], lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!locked) throw notFound('Webhook endpoint', endpointId);
    const now = services.now();
    if (keepPreviousFor === 'now' || keepPreviousFor <= 0) {
      locked.previousSecretSealed = null;
      locked.previousSecretExpiresAt = null;
    } else {
      locked.previousSecretSealed = overlapLasts(locked, now) ? locked.previousSecretSealed : locked.secretSealed;
      locked.previousSecretExpiresAt = new Date(now.getTime() + keepPreviousFor * 1000);
    }
    locked.secretSealed = services.secrets.seal(secret);
    locked.secretRotatedAt = now;
    return locked;
  });
  return { ...endpointView(endpoint, services), secret };
}

const overlapLasts = (endpoint: WebhookEndpoint, now: Date): boolean =>
  Boolean(endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now);

/**
 * The one secret that signs a delivery fixed now: the replaced one while a
 * rotation's overlap lasts, the current one otherwise. A replaced secret
 * found expired is erased (a conditional update, so a rotation made
 * meanwhile is never undone).
 */
export async function signingSecret(em: EntityManager, services: Services, endpoint: WebhookEndpoint): Promise<string> {
  const now = services.now();
  if (overlapLasts(endpoint, now)) return services.secrets.open(endpoint.previousSecretSealed!);
  if (endpoint.previousSecretSealed) {
    await em.nativeUpdate(
      WebhookEndpoint,
      { id: endpoint.id, previousSecretSealed: endpoint.previousSecretSealed, previousSecretExpiresAt: { $lte: now } },
      { previousSecretSealed: null, previousSecretExpiresAt: null },
    );
  }
  return services.secrets.open(endpoint.secretSealed);
}
