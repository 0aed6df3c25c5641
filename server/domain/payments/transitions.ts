/**
 * Applies what a gateway reports to a stored payment: under a row lock, in
 * one short transaction that also writes the events the change causes. The
 * lock serializes a webhook, a sync and a cancel racing on one payment, so
 * each sees the other's result and a final status can never be overwritten.
 */
import { LockMode } from '@mikro-orm/core';
import { Payment } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { PaymentSnapshot } from '../../gateways/adapter';
import type { Services } from '../../services';
import { recordEvents } from '../events';

export async function applyPaymentSnapshot(
  em: EntityManager,
  services: Pick<Services, 'outbox' | 'log'>,
  paymentId: string,
  snapshot: PaymentSnapshot,
): Promise<Payment> {
  if (!snapshot.statusKnown) {
    services.log.warn({ paymentId, rawStatus: snapshot.rawStatus }, 'gateway reported a status missing from its status table; payment status kept');
  }
  let changed = false;
  const payment = await em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(Payment, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const events = locked.applyGatewaySnapshot(snapshot);
    recordEvents(tx, events);
    changed = events.length > 0;
    return locked;
  });
  if (changed) services.outbox.notify();
  return payment;
}
