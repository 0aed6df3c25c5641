/**
 * Driving the sandbox simulators that run inside the embedded demo service:
 * the operator says what the customer or the gateway did to one of our
 * payments, and the simulator does it and sends its webhook, like a real
 * gateway would.
 */
import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { GATEWAY_NAMES } from '../contract/enums';
import { Payment } from '../db/entities';
import { Subscription } from '../db/entities/subscription';
import { subscriptionBody } from '../domain/subscriptions/view';
import { paymentBody } from '../domain/payments/view';
import { adminProcedure, adminT as t, notFound } from './procedure';

export const PAYMENT_OUTCOMES = ['pay', 'decline', 'expire'] as const;
export const SUBSCRIPTION_OUTCOMES = ['complete-checkout', 'renew', 'charge-failure', 'past-due', 'end-trial'] as const;

export const simulatorsRouter = t.router({
  list: adminProcedure.query(({ ctx }) =>
    GATEWAY_NAMES.filter((gateway) => ctx.services.simulators?.[gateway]).map((gateway) => ({ gateway, url: ctx.services.simulators![gateway]!.url })),
  ),

  payment: adminProcedure
    .input(z.object({ paymentId: z.string(), outcome: z.enum(PAYMENT_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
      if (!payment) throw notFound('Payment', input.paymentId);
      const simulator = ctx.services.simulators?.[payment.gateway];
      if (!simulator) {
        throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `No simulator of ${payment.gateway} runs in this service; only the embedded demo runs them.` });
      }
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
      const simulator = ctx.services.simulators?.[subscription.gateway];
      if (!simulator) {
        throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `No simulator of ${subscription.gateway} runs in this service; only the embedded demo runs them.` });
      }
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
});
