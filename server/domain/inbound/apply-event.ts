/**
 * Applies one authenticated, normalized gateway event through the domain,
 * exactly once: the receipt (account, gateway event id) is unique, so a
 * redelivered event changes nothing; and since statuses only move forward, a
 * late or out-of-order event cannot undo a newer state either.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import { InboundWebhook, Payment } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { GatewayEvent } from '../../gateways';
import type { Services } from '../../services';
import { Subscription } from '../../db/entities/subscription';
import { applyPaymentSnapshot } from '../payments/transitions';
import { applySubscriptionCharge } from '../subscriptions/charges';
import { applySubscriptionChange } from '../subscriptions/transitions';

export type EventOutcome = 'applied' | 'duplicate' | 'unknown_reference';

export interface InboundTarget {
  accountId: string;
  environmentId: string;
  gateway: GatewayName;
}

async function recordReceipt(em: EntityManager, target: InboundTarget, event: GatewayEvent): Promise<boolean> {
  try {
    await em.insert(InboundWebhook, { account: target.accountId, eventId: event.eventId.slice(0, 255), kind: event.kind, receivedAt: new Date() });
    return true;
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return false;
    throw error;
  }
}

/** The stored resource an event is about; null when unknown here (yet). */
async function resourceOf(em: EntityManager, target: InboundTarget, event: GatewayEvent): Promise<Payment | Subscription | null> {
  const scope = { environment: target.environmentId, gateway: target.gateway };
  switch (event.kind) {
    case 'payment_status':
      return em.findOne(Payment, { ...scope, gatewayRef: event.payment.gatewayRef });
    case 'subscription_status':
      return em.findOne(Subscription, { ...scope, gatewayRef: event.subscription.gatewayRef });
    case 'subscription_checkout_completed':
      return em.findOne(Subscription, { ...scope, gatewayRef: { $in: [event.checkoutRef, event.subscription.gatewayRef] } });
    case 'subscription_charge':
      return em.findOne(Subscription, { ...scope, gatewayRef: event.subscriptionRef });
  }
}

export async function applyGatewayEvent(em: EntityManager, services: Services, target: InboundTarget, event: GatewayEvent): Promise<EventOutcome> {
  const resource = await resourceOf(em, target, event);
  // Not recorded as received: if the resource appears later (its create still committing), a redelivery applies.
  if (!resource) return 'unknown_reference';
  if (!(await recordReceipt(em, target, event))) return 'duplicate';
  try {
    await applyEvent(em, services, target, event, resource.id);
  } catch (error) {
    // Not applied: forget the receipt so the gateway's redelivery is applied instead of skipped as a duplicate.
    await em.fork().nativeDelete(InboundWebhook, { account: target.accountId, eventId: event.eventId.slice(0, 255) });
    throw error;
  }
  return 'applied';
}

async function applyEvent(em: EntityManager, services: Services, target: InboundTarget, event: GatewayEvent, resourceId: string): Promise<void> {
  switch (event.kind) {
    case 'payment_status':
      await applyPaymentSnapshot(em, services, resourceId, event.payment);
      return;
    case 'subscription_status':
      await applySubscriptionChange(em, services, resourceId, (s) => s.applyGatewaySnapshot(event.subscription));
      return;
    case 'subscription_checkout_completed':
      await applySubscriptionChange(em, services, resourceId, (s) => s.completeCheckout(event.subscription));
      return;
    case 'subscription_charge':
      await applySubscriptionCharge(em, services, target, event);
      return;
  }
}
