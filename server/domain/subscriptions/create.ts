/**
 * POST /v1/subscriptions: card-only, routed by the SUBSCRIPTION rule, and
 * idempotent by externalId exactly like payments (unique constraint, leased
 * registration, stable gateway idempotency key).
 */
import { createHash } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { z } from 'zod';
import type { GatewayName } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import { digitsOf } from '../../contract/schemas/common';
import type { CreateSubscriptionInput as CreateSubscriptionBody } from '../../contract/schemas/subscription';
import { Subscription } from '../../db/entities/subscription';
import { gatewayCapabilities, type CreateSubscriptionInput } from '../../gateways';
import { assertBillingActive } from '../billing';
import { recordEvents } from '../events';
import type { PaymentContext } from '../payments/create';
import { requestHash } from '../payments/create';
import { callGatewayForRegistration, completeRegistration, leaseEnd } from '../registration';

export type CreateSubscriptionRequest = z.output<typeof CreateSubscriptionBody>;

const idempotencyKey = (environmentId: string, externalId: string): string =>
  createHash('sha256').update(`subscription\u0000${environmentId}\u0000${externalId}`).digest('hex').slice(0, 48);

function assertGatewayAccepts(gateway: GatewayName, request: CreateSubscriptionRequest): string | null {
  const capabilities = gatewayCapabilities[gateway];
  if (capabilities.phoneRequiredForSubscription && !request.customer.phone) {
    throw new ApiError('invalid_input', { issues: [{ path: ['customer', 'phone'], message: `is required for subscriptions on ${gateway}` }] });
  }
  if (!capabilities.planIdRequired) return null;
  const planId = request.gateway?.[gateway as 'gateway_c']?.planId;
  if (!planId) {
    throw new ApiError('invalid_input', { issues: [{ path: ['gateway', gateway, 'planId'], message: `is required when subscriptions route to ${gateway}` }] });
  }
  return planId;
}

/** Decision 3: trialing when trial days are configured, else active. */
const initialStatus = (trialDays: number) => (trialDays > 0 ? 'trialing' : 'active');

export async function createSubscription(context: PaymentContext, request: CreateSubscriptionRequest): Promise<Subscription> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  assertBillingActive(organization);

  const hash = requestHash(request);
  const existing = await em.findOne(Subscription, { environment: environment.id, externalId: request.externalId });
  if (existing) return answerExisting(context, existing, hash);

  const route = await services.gateways.resolve(em, environment.id, 'SUBSCRIPTION');
  const planId = assertGatewayAccepts(route.gateway, request);
  const gatewayRequest: CreateSubscriptionInput = {
    idempotencyKey: idempotencyKey(environment.id, request.externalId),
    amount: request.amount,
    interval: request.interval,
    trialDays: request.trialDays,
    customer: {
      name: request.customer.name,
      email: request.customer.email,
      document: digitsOf(request.customer.document),
      phone: request.customer.phone ?? null,
    },
    planId,
  };
  const now = services.now();
  const subscription = em.create(Subscription, {
    environment,
    externalId: request.externalId,
    gateway: route.gateway,
    amount: request.amount,
    currency: request.currency,
    interval: request.interval,
    trialDays: request.trialDays,
    status: initialStatus(request.trialDays),
    trialEndsAt: request.trialDays > 0 ? new Date(now.getTime() + request.trialDays * 86_400_000) : null,
    planId,
    customerName: request.customer.name,
    customerEmail: request.customer.email,
    customerDocumentLast4: digitsOf(request.customer.document).slice(-4),
    metadata: request.metadata ?? null,
    requestHash: hash,
    pendingRequestSealed: services.secrets.sealJson(gatewayRequest),
    registrationLeaseUntil: leaseEnd(services),
  });
  try {
    await em.flush();
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const fresh = em.fork();
    const winner = await fresh.findOneOrFail(Subscription, { environment: environment.id, externalId: request.externalId });
    return answerExisting({ ...context, em: fresh }, winner, hash);
  }
  return registration(context, subscription, true);
}

function answerExisting(context: PaymentContext, subscription: Subscription, hash: string): Promise<Subscription> | Subscription {
  if (subscription.requestHash !== hash) {
    context.services.log.info({ subscriptionId: subscription.id }, 'repeated externalId with a different payload: the existing subscription is returned unchanged');
  }
  return subscription.isRegistered ? subscription : registration(context, subscription, false);
}

function registration(context: PaymentContext, subscription: Subscription, owned: boolean): Promise<Subscription> {
  return completeRegistration({
    em: context.em,
    services: context.services,
    entity: Subscription,
    resource: subscription,
    owned,
    register: async (em, current) => {
      const { services, principal } = context;
      const route = await services.gateways.forExisting(em, principal.environment.id, current.gateway);
      const request = services.secrets.openJson<CreateSubscriptionInput>(current.pendingRequestSealed!);
      const snapshot = await callGatewayForRegistration(em, Subscription, current, () => route.adapter.createSubscription(request));
      const registered = await em.transactional(async (tx) => {
        const locked = await tx.findOneOrFail(Subscription, { id: current.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
        if (locked.isRegistered) return locked;
        recordEvents(tx, locked.registerAtGateway(snapshot));
        return locked;
      });
      services.outbox.notify();
      return registered;
    },
  });
}
