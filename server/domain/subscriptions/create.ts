/**
 * POST /v1/subscriptions: card-only, routed by the SUBSCRIPTION rule, and
 * idempotent by externalId exactly like payments (unique constraint, leased
 * registration, stable gateway idempotency key).
 */
import { createHash } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { z } from 'zod';
import type { GatewayName } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import type { CreateSubscriptionInput as CreateSubscriptionBody } from '../../contract/schemas/subscription';
import { Subscription } from '../../db/entities/subscription';
import { gatewayCapabilities, type CreateSubscriptionInput } from '../../gateways';
import { assertBillingActive } from '../billing';
import { recordEvents } from '../events';
import type { RequestContext } from '../request-context';
import { requestHash } from '../payments/create';
import { gatewayCustomer, storedCustomer } from '../customer';
import { callGatewayForRegistration, completeRegistration, flushOrFindWinner, leaseEnd, noteRepeatedRequest } from '../registration';

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

export async function createSubscription(context: RequestContext, request: CreateSubscriptionRequest): Promise<Subscription> {
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
    customer: gatewayCustomer(request.customer),
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
    ...storedCustomer(request.customer),
    metadata: request.metadata ?? null,
    requestHash: hash,
    pendingRequestSealed: services.secrets.sealJson(gatewayRequest),
    registrationLeaseUntil: leaseEnd(services),
  });
  const race = await flushOrFindWinner(em, Subscription, { environment: environment.id, externalId: request.externalId });
  if (race) return answerExisting({ ...context, em: race.em }, race.winner, hash);
  return registration(context, subscription, true);
}

async function answerExisting(context: RequestContext, subscription: Subscription, hash: string): Promise<Subscription> {
  noteRepeatedRequest(context.services, subscription, hash);
  return subscription.isRegistered ? subscription : registration(context, subscription, false);
}

function registration(context: RequestContext, subscription: Subscription, owned: boolean): Promise<Subscription> {
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
