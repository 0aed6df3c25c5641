/**
 * Operator use cases for webhook deliveries: list them with their last
 * attempt (cursor-paginated), show one with the exact request each attempt
 * sent and what came back, resend one now, or queue every failed one of a
 * filter again.
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { WebhookDeliveryStatus } from '../contract/delivery-statuses';
import { randomToken } from '../contract/ids';
import { decodeCursor, keysetAfter, pageOf } from '../domain/listing/cursor';
import { notFound, operatorRefusal } from '../domain/refusal';
import type { OrganizationCondition } from '../domain/tenancy';
import { WebhookAttempt, WebhookDelivery } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import { attemptDelivery } from './attempt';
import { claimForResend } from './claims';
import { deliveryHeaders } from '../contract/webhook-headers';
import { attemptView, deliveryDetail, deliveryView } from './views';

export interface DeliveryFilter {
  environmentId?: string;
  endpointId?: string;
  status?: WebhookDeliveryStatus;
  eventType?: string;
  eventId?: string;
  /** The `pay_`/`sub_` id the deliveries' events are about. */
  resourceId?: string;
  /** Created at or after. */
  createdFrom?: string;
  /** Created strictly before. */
  createdTo?: string;
  /** Which organizations' deliveries (a member's, or all but some for an operator); undefined means all. */
  organizations?: OrganizationCondition | undefined;
  cursor?: string;
  limit: number;
}

const LIST = 'deliveries';

/** Deliveries, newest event first (then by id), filtered; `nextCursor` continues after the last one. */
export async function listDeliveries(em: EntityManager, filter: DeliveryFilter) {
  const conditions: FilterQuery<WebhookDelivery>[] = [];
  if (filter.environmentId) conditions.push({ environment: filter.environmentId });
  if (filter.organizations) conditions.push({ environment: { project: { organization: filter.organizations } } });
  if (filter.endpointId) conditions.push({ endpoint: filter.endpointId });
  if (filter.status) conditions.push({ status: filter.status });
  if (filter.eventType) conditions.push({ eventType: filter.eventType });
  if (filter.eventId) conditions.push({ event: filter.eventId });
  if (filter.resourceId) conditions.push({ event: { resourceId: filter.resourceId } });
  if (filter.createdFrom) conditions.push({ createdAt: { $gte: new Date(filter.createdFrom) } });
  if (filter.createdTo) conditions.push({ createdAt: { $lt: new Date(filter.createdTo) } });
  if (filter.cursor) {
    const after = decodeCursor(LIST, filter.cursor, 'integer');
    conditions.push(keysetAfter('eventSequence', 'desc', Number(after.key), after.id));
  }
  const rows = await em.find(WebhookDelivery, conditions.length ? { $and: conditions } : {}, {
    orderBy: { eventSequence: 'desc', id: 'desc' },
    limit: filter.limit + 1,
  });
  const shown = rows.slice(0, filter.limit);
  const attempts = shown.length ? await em.find(WebhookAttempt, { delivery: { $in: shown.map((d) => d.id) } }, { orderBy: { number: 'asc' } }) : [];
  const last = new Map(attempts.map((attempt) => [attempt.delivery.id, attempt]));
  return pageOf(
    LIST,
    rows,
    filter.limit,
    (delivery) => ({ key: String(delivery.eventSequence), id: delivery.id }),
    (delivery) => deliveryView(delivery, last.get(delivery.id)),
  );
}

/** The environment a delivery belongs to, to decide who may see it; `not_found` when there is no such delivery. */
export async function deliveryEnvironmentId(em: EntityManager, deliveryId: string): Promise<string> {
  const [row] = await em.execute<{ environment_id: string }[]>(`select environment_id from webhook_deliveries where id = ?`, [deliveryId]);
  if (!row) throw notFound('Webhook delivery', deliveryId);
  return row.environment_id;
}

/**
 * One delivery with its exact payload, timestamp, signature and every
 * attempt (read fresh, after any attempt just made). The payload is fixed
 * when the first attempt starts, so every attempt sent these same bytes and
 * headers; each attempt carries them, with what came back.
 */
export async function getDelivery(services: Services, deliveryId: string) {
  const em = services.db.fork();
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId }, { populate: ['endpoint'] });
  if (!delivery) throw notFound('Webhook delivery', deliveryId);
  const attempts = await em.find(WebhookAttempt, { delivery }, { orderBy: { number: 'asc' } });
  const request =
    delivery.body != null && delivery.signedTimestamp != null && delivery.signature != null
      ? {
          method: 'POST' as const,
          /** The endpoint's URL now (it may have been changed since an earlier attempt). */
          url: delivery.endpoint.url,
          headers: deliveryHeaders({ deliveryId: delivery.id, eventType: delivery.eventType, timestamp: delivery.signedTimestamp, signature: delivery.signature }),
          body: delivery.body,
        }
      : null;
  const detail = deliveryDetail(delivery, attempts);
  return {
    ...detail,
    endpointUrl: delivery.endpoint.url,
    /** What each attempt sends (null before the first attempt fixed it). The signature is no secret: the receiver gets it. */
    request,
    attemptHistory: attempts.map((attempt) => ({
      ...attemptView(attempt),
      requestHeaders: request?.headers ?? null,
      requestBody: request?.body ?? null,
    })),
  };
}

/**
 * Sends a delivery that has an outcome (FAILED, or SENT again) once more,
 * now: the original body, timestamp and signature, as a new attempt on the
 * same delivery. Refused while the delivery is still waiting for its first
 * attempt or is being sent.
 */
export async function resendDelivery(em: EntityManager, services: Services, deliveryId: string) {
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId }, { populate: ['endpoint'] });
  if (!delivery) throw notFound('Webhook delivery', deliveryId);
  if (!delivery.endpoint.enabled) {
    throw operatorRefusal('conflict', `Webhook endpoint ${delivery.endpoint.id} is disabled; enable it before resending.`);
  }
  const claim = await claimForResend(em, delivery.id, `rsd_${randomToken(24)}`, services.config.webhooks.leaseMs);
  if ('refused' in claim) {
    if (claim.refused === 'not_found') throw notFound('Webhook delivery', deliveryId);
    throw operatorRefusal(
      'conflict',
      claim.refused === 'not_attempted_yet'
        ? `Webhook delivery ${delivery.id} has no outcome yet (it is queued or in flight); the dispatcher sends it.`
        : `Webhook delivery ${delivery.id} is being sent right now.`,
    );
  }
  await attemptDelivery(services, claim.claimed, 'resend');
  return getDelivery(services, delivery.id);
}

export interface FailedFilter {
  environmentId: string;
  endpointId?: string;
  eventType?: string;
  resourceId?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** At most this many deliveries are queued again per call; the answer says whether more remain. */
export const RESEND_FAILED_BATCH = 1000;

/** The SQL conditions on `d` (a delivery) that a FailedFilter names, with their parameters. */
function failedConditions(filter: FailedFilter): { sql: string; params: unknown[] } {
  const parts = [`d.environment_id = ?`, `d.status = 'FAILED'`];
  const params: unknown[] = [filter.environmentId];
  if (filter.endpointId) parts.push(`d.endpoint_id = ?`), params.push(filter.endpointId);
  if (filter.eventType) parts.push(`d.event_type = ?`), params.push(filter.eventType);
  if (filter.resourceId) parts.push(`d.event_id in (select id from events where resource_id = ? and environment_id = ?)`), params.push(filter.resourceId, filter.environmentId);
  if (filter.createdFrom) parts.push(`d.created_at >= ?`), params.push(new Date(filter.createdFrom));
  if (filter.createdTo) parts.push(`d.created_at < ?`), params.push(new Date(filter.createdTo));
  return { sql: parts.join(' and '), params };
}

/**
 * What `resendFailed` would take with the same filter, said before it runs:
 * FAILED deliveries to enabled endpoints (those it queues again, up to a
 * batch per call) and those whose endpoint is disabled (left alone).
 */
export async function countFailed(em: EntityManager, filter: FailedFilter) {
  const where = failedConditions(filter);
  const enabled = `exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.enabled)`;
  const [counts] = await em.execute<{ resendable: string | number; disabled: string | number }[]>(
    `select count(*) filter (where ${enabled}) as resendable, count(*) filter (where not ${enabled}) as disabled
     from webhook_deliveries d where ${where.sql}`,
    [...where.params],
  );
  return { resendable: Number(counts?.resendable ?? 0), toDisabledEndpoint: Number(counts?.disabled ?? 0) };
}

/**
 * Queues every FAILED delivery matching the filter for one more attempt,
 * oldest event first, up to RESEND_FAILED_BATCH per call: each goes back to
 * PENDING and the dispatcher sends it (its original bytes and signature,
 * in event order per endpoint, bounded in flight, taken over by another
 * instance after a crash). A delivery queued or in flight is not FAILED, so
 * a second click queues nothing twice. Deliveries to a disabled endpoint are
 * left alone and counted.
 */
export async function resendFailed(em: EntityManager, services: Services, filter: FailedFilter) {
  const where = failedConditions(filter);
  const enabled = `exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id and e.enabled)`;
  const leaseFree = `(d.lease_until is null or d.lease_until < clock_timestamp())`;
  const queued = await em.execute<{ id: string }[]>(
    `update webhook_deliveries d set status = 'PENDING', updated_at = clock_timestamp()
     where d.id in (
       select d.id from webhook_deliveries d
       where ${where.sql} and ${enabled} and ${leaseFree}
       order by d.event_sequence, d.id
       limit ?
       for update of d skip locked
     ) and d.status = 'FAILED'
     returning d.id`,
    [...where.params, RESEND_FAILED_BATCH],
  );
  const [left] = await em.execute<{ remaining: string | number; disabled: string | number }[]>(
    `select count(*) filter (where ${enabled}) as remaining, count(*) filter (where not ${enabled}) as disabled
     from webhook_deliveries d where ${where.sql}`,
    [...where.params],
  );
  if (queued.length > 0) services.outbox.notify();
  services.log.info({ environmentId: filter.environmentId, resent: queued.length }, 'failed webhook deliveries queued again');
  const remaining = Number(left?.remaining ?? 0);
  return {
    /** Deliveries queued for another attempt by this call. */
    resent: queued.length,
    /** Deliveries still FAILED that match (beyond this call's batch, or being sent right now): call again for them. */
    remaining,
    moreRemain: remaining > 0,
    /** FAILED deliveries that match but whose endpoint is disabled: enable it to resend them. */
    skippedDisabledEndpoint: Number(left?.disabled ?? 0),
  };
}
