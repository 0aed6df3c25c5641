/** What operators see of endpoints, deliveries and attempts. Signing secrets never appear here. */
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../db/entities';

export const endpointView = (endpoint: WebhookEndpoint) => ({
  id: endpoint.id,
  projectId: endpoint.environment.project.id,
  environmentId: endpoint.environment.id,
  url: endpoint.url,
  enabledEvents: endpoint.enabledEvents,
  enabled: endpoint.enabled,
  description: endpoint.description ?? null,
  secretRotatedAt: endpoint.secretRotatedAt?.toISOString() ?? null,
  createdAt: endpoint.createdAt.toISOString(),
  updatedAt: endpoint.updatedAt.toISOString(),
});

export const attemptView = (attempt: WebhookAttempt) => ({
  number: attempt.number,
  trigger: attempt.trigger,
  outcome: attempt.outcome ?? null,
  responseStatus: attempt.responseStatus ?? null,
  durationMs: attempt.durationMs ?? null,
  error: attempt.error ?? null,
  responseExcerpt: attempt.responseExcerpt ?? null,
  startedAt: attempt.startedAt.toISOString(),
  finishedAt: attempt.finishedAt?.toISOString() ?? null,
});

export const deliveryView = (delivery: WebhookDelivery, last: WebhookAttempt | undefined) => ({
  id: delivery.id,
  endpointId: delivery.endpoint.id,
  environmentId: delivery.environment.id,
  eventId: delivery.event.id,
  eventType: delivery.eventType,
  eventSequence: delivery.eventSequence,
  status: delivery.status,
  attempts: delivery.attemptCount,
  lastResponseStatus: last?.responseStatus ?? null,
  lastError: last?.error ?? null,
  lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
  createdAt: delivery.createdAt.toISOString(),
});

/** One delivery with the exact payload it sends and its whole attempt history. */
export const deliveryDetail = (delivery: WebhookDelivery, attempts: WebhookAttempt[]) => ({
  ...deliveryView(delivery, attempts.at(-1)),
  timestamp: delivery.signedTimestamp ?? null,
  signature: delivery.signature ?? null,
  body: delivery.body ?? null,
  attemptHistory: attempts.map(attemptView),
});
