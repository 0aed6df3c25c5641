/**
 * Applies one authenticated, normalized gateway event through the domain,
 * exactly once. The receipt (account, gateway event id) is written in the
 * same transaction as the change, under the resource's row lock: a
 * redelivered event finds its receipt and changes nothing, and a change that
 * fails leaves no receipt behind, so the gateway's retry is applied. A late
 * or out-of-order event cannot undo a newer state either: it is placed by the
 * gateway's own event time, at the resolution of the gateway's clock, against
 * the newest report applied (domain/report-order.ts), or, where a protocol
 * gives no time, statuses only move forward (decision 17).
 */
import type { EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import { Payment } from '../payments/payment';
import { Subscription } from '../subscriptions/subscription';
import { gatewayNotification } from '../report-order';
import type { EntityManager } from '../../db/orm';
import type { GatewayEvent } from '../../gateways';
import type { Services } from '../../services';
import { applyLocked, type LockedChange } from '../locked-apply';
import { paymentSnapshotChange } from '../payments/apply-snapshot';
import { subscriptionChargeChange } from '../subscriptions/charges';
import { cancelLateCheckout } from '../subscriptions/sync';
import { refundSnapshotChange } from '../refunds/apply-snapshot';
import { Refund } from '../refunds/refund';
import { noteOrphanReport } from '../reconciliation/orphan-reports';

export type EventOutcome = 'applied' | 'duplicate' | 'unknown_reference' | 'abandoned_attempt';

export interface InboundTarget {
  accountId: string;
  environmentId: string;
  gateway: GatewayName;
  /** The resolution of the gateway's event times (its adapter's `eventClockResolutionMs`). */
  eventClockResolutionMs: number;
}

/** True when this event is new for the account; false when its receipt exists (a redelivery). */
async function recordReceipt(tx: EntityManager, target: InboundTarget, event: GatewayEvent): Promise<boolean> {
  const inserted = await tx.execute<{ id: number }[]>(
    `insert into inbound_webhooks (account_id, event_id, kind, received_at) values (?, ?, ?, ?)
     on conflict (account_id, event_id) do nothing returning id`,
    [target.accountId, event.eventId.slice(0, 255), event.kind, new Date()],
  );
  return inserted.length === 1;
}

/** Applies a change under the resource's row lock, but only when `isNew` records the event as new in the same transaction. */
type LockedApplication = (em: EntityManager, services: Services, isNew: (tx: EntityManager) => Promise<boolean>) => Promise<unknown>;

function onLocked<T extends { id: string }>(entity: EntityClass<T>, id: string, change: LockedChange<T>): LockedApplication {
  return (em, services, isNew) => applyLocked(em, services, entity, id, async (locked, tx) => ((await isNew(tx)) ? change(locked, tx) : []));
}

/** The stored resource an event is about, with the change it makes; null when the resource is unknown here (yet). */
async function applicationOf(em: EntityManager, services: Services, target: InboundTarget, event: GatewayEvent): Promise<LockedApplication | null> {
  const scope = { environment: target.environmentId, gateway: target.gateway };
  const report = gatewayNotification(event.occurredAt, target.eventClockResolutionMs);
  switch (event.kind) {
    case 'payment_status': {
      const payment = await em.findOne(Payment, { ...scope, gatewayRef: event.payment.gatewayRef });
      return payment && onLocked(Payment, payment.id, paymentSnapshotChange(services.log, event.payment, report));
    }
    case 'subscription_status': {
      const subscription = await em.findOne(Subscription, { ...scope, gatewayRef: event.subscription.gatewayRef });
      return subscription && onLocked(Subscription, subscription.id, (s) => s.applyGatewaySnapshot(event.subscription, report));
    }
    case 'subscription_checkout_completed': {
      const subscription = await em.findOne(Subscription, { ...scope, gatewayRef: { $in: [event.checkoutRef, event.subscription.gatewayRef] } });
      if (!subscription) return null;
      if (subscription.status === 'canceled') await cancelLateCheckoutOf(em, services, target, subscription, event.subscription.gatewayRef);
      return onLocked(Subscription, subscription.id, (s) => s.completeCheckout(event.subscription, report));
    }
    case 'subscription_charge': {
      const subscription = await em.findOne(Subscription, { ...scope, gatewayRef: event.subscriptionRef });
      return subscription && onLocked(Subscription, subscription.id, subscriptionChargeChange(target, event));
    }
    case 'refund_status': {
      // A refund whose create answer has not been committed yet has no reference here: unknown, so the gateway's redelivery applies it.
      const refund = await em.findOne(Refund, { ...scope, gatewayRef: event.refund.gatewayRef });
      return refund && onLocked(Refund, refund.id, refundSnapshotChange(services.log, event.refund, event.occurredAt ? new Date(event.occurredAt) : null));
    }
  }
}

/** A checkout completed after its subscription was canceled here: the gateway subscription it made is canceled before the notification is recorded, so a failure is retried with the gateway's redelivery. */
async function cancelLateCheckoutOf(em: EntityManager, services: Services, target: InboundTarget, subscription: Subscription, gatewayRef: string): Promise<void> {
  const route = await services.gateways.forExisting(em, target.environmentId, target.gateway);
  await cancelLateCheckout(route.adapter, services, subscription, await route.adapter.getSubscription(gatewayRef));
}

export async function applyGatewayEvent(em: EntityManager, services: Services, target: InboundTarget, event: GatewayEvent): Promise<EventOutcome> {
  const application = await applicationOf(em, services, target, event);
  if (!application) {
    // An attempt a fallback abandoned (decision 28): a paid one is marked on its payment's trace, never applied to the payment.
    if (event.kind === 'payment_status' && (await noteOrphanReport(em, services, target, event.payment))) return 'abandoned_attempt';
    // No receipt: if the resource appears later (its create still committing), a redelivery applies.
    return 'unknown_reference';
  }
  let duplicate = false;
  await application(em, services, async (tx) => {
    duplicate = !(await recordReceipt(tx, target, event));
    return !duplicate;
  });
  return duplicate ? 'duplicate' : 'applied';
}
