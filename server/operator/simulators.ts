/**
 * The procedures that drive the sandbox simulators of the embedded demo
 * (domain/sandbox.ts). Acting on a payment or subscription, or triggering an
 * event in a named environment, is a developer's action in that
 * organization, in sandbox environments only. Faults, replays and the list
 * of simulators touch the in-process simulators every organization shares:
 * operators only.
 */
import { z } from 'zod';
import { RecordId } from '../contract/schemas/text';
import { GATEWAY_NAMES } from '../contract/enums';
import { Environment } from '../db/entities';
import { Payment } from '../domain/payments/payment';
import { Subscription } from '../domain/subscriptions/subscription';
import { Refund } from '../domain/refunds/refund';
import { WEBHOOK_EVENT_TYPES } from '../contract/event-types';
import { notFound, operatorRefusal } from '../domain/refusal';
import { runningSimulators, sandboxOf, simulatePayment, simulateRefund, simulateSubscription, triggerEvent } from '../domain/sandbox';
import { countSandboxKeyUse, ownEnvironment } from '../domain/sandbox-keys';
import { faultSchema, PAYMENT_OUTCOMES, REFUND_OUTCOMES, REFUND_SETTLEMENTS, SIM_OPERATIONS, SUBSCRIPTION_OUTCOMES } from '../contract/sandbox-controls';
import { environmentAccess, recordAccess, requireOperator } from './access';
import { operatorProcedure, operatorT as t, type OperatorContext } from './procedure';

/**
 * A developer of the record's organization, and a sandbox record: production money is never simulated.
 * With a sandbox API key: a record of the key's own environment (any other is not found, so nothing
 * about it is told), counted in the key's rate limits like a /v1 write.
 */
async function sandboxRecordAccess(ctx: OperatorContext, environmentId: string, what: string, id: string): Promise<void> {
  if (ctx.sandboxKey) {
    if (environmentId !== ctx.sandboxKey.environmentId) throw notFound(what, id);
    return countSandboxKeyUse(ctx.services, ctx.sandboxKey, 'default');
  }
  await recordAccess(ctx, environmentId, 'develop', notFound(what, id));
  const environment = await ctx.em.findOneOrFail(Environment, { id: environmentId });
  if (environment.kind !== 'sandbox') throw operatorRefusal('invalid', `${what} ${id} is in a production environment; simulators act on sandbox ones only.`);
}

export const simulatorsRouter = t.router({
  list: operatorProcedure.query(({ ctx }) => {
    requireOperator(ctx.actor);
    return runningSimulators(ctx.services);
  }),

  payment: operatorProcedure
    .input(z.strictObject({ paymentId: RecordId, outcome: z.enum(PAYMENT_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
      if (!payment) throw notFound('Payment', input.paymentId);
      await sandboxRecordAccess(ctx, payment.environment.id, 'Payment', input.paymentId);
      return simulatePayment(ctx.em, ctx.services, input.paymentId, input.outcome);
    }),

  subscription: operatorProcedure
    .input(z.strictObject({ subscriptionId: RecordId, outcome: z.enum(SUBSCRIPTION_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      const subscription = await ctx.em.findOne(Subscription, { id: input.subscriptionId });
      if (!subscription) throw notFound('Subscription', input.subscriptionId);
      await sandboxRecordAccess(ctx, subscription.environment.id, 'Subscription', input.subscriptionId);
      return simulateSubscription(ctx.em, ctx.services, input.subscriptionId, input.outcome);
    }),

  /**
   * A pending refund settles or fails at its gateway's simulator, which sends
   * its notification: by our id (`ref_…`, a developer of its organization, in
   * a sandbox), or, for an operator, by the gateway's own refund id (`re_…`,
   * `est_…`, `rf_…`, a Pix devolução's id or rtrId) with the gateway named.
   */
  refund: operatorProcedure
    .input(z.strictObject({ refundId: RecordId, gateway: z.enum(GATEWAY_NAMES).optional(), outcome: z.enum(REFUND_OUTCOMES) }))
    .mutation(async ({ ctx, input }) => {
      if (input.refundId.startsWith('ref_')) {
        const refund = await ctx.em.findOne(Refund, { id: input.refundId });
        if (!refund) throw notFound('Refund', input.refundId);
        await sandboxRecordAccess(ctx, refund.environment.id, 'Refund', input.refundId);
        return simulateRefund(ctx.em, ctx.services, input.refundId, input.outcome);
      }
      requireOperator(ctx.actor);
      if (!input.gateway) throw operatorRefusal('invalid', `Name the gateway whose refund ${input.refundId} is (gateway), or give our refund id (ref_…).`);
      const reason = await sandboxOf(ctx.services, input.gateway).refund(input.gateway, input.refundId, input.outcome);
      if (reason) throw operatorRefusal('conflict', `Refund ${input.refundId} cannot do that now: the sandbox gateway says its ${reason}.`);
      return { gateway: input.gateway, refundRef: input.refundId, outcome: input.outcome };
    }),

  /** Whether a gateway's refunds asked for from now on stay pending until settled or failed (`later`, the default) or settle in the refund call (`at-once`). */
  refundSettlement: operatorProcedure
    .input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES), mode: z.enum(REFUND_SETTLEMENTS) }))
    .mutation(async ({ ctx, input }) => {
      requireOperator(ctx.actor);
      await sandboxOf(ctx.services, input.gateway).refundSettlement(input.gateway, input.mode);
      return { gateway: input.gateway, mode: input.mode };
    }),

  /** The next `times` calls of an operation misbehave (latency, hang, 5xx, 4xx, 422, malformed, lost answer). */
  fault: operatorProcedure
    .input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES), operation: z.enum(SIM_OPERATIONS), fault: faultSchema, times: z.int().min(1).max(1000).default(1) }))
    .mutation(({ ctx, input }) => {
      requireOperator(ctx.actor);
      sandboxOf(ctx.services, input.gateway).injectFault(input.gateway, input.operation, input.fault, input.times);
      return { gateway: input.gateway, operation: input.operation, fault: input.fault, times: input.times };
    }),

  clearFaults: operatorProcedure.input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES) })).mutation(({ ctx, input }) => {
    requireOperator(ctx.actor);
    sandboxOf(ctx.services, input.gateway).clearFaults(input.gateway);
    return { gateway: input.gateway, cleared: true };
  }),

  /**
   * Produces an event of the given type in a sandbox environment (the only
   * sandbox when none is named: operators only). With a sandbox API key: the
   * key's own environment, counted like a create in the key's rate limits.
   */
  trigger: operatorProcedure
    .input(z.strictObject({ eventType: z.enum(WEBHOOK_EVENT_TYPES), environmentId: RecordId.optional() }))
    .mutation(async ({ ctx, input }) => {
      if (ctx.sandboxKey) {
        const environmentId = ownEnvironment(ctx.sandboxKey, input.environmentId);
        await countSandboxKeyUse(ctx.services, ctx.sandboxKey, 'payments_create');
        return triggerEvent(ctx.em, ctx.services, { eventType: input.eventType, environmentId });
      }
      if (input.environmentId) await environmentAccess(ctx, input.environmentId, 'develop');
      else if (ctx.actor.kind !== 'operator') throw operatorRefusal('invalid', 'Name the sandbox environment to trigger the event in (environmentId).');
      return triggerEvent(ctx.em, ctx.services, input);
    }),

  /** Sends the last webhooks again, optionally newest first, to rehearse duplicates and disorder. */
  replay: operatorProcedure
    .input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES), last: z.int().min(1).max(1000).default(1), reverse: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      requireOperator(ctx.actor);
      const replayed = await sandboxOf(ctx.services, input.gateway).replayWebhooks(input.gateway, { last: input.last, reverse: input.reverse });
      return { gateway: input.gateway, replayed };
    }),
});
