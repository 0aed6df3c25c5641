/**
 * Registering a payment at its gateway (see domain/registration.ts for the
 * lease): the gateway reference, `payment.created` (and `payment.pending` when
 * a Pix comes back with its code) and the month's usage commit together.
 */
import { LockMode } from '@mikro-orm/core';
import { Payment } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { CreatePaymentInput } from '../../gateways';
import { usagePeriod } from '../billing';
import { recordEvents } from '../events';
import { callGatewayForRegistration, completeRegistration } from '../registration';
import type { RequestContext } from '../request-context';

export function completePaymentRegistration(context: RequestContext, payment: Payment, owned: boolean): Promise<Payment> {
  return completeRegistration({
    em: context.em,
    services: context.services,
    entity: Payment,
    resource: payment,
    owned,
    register: (em, current) => register({ ...context, em }, current),
  });
}

async function register(context: RequestContext, payment: Payment): Promise<Payment> {
  const { em, services, principal } = context;
  const route = await services.gateways.forExisting(em, principal.environment.id, payment.gateway);
  const request = services.secrets.openJson<CreatePaymentInput>(payment.pendingRequestSealed!);
  const snapshot = await callGatewayForRegistration(em, Payment, payment, () => route.adapter.createPayment(request));

  const registered = await em.transactional(async (tx) => {
    const current = await tx.findOneOrFail(Payment, { id: payment.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (current.isRegistered) return current;
    recordEvents(tx, current.registerAtGateway(snapshot));
    await tx.flush();
    await tx.execute(
      `insert into monthly_usage (organization_id, period, transactions) values (?, ?, 1)
       on conflict (organization_id, period) do update set transactions = monthly_usage.transactions + 1`,
      [principal.organization.id, usagePeriod(services.now())],
    );
    return current;
  });
  services.outbox.notify();
  return registered;
}
