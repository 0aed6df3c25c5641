/**
 * Registering a stored payment at its gateway, exactly once. One request at a
 * time holds the registration lease (a conditional UPDATE, so it works across
 * nodes); it calls the gateway with the payment's idempotency key and commits
 * the gateway reference, the `payment.created` event (and `payment.pending`
 * when a Pix comes back with its code) and the monthly usage in one
 * transaction. Others wait for the result, or take over when the lease lapses
 * (the holder failed or died), which completes an interrupted create.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LockMode } from '@mikro-orm/core';
import { ApiError, isApiError } from '../../contract/errors';
import { Payment } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { CreatePaymentInput } from '../../gateways';
import { usagePeriod } from '../billing';
import { recordEvents } from '../events';
import type { PaymentContext } from './create';
import { leaseEnd } from './create';

const POLL_MS = 100;

export async function completeRegistration(context: PaymentContext, payment: Payment, { owned }: { owned: boolean }): Promise<Payment> {
  const { services } = context;
  const deadline = Date.now() + services.config.gatewayTimeouts.totalMs * 2 + 10_000;
  let holder = owned;
  for (;;) {
    if (holder) return register(context, payment);
    const em = context.em.fork();
    const current = await em.findOne(Payment, { id: payment.id });
    if (!current) {
      // The holder's gateway refused the request and freed the externalId.
      throw new ApiError('invalid_input', { issues: [{ path: [], message: 'the gateway refused this payment; check the request and retry' }] });
    }
    if (current.isRegistered) return current;
    holder = await acquireLease(em, current, services);
    if (holder) {
      payment = current;
      context = { ...context, em };
      continue;
    }
    if (Date.now() > deadline) throw new ApiError('gateway_error', { provider: current.gateway });
    await sleep(POLL_MS);
  }
}

async function acquireLease(em: EntityManager, payment: Payment, services: PaymentContext['services']): Promise<boolean> {
  const now = services.now();
  const taken = await em.nativeUpdate(
    Payment,
    { id: payment.id, gatewayRef: null, $or: [{ registrationLeaseUntil: null }, { registrationLeaseUntil: { $lt: now } }] },
    { registrationLeaseUntil: leaseEnd(services) },
  );
  return taken === 1;
}

async function register(context: PaymentContext, payment: Payment): Promise<Payment> {
  const { em, services, principal } = context;
  const route = await services.gateways.forExisting(em, principal.environment.id, payment.gateway);
  const request = services.secrets.openJson<CreatePaymentInput>(payment.pendingRequestSealed!);
  let snapshot;
  try {
    snapshot = await route.adapter.createPayment(request);
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_input') {
      // Refused by the gateway: nothing exists there, so the externalId is free for a corrected request.
      await em.fork().nativeDelete(Payment, { id: payment.id, gatewayRef: null });
    } else {
      // Unknown outcome: keep the payment so a retry completes it with the same idempotency key.
      await em.fork().nativeUpdate(Payment, { id: payment.id, gatewayRef: null }, { registrationLeaseUntil: null });
    }
    throw error;
  }

  const now = services.now();
  const registered = await em.transactional(async (tx) => {
    const current = await tx.findOneOrFail(Payment, { id: payment.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (current.isRegistered) return current;
    recordEvents(tx, current.registerAtGateway(snapshot));
    await tx.flush();
    await tx.execute(
      `insert into monthly_usage (organization_id, period, transactions) values (?, ?, 1)
       on conflict (organization_id, period) do update set transactions = monthly_usage.transactions + 1`,
      [principal.organization.id, usagePeriod(now)],
    );
    return current;
  });
  services.outbox.notify();
  return registered;
}
