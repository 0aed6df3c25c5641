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
import { applyPaymentSnapshot } from '../payments/transitions';

export type EventOutcome = 'applied' | 'duplicate' | 'unknown_reference' | 'ignored';

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

export async function applyGatewayEvent(em: EntityManager, services: Services, target: InboundTarget, event: GatewayEvent): Promise<EventOutcome> {
  if (event.kind !== 'payment_status') {
    services.log.info({ gateway: target.gateway, kind: event.kind }, 'subscription event received; subscriptions are not handled by this service yet');
    return 'ignored';
  }
  const payment = await em.findOne(Payment, { environment: target.environmentId, gateway: target.gateway, gatewayRef: event.payment.gatewayRef });
  // Not recorded as received: if the payment appears later (its create still committing), a redelivery applies.
  if (!payment) return 'unknown_reference';
  if (!(await recordReceipt(em, target, event))) return 'duplicate';
  await applyPaymentSnapshot(em, services, payment.id, event.payment);
  return 'applied';
}
