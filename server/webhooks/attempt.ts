/**
 * Makes one claimed attempt of a delivery, for the dispatcher and for manual
 * resends alike: fix the payload on the first attempt (envelope of the event
 * as committed, timestamp, a signature by each live secret), check the
 * endpoint, send, record (and, on an endpoint with retries on, schedule the
 * next attempt after a retryable failure: claims.ts, finishAttempt).
 */
import { OutboxEvent, WebhookEndpoint } from '../db/entities';
import type { WebhookAttemptTrigger } from '../db/entities/webhook-attempt';
import type { Services } from '../services';
import { beginAttempt, finishAttempt, type ClaimedDelivery, type FrozenPayload } from './claims';
import { signingSecret } from './endpoints';
import { secretFingerprint, signatureHeader } from '../contract/webhook-signature';
import type { AttemptResult } from './transport';
import { webhookUrlPolicy } from '../outbound/url-guard';
import { observeWebhookDelivery } from '../observability/metrics';

/** A failure without a request: never retried automatically (a disabled endpoint, a lost claim). */
const failedWithout = (error: string): AttemptResult => ({ outcome: 'FAILED', responseStatus: null, durationMs: 0, responseExcerpt: null, error, retryable: false });

export interface AttemptReport {
  result: AttemptResult;
  /** False when the claim was lost to another instance before the outcome was recorded. */
  recorded: boolean;
}

export async function attemptDelivery(services: Services, claim: ClaimedDelivery, trigger: WebhookAttemptTrigger): Promise<AttemptReport> {
  const em = services.db.fork();
  const endpoint = await em.findOneOrFail(WebhookEndpoint, { id: claim.endpointId }, { populate: ['environment'] });

  let first: FrozenPayload | null = claim.frozen;
  if (!first) {
    const event = await em.findOneOrFail(OutboxEvent, { id: claim.eventId });
    const body = JSON.stringify(event.envelope());
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = await signingSecret(em, services, endpoint);
    first = { body, timestamp, signature: signatureHeader(secret, timestamp, body), signedWith: [secretFingerprint(secret)] };
  }
  const begun = await beginAttempt(em, claim, first, trigger);
  if (!begun) return { result: failedWithout('the claim was lost before the attempt began'), recorded: false };

  const result = endpoint.enabled
    ? await services.webhooks.transport.send({
        url: endpoint.url,
        policy: webhookUrlPolicy(services.config, endpoint.environment.kind),
        deliveryId: claim.id,
        eventType: claim.eventType,
        ...begun.payload,
      })
    : failedWithout('the endpoint is disabled');

  observeWebhookDelivery(result.outcome, trigger, result.durationMs);
  const retry = { enabled: endpoint.retries, scheduleMs: services.config.webhooks.retryScheduleMs };
  const recorded = await finishAttempt(em, claim, begun.attemptId, result, trigger, retry);
  const fields = { deliveryId: claim.id, endpointId: claim.endpointId, eventId: claim.eventId, attempt: claim.attemptNumber, trigger };
  if (!recorded) services.log.warn(fields, 'webhook delivery claim expired during the attempt; its outcome was kept on the attempt only');
  services.log[result.outcome === 'FAILED' ? 'warn' : 'info']({ ...fields, outcome: result.outcome, status: result.responseStatus, durationMs: result.durationMs, error: result.error }, 'webhook delivery attempt');
  return { result, recorded };
}
