/**
 * What operators see of endpoints, deliveries and attempts. Signing secrets
 * never appear here: only their fingerprints, to tell which secret signed what.
 */
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../db/entities';
import type { Services } from '../services';
import { secretFingerprint } from '../contract/webhook-signature';

/** The replaced secret while it still signs new deliveries, alone, until `expiresAt` (an expired one is shown as none). */
function previousSecret(endpoint: WebhookEndpoint, services: Pick<Services, 'secrets' | 'now'>) {
  if (!endpoint.previousSecretSealed || !endpoint.previousSecretExpiresAt || endpoint.previousSecretExpiresAt <= services.now()) return null;
  return { fingerprint: secretFingerprint(services.secrets.open(endpoint.previousSecretSealed)), expiresAt: endpoint.previousSecretExpiresAt.toISOString() };
}

export const endpointView = (endpoint: WebhookEndpoint, services: Pick<Services, 'secrets' | 'now'>) => ({
  id: endpoint.id,
  projectId: endpoint.environment.project.id,
  environmentId: endpoint.environment.id,
  url: endpoint.url,
  enabledEvents: endpoint.enabledEvents,
  enabled: endpoint.enabled,
  /** Automatic retries of deliveries failed by timeout, network error or 5xx (decision 23). */
  retries: endpoint.retries,
  description: endpoint.description ?? null,
  secretFingerprint: secretFingerprint(services.secrets.open(endpoint.secretSealed)),
  secretRotatedAt: endpoint.secretRotatedAt?.toISOString() ?? null,
  /** Set during a rotation's overlap: new deliveries are still signed with this secret, not the new one, until `expiresAt`. */
  previousSecret: previousSecret(endpoint, services),
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
  /** Fingerprint of the secret whose signature it carries (a one-element list); null until its payload is fixed. */
  signedWith: delivery.signedWith ?? null,
  attempts: delivery.attemptCount,
  lastResponseStatus: last?.responseStatus ?? null,
  lastError: last?.error ?? null,
  lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
  /** When a `PENDING` delivery waiting for its automatic retry is attempted again; null otherwise. */
  nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
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
