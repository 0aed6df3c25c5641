/**
 * Applying what a gateway reports about a refund (a webhook, a read) under
 * the refund's row lock, in one transaction with its events and, when it
 * succeeded, the payment's refunded total: `amountRefunded` moves exactly
 * when a refund becomes `succeeded`, once, whatever arrives twice or late.
 */
import type { Logger } from 'pino';
import type { EntityManager } from '../../db/orm';
import type { RefundSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { applyLocked, type LockedChange } from '../locked-apply';
import { Refund, settledAmount } from './refund';

/** Adds a succeeded refund's amount to its payment, in the caller's transaction (the payment's row is locked by the update). */
export async function addToRefundedTotal(tx: EntityManager, paymentId: string, amount: number): Promise<void> {
  await tx.execute(`update payments set amount_refunded = amount_refunded + ?, updated_at = ? where id = ?`, [amount, new Date(), paymentId]);
}

/** What a gateway reports about a refund, as a change of the locked refund. `reportedAt`: the report's own time (a webhook's event time, when a read began), null when unknown. */
export function refundSnapshotChange(log: Logger, snapshot: RefundSnapshot, reportedAt: Date | null): LockedChange<Refund> {
  return async (refund, tx) => {
    if (!snapshot.statusKnown) {
      log.warn({ refundId: refund.id, rawStatus: snapshot.rawStatus }, 'gateway reported a refund status missing from its status table; refund status kept');
    }
    const before = refund.status;
    const events = refund.applyGatewaySnapshot(snapshot, { reportedAt });
    if (before !== 'pending' && snapshot.statusKnown && snapshot.status !== before && snapshot.status !== 'pending') {
      // A final status never moves back; a gateway contradicting it is for operators to look at.
      log.warn({ refundId: refund.id, gateway: refund.gateway, status: before, reported: snapshot.status }, 'the gateway reports another final status for a refund that is already final here; kept');
    }
    const settled = settledAmount(events, refund);
    if (settled > 0) await addToRefundedTotal(tx, refund.payment.id, settled);
    return events;
  };
}

/** Applies a read of the gateway (reconciliation) to a stored refund, under its row lock. */
export const applyRefundSnapshot = (em: EntityManager, services: Pick<Services, 'outbox' | 'log'>, refundId: string, snapshot: RefundSnapshot, readAt: Date): Promise<Refund> =>
  applyLocked(em, services, Refund, refundId, refundSnapshotChange(services.log, snapshot, readAt));
