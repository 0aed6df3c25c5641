/**
 * Paid reports for an attempt a fallback abandoned (decisions 21 and 28). An
 * abandoned attempt whose orphan is known by its reference (a card charge
 * found again and canceled) is watched like a payment ended by our hand: the
 * payment stays on the reconciliation schedule for the late window, and each
 * of its reads also reads the orphans; a notification about an orphan is
 * matched by its reference. A "paid" for an orphan never changes the payment
 * (its gateway is the one that took the create): it is logged at warn and
 * marked on the attempt in the routing trace (`reportedPaidAt`), where
 * operators see the money to give back.
 */
import type { GatewayName } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import type { PaymentSnapshot } from '../../gateways/adapter';
import type { Services } from '../../services';
import { applyLocked } from '../locked-apply';
import { orphansToWatch, Payment } from '../payments/payment';
import { lateWatchFrom } from './late-money';

/** An orphan's reference became known: the payment is watched for the late window from now (and read soon) for its orphans. */
export async function watchOrphans(em: EntityManager, services: Services, paymentId: string): Promise<void> {
  const now = services.now();
  const { firstReadAt, watchUntil } = lateWatchFrom(services, now);
  await applyLocked(em, services, Payment, paymentId, (locked) => {
    if (orphansToWatch(locked.routingTrace).length === 0) return [];
    if (!locked.lateWatchUntil || locked.lateWatchUntil < watchUntil) locked.lateWatchUntil = watchUntil;
    if (!locked.reconcileAt || locked.reconcileAt > firstReadAt) locked.reconcileAt = firstReadAt;
    return [];
  });
}

/** Marks the orphan `ref` at `gateway` reported paid (once), with a warn line; the payment's own status is never touched. */
async function markOrphanPaid(em: EntityManager, services: Services, paymentId: string, gateway: GatewayName, ref: string, source: 'notification' | 'read'): Promise<void> {
  let marked = false;
  await applyLocked(em, services, Payment, paymentId, (locked) => {
    const trace = locked.routingTrace ? structuredClone(locked.routingTrace) : null;
    const attempt = trace?.attempts.find((entry) => entry.gateway === gateway && entry.orphanRef === ref);
    if (!trace || !attempt || attempt.reportedPaidAt) return [];
    attempt.reportedPaidAt = services.now().toISOString();
    locked.routingTrace = trace;
    marked = true;
    return [];
  });
  if (marked) {
    services.log.warn(
      { paymentId, gateway, orphanRef: ref, source },
      'an abandoned routing attempt was reported paid at its gateway; the payment is unchanged (its gateway is another), the money is to be returned there',
    );
  }
}

/**
 * Reads the watched orphans of a payment from their gateways; a paid one is
 * marked. A gateway that cannot be read now is read again at the next step.
 */
export async function readOrphans(em: EntityManager, services: Services, payment: Payment): Promise<Payment> {
  if (!payment.lateWatchUntil) return payment;
  for (const orphan of orphansToWatch(payment.routingTrace)) {
    try {
      const route = await services.gateways.forExisting(em, payment.environment.id, orphan.gateway);
      const snapshot = await route.adapter.getPayment(orphan.orphanRef);
      if (snapshot.status === 'paid') await markOrphanPaid(em, services, payment.id, orphan.gateway, orphan.orphanRef, 'read');
    } catch (error) {
      services.log.warn({ err: error, paymentId: payment.id, gateway: orphan.gateway }, 'reconciliation could not read an abandoned routing attempt; it is read again at the next step');
    }
  }
  return (await em.fork().findOne(Payment, { id: payment.id })) ?? payment;
}

/**
 * A payment notification whose reference is no payment's own: when it is an
 * orphan's and says paid, the orphan is marked. Answers whether it was an
 * orphan's (the notification is then handled, with nothing else to apply).
 * The lookup uses the index of the traces' orphan references.
 */
export async function noteOrphanReport(em: EntityManager, services: Services, target: { environmentId: string; gateway: GatewayName }, snapshot: PaymentSnapshot): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from payments where jsonb_path_query_array(routing_trace, '$.attempts[*].orphanRef') @> ?::jsonb and environment_id = ? limit 1`,
    [JSON.stringify([snapshot.gatewayRef]), target.environmentId],
  );
  const paymentId = rows[0]?.id;
  if (!paymentId) return false;
  if (snapshot.status === 'paid') await markOrphanPaid(em, services, paymentId, target.gateway, snapshot.gatewayRef, 'notification');
  return true;
}
