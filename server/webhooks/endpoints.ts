/**
 * Operator use cases for webhook endpoints: register one behind the SSRF
 * guard, change it, rotate its signing secret. The secret appears only in
 * the answers of create and rotate; it is kept sealed with the master key.
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { WebhookEventType } from '../domain/event-types';
import { notFound, OperatorError } from '../domain/operator-errors';
import { loadEnvironment } from '../domain/tenancy';
import { WebhookEndpoint } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import { newSigningSecret } from './signature';
import { checkWebhookUrl, urlPolicy, WebhookUrlRefused } from './url-guard';
import { endpointView } from './views';

async function guardedUrl(services: Services, url: string, environmentKind: string): Promise<string> {
  try {
    return await checkWebhookUrl(url, urlPolicy(services.config, environmentKind), services.webhooks.resolveHost);
  } catch (error) {
    if (error instanceof WebhookUrlRefused) throw new OperatorError('invalid', `Webhook URL refused: ${error.message}.`);
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
    description: input.description ?? null,
    secretSealed: services.secrets.seal(secret),
  });
  await em.flush();
  return { ...endpointView(endpoint, services), secret };
}

export async function listEndpoints(em: EntityManager, services: Services, filter: { environmentId?: string; projectId?: string }) {
  const where: FilterQuery<WebhookEndpoint> = {};
  if (filter.environmentId) where.environment = filter.environmentId;
  if (filter.projectId) where.environment = { ...(filter.environmentId ? { id: filter.environmentId } : {}), project: filter.projectId };
  const endpoints = await em.find(WebhookEndpoint, where, { populate: ['environment'], orderBy: { createdAt: 'asc' } });
  return endpoints.map((endpoint) => endpointView(endpoint, services));
}

export interface EndpointChanges {
  endpointId: string;
  url?: string;
  enabledEvents?: WebhookEventType[];
  enabled?: boolean;
  description?: string | null;
}

/** Changes the URL (guarded again), the event types (empty list: all), the enabled flag or the description. */
export async function updateEndpoint(em: EntityManager, services: Services, input: EndpointChanges) {
  const endpoint = await loadEndpoint(em, input.endpointId);
  if (input.url !== undefined) endpoint.url = await guardedUrl(services, input.url, endpoint.environment.kind);
  if (input.enabledEvents !== undefined) endpoint.enabledEvents = input.enabledEvents;
  if (input.enabled !== undefined) endpoint.enabled = input.enabled;
  if (input.description !== undefined) endpoint.description = input.description;
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
 * Replaces the signing secret; the new one is in this answer only. New
 * deliveries are signed with it at once and, for `keepPreviousFor` seconds
 * (default 24 h), also with the secret it replaces, so a receiver can add
 * the new secret before dropping the old one; `now` stops the old one at
 * once. A secret still in an earlier overlap is dropped: only the one being
 * replaced is kept. Deliveries already made keep their original signature
 * (a resend sends it unchanged).
 */
export async function rotateEndpointSecret(em: EntityManager, services: Services, endpointId: string, keepPreviousFor: SecretOverlap = DEFAULT_SECRET_OVERLAP_SECONDS) {
  const endpoint = await loadEndpoint(em, endpointId);
  const now = services.now();
  const secret = newSigningSecret();
  if (keepPreviousFor === 'now' || keepPreviousFor <= 0) {
    endpoint.previousSecretSealed = null;
    endpoint.previousSecretExpiresAt = null;
  } else {
    endpoint.previousSecretSealed = endpoint.secretSealed;
    endpoint.previousSecretExpiresAt = new Date(now.getTime() + keepPreviousFor * 1000);
  }
  endpoint.secretSealed = services.secrets.seal(secret);
  endpoint.secretRotatedAt = now;
  await em.flush();
  return { ...endpointView(endpoint, services), secret };
}

/**
 * The secrets that sign a delivery fixed now, newest first: the current one,
 * then the replaced one while its overlap lasts. A replaced secret found
 * expired is erased (a conditional update, so a rotation made meanwhile is
 * never undone).
 */
export async function liveSecrets(em: EntityManager, services: Services, endpoint: WebhookEndpoint): Promise<string[]> {
  const secrets = [services.secrets.open(endpoint.secretSealed)];
  if (!endpoint.previousSecretSealed || !endpoint.previousSecretExpiresAt) return secrets;
  const now = services.now();
  if (endpoint.previousSecretExpiresAt > now) return [...secrets, services.secrets.open(endpoint.previousSecretSealed)];
  await em.nativeUpdate(
    WebhookEndpoint,
    { id: endpoint.id, previousSecretSealed: endpoint.previousSecretSealed, previousSecretExpiresAt: { $lte: now } },
    { previousSecretSealed: null, previousSecretExpiresAt: null },
  );
  return secrets;
}
