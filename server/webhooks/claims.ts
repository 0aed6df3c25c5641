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
}

const RETURNING = 'd.id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.lease_owner, d.body, d.signed_timestamp, d.signature';

const toClaim = (row: ClaimRow): ClaimedDelivery => ({
  id: row.id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  attemptNumber: Number(row.attempt_count),
  leaseOwner: row.lease_owner,
  frozen:
    row.body != null && row.signed_timestamp != null && row.signature != null
      ? { body: row.body, timestamp: Number(row.signed_timestamp), signature: row.signature }
      : null,
});

const LEASE_FREE = '(d.lease_until is null or d.lease_until < clock_timestamp())';

/**
 * Claims up to `limit` deliveries for their automatic attempt: for each
 * endpoint only the oldest (by event sequence) delivery still `PENDING`, and
 * only if nobody holds it. While an endpoint's oldest pending delivery is in
 * flight its later ones wait, so one endpoint receives its events in order.
 * `SKIP LOCKED` lets instances claim side by side; the outer conditions are
 * re-checked on the row's latest version, so a row claimed or finished by
 * another instance meanwhile is never claimed twice.
 */
export async function claimNextDeliveries(em: EntityManager, limit: number, leaseOwner: string, leaseMs: number): Promise<ClaimedDelivery[]> {
  const rows = await em.execute<ClaimRow[]>(
    `with heads as (
       select distinct on (endpoint_id) id
       from webhook_deliveries
       where status = 'PENDING'
       order by endpoint_id, event_sequence
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
     where d.id = picked.id and d.status = 'PENDING' and ${LEASE_FREE}
     returning ${RETURNING}`,
    [limit, leaseOwner, leaseMs],
  );
  return rows.map(toClaim);
}

export type ResendClaim = { claimed: ClaimedDelivery } | { refused: 'not_found' | 'not_attempted_yet' | 'in_flight' };

/** Claims a delivery that already has an outcome for a manual resend; refuses while it is pending or in flight. */
export async function claimForResend(em: EntityManager, deliveryId: string, leaseOwner: string, leaseMs: number): Promise<ResendClaim> {
  const rows = await em.execute<ClaimRow[]>(
    `update webhook_deliveries d
     set lease_owner = ?, lease_until = clock_timestamp() + (? * interval '1 millisecond'),
         attempt_count = d.attempt_count + 1, last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
     where d.id = ? and d.status <> 'PENDING' and d.body is not null and ${LEASE_FREE}
     returning ${RETURNING}`,
    [leaseOwner, leaseMs, deliveryId],
  );
  if (rows[0]) return { claimed: toClaim(rows[0]) };
  const [current] = await em.execute<{ status: string }[]>(`select status from webhook_deliveries where id = ?`, [deliveryId]);
  if (!current) return { refused: 'not_found' };
  return { refused: current.status === 'PENDING' ? 'not_attempted_yet' : 'in_flight' };
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

/**
 * Records the outcome on the attempt and on the delivery, and releases the
 * claim. Returns false when the claim had been lost (the lease expired and
 * another instance took over); the attempt's own outcome is recorded anyway.
 */
export async function finishAttempt(em: EntityManager, claim: ClaimedDelivery, attemptId: number | null, result: AttemptResult): Promise<boolean> {
  return em.transactional(async (tx) => {
    if (attemptId != null) {
      await tx.execute(
        `update webhook_attempts set outcome = ?, finished_at = clock_timestamp(), response_status = ?, duration_ms = ?, response_excerpt = ?, error = ?
         where id = ?`,
        [result.outcome, result.responseStatus, result.durationMs, result.responseExcerpt, result.error?.slice(0, 512) ?? null, attemptId],
      );
    }
    const released = await tx.execute<{ id: string }[]>(
      `update webhook_deliveries set status = ?, lease_owner = null, lease_until = null, updated_at = clock_timestamp()
       where id = ? and lease_owner = ? returning id`,
      [result.outcome, claim.id, claim.leaseOwner],
    );
    return released.length > 0;
  });
}
