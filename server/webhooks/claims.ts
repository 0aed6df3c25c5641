/**
 * Claims on deliveries, shared by every service instance through the
 * database: a claim is a lease (owner token + expiry, on the database clock)
 * taken by one atomic statement, so exactly one instance attempts a delivery
 * at a time, and an attempt interrupted by a crash is taken over only once
 * its lease has expired. No transaction is ever held across an HTTP call:
 * claim, begin and finish are each one short statement or transaction.
 */
import type { EntityManager } from '../db/orm';
import type { WebhookAttemptTrigger } from '../db/entities/webhook-attempt';
import type { AttemptResult } from './transport';

/** The bytes of a delivery as first sent; never rewritten afterwards. */
export interface FrozenPayload {
  body: string;
  timestamp: number;
  signature: string;
  /** Fingerprints of the secrets behind `signature`, in its order (recorded for the operator, never sent). */
  signedWith?: string[];
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The number of the attempt this claim makes (1 for the first). */
  attemptNumber: number;
  /** A scheduled automatic retry (the delivery was waiting for its next attempt), not a first attempt. */
  scheduledRetry: boolean;
  leaseOwner: string;
  /** Null until the first attempt fixes the payload. */
  frozen: FrozenPayload | null;
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number;
  lease_owner: string;
  body: string | null;
  signed_timestamp: string | number | null;
  signature: string | null;
  next_attempt_at: Date | string | null;
}

const RETURNING = 'd.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.lease_owner, d.body, d.signed_timestamp, d.signature, d.next_attempt_at';

const toClaim = (row: ClaimRow): ClaimedDelivery => ({
  id: row.id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  attemptNumber: Number(row.attempt_count),
  scheduledRetry: row.next_attempt_at != null,
  leaseOwner: row.lease_owner,
  frozen:
    row.body != null && row.signed_timestamp != null && row.signature != null
      ? { body: row.body, timestamp: Number(row.signed_timestamp), signature: row.signature }
      : null,
});

const LEASE_FREE = '(d.lease_until is null or d.lease_until < clock_timestamp())';
/** Due for an automatic attempt: a first one (no time set), or a scheduled retry whose time has come. */
const DUE = '(d.next_attempt_at is null or d.next_attempt_at <= clock_timestamp())';

/**
 * Claims up to `limit` deliveries for their automatic attempt: for each
 * endpoint only the oldest (by event sequence) `PENDING` delivery that is due,
 * and only if the endpoint has no delivery in flight. One endpoint is sent one
 * delivery at a time, in event order.
 *
 * A delivery waiting for its scheduled retry (`next_attempt_at` ahead) does
 * not hold the endpoint's later deliveries back: they go out meanwhile, and
 * the retry goes when due, between two of them. Holding them back would keep
 * order, but a receiver failing on one event would then receive nothing else
 * for up to the whole schedule (about 35 h); with retries off a failure never
 * holds later events back, and turning retries on must not make them later.
 * Receivers already meet an earlier event after a later one (a manual
 * resend), and read the status from the event's data.
 *
 * Bounded by the number of endpoints, whatever the queues hold: a delivery
 * waiting for its retry ahead of an endpoint's first due one is read past
 * (as many as wait at the front of that endpoint's queue).
 *
 * `SKIP LOCKED` lets instances claim side by side; the outer conditions are
 * re-checked on the row's latest version, so a row claimed or finished by
 * another instance meanwhile is never claimed twice.
 */
export async function claimNextDeliveries(em: EntityManager, limit: number, leaseOwner: string, leaseMs: number): Promise<ClaimedDelivery[]> {
  const rows = await em.execute<ClaimRow[]>(
    // The head of an endpoint is its delivery in flight if it has one (then nothing of it is claimed), else its oldest due one.
    // Read per endpoint, never the whole queue: whether it has a delivery in flight (the lease index, migration
    // background_claim_indexes; "is not null" spelled out, as a comparison with clock_timestamp() proves nothing to the
    // planner), else its first due delivery in event order (the (status, endpoint_id, event_sequence) index).
    `with heads as (
       select head.id
       from webhook_endpoints e
       cross join lateral (
         select d.id from webhook_deliveries d
         where d.endpoint_id = e.id and d.status = 'PENDING' and ${DUE}
         order by d.event_sequence
         limit 1
       ) as head
       where not exists (
         select 1 from webhook_deliveries d
         where d.endpoint_id = e.id and d.lease_until is not null and d.lease_until >= clock_timestamp() and d.status = 'PENDING'
       )
     ), picked as (
       select d.id from webhook_deliveries d
       join heads h on h.id = d.id
       where ${LEASE_FREE}
       order by d.event_sequence
       limit ?
       for update of d skip locked
     )
     update webhook_deliveries d
     set lease_owner = ?, lease_until = clock_timestamp() + (? * interval '1 millisecond'),
         attempt_count = d.attempt_count + 1, last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     from picked
     where d.id = picked.id and d.status = 'PENDING' and ${LEASE_FREE} and ${DUE}
     returning ${RETURNING}`,
    [limit, leaseOwner, leaseMs],
  );
  return rows.map(toClaim);
}

export type ResendClaim = { claimed: ClaimedDelivery } | { refused: 'not_found' | 'not_attempted_yet' | 'in_flight' };

/**
 * Claims a delivery for a manual resend: one that has an outcome, or one waiting for its next automatic retry (decision
 * 23: a manual resend stays possible at any time). Refuses while it waits for its first attempt or is in flight.
 */
export async function claimForResend(em: EntityManager, deliveryId: string, leaseOwner: string, leaseMs: number): Promise<ResendClaim> {
  const rows = await em.execute<ClaimRow[]>(
    `update webhook_deliveries d
     set lease_owner = ?, lease_until = clock_timestamp() + (? * interval '1 millisecond'),
         attempt_count = d.attempt_count + 1, last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     where d.id = ? and (d.status <> 'PENDING' or d.next_attempt_at is not null) and d.body is not null and ${LEASE_FREE}
     returning ${RETURNING}`,
    [leaseOwner, leaseMs, deliveryId],
  );
  if (rows[0]) return { claimed: toClaim(rows[0]) };
  const [current] = await em.execute<{ status: string; next_attempt_at: Date | null }[]>(`select status, next_attempt_at from webhook_deliveries where id = ?`, [deliveryId]);
  if (!current) return { refused: 'not_found' };
  return { refused: current.status === 'PENDING' && current.next_attempt_at == null ? 'not_attempted_yet' : 'in_flight' };
}

/**
 * Opens the attempt record under the claim: earlier attempts left without an
 * outcome are marked interrupted, and on the first attempt the payload is
 * fixed. Returns the attempt id and the payload to send (the stored one when
 * it was already fixed), or null when the claim was lost.
 */
export async function beginAttempt(
  em: EntityManager,
  claim: ClaimedDelivery,
  firstPayload: FrozenPayload,
  trigger: WebhookAttemptTrigger,
): Promise<{ attemptId: number; payload: FrozenPayload } | null> {
  return em.transactional(async (tx) => {
    await tx.execute(
      `update webhook_attempts set outcome = 'INTERRUPTED', error = 'no outcome was recorded before the claim expired'
       where delivery_id = ? and outcome is null`,
      [claim.id],
    );
    await tx.execute(
      `update webhook_deliveries set body = ?, signed_timestamp = ?, signature = ?, signed_with = ?::jsonb
       where id = ? and lease_owner = ? and body is null`,
      [
        firstPayload.body,
        firstPayload.timestamp,
        firstPayload.signature,
        firstPayload.signedWith ? JSON.stringify(firstPayload.signedWith) : null,
        claim.id,
        claim.leaseOwner,
      ],
    );
    const [current] = await tx.execute<ClaimRow[]>(`select ${RETURNING} from webhook_deliveries d where d.id = ? and d.lease_owner = ?`, [
      claim.id,
      claim.leaseOwner,
    ]);
    if (!current) return null;
    const payload = toClaim(current).frozen!;
    const [attempt] = await tx.execute<{ id: string | number }[]>(
      `insert into webhook_attempts (delivery_id, number, trigger, started_at) values (?, ?, ?, clock_timestamp()) returning id`,
      [claim.id, claim.attemptNumber, trigger],
    );
    return { attemptId: Number(attempt!.id), payload };
  });
}

/** What follows a failed attempt: the endpoint's switch (decision 23) and the delays of WEBHOOK_RETRY_SCHEDULE. */
export interface RetryPolicy {
  enabled: boolean;
  scheduleMs: readonly number[];
}

/**
 * Records the outcome on the attempt and on the delivery, and releases the
 * claim. Returns false when the claim had been lost (the lease expired and
 * another instance took over); the attempt's own outcome is recorded anyway.
 *
 * A retryable failure (timeout, network error, 5xx) on an endpoint with
 * retries on leaves the delivery `PENDING`, due again after the schedule's
 * next delay: the n-th failed automatic attempt waits `scheduleMs[n-1]`, so
 * a delivery gets 1 + scheduleMs.length automatic attempts before it is
 * `FAILED`. A manual resend spends no step of the schedule: failing the same
 * way, it leaves a waiting delivery waiting as it was, and never starts a
 * schedule on a finished one. Anything else is the attempt's outcome.
 */
export async function finishAttempt(
  em: EntityManager,
  claim: ClaimedDelivery,
  attemptId: number | null,
  result: AttemptResult,
  trigger: WebhookAttemptTrigger,
  retry: RetryPolicy,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    if (attemptId != null) {
      await tx.execute(
        `update webhook_attempts set outcome = ?, finished_at = clock_timestamp(), response_status = ?, duration_ms = ?, response_excerpt = ?, error = ?
         where id = ?`,
        [result.outcome, result.responseStatus, result.durationMs, result.responseExcerpt, result.error?.slice(0, 512) ?? null, attemptId],
      );
    }
    // How the next attempt time is set: cleared (an outcome), kept (a resend of a waiting delivery), or a delay from now.
    let nextAttempt: 'none' | 'keep' | number = 'none';
    if (result.outcome === 'FAILED' && result.retryable && retry.enabled) {
      if (trigger === 'resend') {
        nextAttempt = 'keep';
      } else {
        const [failed] = await tx.execute<{ n: string | number }[]>(
          `select count(*) as n from webhook_attempts where delivery_id = ? and trigger <> 'resend' and outcome = 'FAILED'`,
          [claim.id],
        );
        const delay = retry.scheduleMs[Number(failed?.n ?? 0) - 1];
        if (delay !== undefined) nextAttempt = delay;
      }
    }
    const released = await tx.execute<{ id: string }[]>(
      nextAttempt === 'none'
        ? `update webhook_deliveries set status = ?, next_attempt_at = null, lease_owner = null, lease_until = null, updated_at = clock_timestamp()
           where id = ? and lease_owner = ? returning id`
        : nextAttempt === 'keep'
          ? // Only a delivery that was waiting stays waiting; one with an outcome gets this attempt's.
            `update webhook_deliveries set status = case when next_attempt_at is not null then 'PENDING' else ? end,
               lease_owner = null, lease_until = null, updated_at = clock_timestamp()
             where id = ? and lease_owner = ? returning id`
          : `update webhook_deliveries set status = 'PENDING', next_attempt_at = clock_timestamp() + (${Math.trunc(nextAttempt)} * interval '1 millisecond'),
               lease_owner = null, lease_until = null, updated_at = clock_timestamp()
             where id = ? and lease_owner = ? returning id`,
      typeof nextAttempt === 'number' ? [claim.id, claim.leaseOwner] : [result.outcome, claim.id, claim.leaseOwner],
    );
    return released.length > 0;
  });
}
