/**
 * Driving the sandbox simulators that run inside the embedded demo service:
 * the operator says what the customer or the gateway did to one of our
 * payments, and the simulator does it and sends its webhook, like a real
 * gateway would.
 */
import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { GATEWAY_NAMES, type GatewayName } from '../contract/enums';
import { faultSchema, SIM_OPERATIONS } from '../gateways/simulator/faults';
import type { Services } from '../services';
import { Payment } from '../db/entities';
import { Subscription } from '../db/entities/subscription';
import { subscriptionBody } from '../domain/subscriptions/view';
import { paymentBody } from '../domain/payments/view';
import { adminProcedure, adminT as t, notFound } from './procedure';

export const PAYMENT_OUTCOMES = ['pay', 'decline', 'expire'] as const;
export const SUBSCRIPTION_OUTCOMES = ['complete-checkout', 'renew', 'charge-failure', 'past-due', 'end-trial'] as const;

function simulatorOf(services: Services, gateway: GatewayName) {
  const simulator = services.simulators?.[gateway];
  if (!simulator) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `No simulator of ${gateway} runs in this service; only the embedded demo runs them.` });
  return simulator;
}

export const simulatorsRouter = t.router({
  list: adminProcedure.query(({ ctx }) =>
    GATEWAY_NAMES.filter((gateway) => ctx.services.simulators?.[gateway]).map((gateway) => ({ gateway, url: ctx.services.simulators![gateway]!.url })),
  ),

  payment: adminProcedure
    .input(z.object({ paymentId: z.string(), outcome: z.enum(PAYMENT_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
      if (!payment) throw notFound('Payment', input.paymentId);
      const simulator = simulatorOf(ctx.services, payment.gateway);
      if (!payment.gatewayRef) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `Payment ${payment.id} is not registered at its gateway.` });
      const act = { pay: simulator.payPayment, decline: simulator.declinePayment, expire: simulator.expirePayment }[input.outcome];
      await act.call(simulator, payment.gatewayRef);
      await simulator.flushWebhooks();
      return paymentBody(await ctx.em.fork().findOneOrFail(Payment, { id: payment.id }));
    }),

  subscription: adminProcedure
    .input(z.object({ subscriptionId: z.string(), outcome: z.enum(SUBSCRIPTION_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      const subscription = await ctx.em.findOne(Subscription, { id: input.subscriptionId });
      if (!subscription) throw notFound('Subscription', input.subscriptionId);
      const simulator = simulatorOf(ctx.services, subscription.gateway);
      if (!subscription.gatewayRef) throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `Subscription ${subscription.id} is not registered at its gateway.` });
      const ref = subscription.gatewayRef;
      const act = {
        'complete-checkout': () => simulator.completeCheckout(ref),
        renew: () => simulator.renewSubscription(ref),
        'charge-failure': () => simulator.failSubscriptionCharge(ref),
        'past-due': () => simulator.markPastDue(ref),
        'end-trial': () => simulator.endTrial(ref),
      }[input.outcome];
      await act();
      await simulator.flushWebhooks();
      return subscriptionBody(await ctx.em.fork().findOneOrFail(Subscription, { id: subscription.id }));
    }),

  /** The next `times` calls of an operation misbehave (latency, hang, 5xx, 4xx, 422, malformed, lost answer). */
  fault: adminProcedure
    .input(z.object({ gateway: z.enum(GATEWAY_NAMES), operation: z.enum(SIM_OPERATIONS), fault: faultSchema, times: z.int().min(1).max(1000).default(1) }))
    .mutation(({ ctx, input }) => {
      simulatorOf(ctx.services, input.gateway).injectFault(input.operation, input.fault, input.times);
      return { gateway: input.gateway, operation: input.operation, fault: input.fault, times: input.times };
    }),

  clearFaults: adminProcedure.input(z.object({ gateway: z.enum(GATEWAY_NAMES) })).mutation(({ ctx, input }) => {
    simulatorOf(ctx.services, input.gateway).clearFaults();
    return { gateway: input.gateway, cleared: true };
  }),

  /** Sends the last webhooks again, optionally newest first, to rehearse duplicates and disorder. */
  replay: adminProcedure
    .input(z.object({ gateway: z.enum(GATEWAY_NAMES), last: z.int().min(1).max(1000).default(1), reverse: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      const sent = await simulatorOf(ctx.services, input.gateway).replayWebhooks({ last: input.last, reverse: input.reverse });
      return { gateway: input.gateway, replayed: sent.map((delivery) => delivery.event) };
    }),
});
