/**
 * A recurring charge reported by the gateway (gateway_b sends it as a payment
 * event tied to a subscription, gateway_c and gateway_a as charge events):
 * the cycle's Payment is created or updated and linked to the subscription,
 * and the first time it settles the subscription records `renewed` or
 * `payment_failed` next to the payment's own events, in one transaction.
 */
import type { GatewayName } from '../../contract/enums';
import { Payment } from '../payments/payment';
import { Subscription } from './subscription';
import { gatewayNotification } from '../report-order';
import type { GatewayEvent } from '../../gateways';
import type { DomainEvent } from '../events';
import type { LockedChange } from '../locked-apply';
import { requestFingerprint } from '../registration/idempotency';

type ChargeEvent = Extract<GatewayEvent, { kind: 'subscription_charge' }>;

/** A charge the gateway reported for a subscription, as a change of the locked subscription. */
export function subscriptionChargeChange(target: { environmentId: string; gateway: GatewayName; eventClockResolutionMs: number }, event: ChargeEvent): LockedChange<Subscription> {
  return async (subscription, tx) => {
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
        requestHash: requestFingerprint(charge.gatewayRef),
        subscriptionId: subscription.id,
      });
      events.push(...payment.registerAtGateway(charge));
    } else {
      events.push(...payment.applyGatewaySnapshot(charge));
    }
    const settled = events.map((e) => e.type);
    if (event.outcome === 'paid' && settled.includes('payment.paid')) events.push(...subscription.chargePaid(event.nextBillingAt, gatewayNotification(event.occurredAt, target.eventClockResolutionMs)));
    if (event.outcome === 'failed' && settled.includes('payment.failed')) events.push(...subscription.chargeFailed());
    return events;
  };
}
