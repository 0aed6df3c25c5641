/**
 * A recurring charge reported by the gateway (gateway_b sends it as a payment
 * event tied to a subscription, gateway_c and gateway_a as charge events):
 * the cycle's Payment is created or updated and linked to the subscription,
 * and the first time it settles the subscription records `renewed` or
 * `payment_failed` next to the payment's own events, in one transaction.
 */
import { createHash } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import { Payment } from '../../db/entities';
import { Subscription } from '../../db/entities/subscription';
import type { EntityManager } from '../../db/orm';
import type { GatewayEvent } from '../../gateways';
import type { Services } from '../../services';
import { recordEvents, type DomainEvent } from '../events';

type ChargeEvent = Extract<GatewayEvent, { kind: 'subscription_charge' }>;

export async function applySubscriptionCharge(
  em: EntityManager,
  services: Pick<Services, 'outbox'>,
  target: { environmentId: string; gateway: GatewayName },
  event: ChargeEvent,
): Promise<'applied' | 'unknown_reference'> {
  const found = await em.findOne(Subscription, { environment: target.environmentId, gateway: target.gateway, gatewayRef: event.subscriptionRef });
  if (!found) return 'unknown_reference';
  await em.transactional(async (tx) => {
    const subscription = await tx.findOneOrFail(Subscription, { id: found.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const charge = event.payment;
    let payment = await tx.findOne(Payment, { environment: target.environmentId, gateway: target.gateway, gatewayRef: charge.gatewayRef });
    const events: DomainEvent[] = [];
    if (!payment) {
      payment = tx.create(Payment, {
        environment: target.environmentId,
        externalId: `${subscription.id}:${charge.gatewayRef}`.slice(0, 255),
        method: 'card',
        gateway: target.gateway,
        amount: charge.amount,
        currency: 'BRL',
        customerName: subscription.customerName,
        customerEmail: subscription.customerEmail,
        customerDocumentLast4: subscription.customerDocumentLast4,
        requestHash: createHash('sha256').update(charge.gatewayRef).digest('hex'),
        subscriptionId: subscription.id,
      });
      events.push(...payment.registerAtGateway(charge));
    } else {
      events.push(...payment.applyGatewaySnapshot(charge));
    }
    const settled = events.map((e) => e.type);
    if (event.outcome === 'paid' && settled.includes('payment.paid')) events.push(...subscription.chargePaid(event.nextBillingAt));
    if (event.outcome === 'failed' && settled.includes('payment.failed')) events.push(...subscription.chargeFailed());
    recordEvents(tx, events);
  });
  services.outbox.notify();
  return 'applied';
}
