/** The operator procedures that drive the sandbox simulators of the embedded demo (domain/sandbox.ts). */
import { z } from 'zod';
import { RecordId } from '../contract/schemas/text';
import { GATEWAY_NAMES } from '../contract/enums';
import { WEBHOOK_EVENT_TYPES } from '../domain/event-types';
import { PAYMENT_OUTCOMES, runningSimulators, simulatePayment, simulateSubscription, simulatorOf, SUBSCRIPTION_OUTCOMES, triggerEvent } from '../domain/sandbox';
import { faultSchema, SIM_OPERATIONS } from '../gateways/simulator/faults';
import { adminProcedure, adminT as t } from './procedure';

export const simulatorsRouter = t.router({
  list: adminProcedure.query(({ ctx }) => runningSimulators(ctx.services)),

  payment: adminProcedure
    .input(z.strictObject({ paymentId: RecordId, outcome: z.enum(PAYMENT_OUTCOMES) }))
    .mutation(({ ctx, input }) => simulatePayment(ctx.em, ctx.services, input.paymentId, input.outcome)),

  subscription: adminProcedure
    .input(z.strictObject({ subscriptionId: RecordId, outcome: z.enum(SUBSCRIPTION_OUTCOMES) }))
    .mutation(({ ctx, input }) => simulateSubscription(ctx.em, ctx.services, input.subscriptionId, input.outcome)),

  /** The next `times` calls of an operation misbehave (latency, hang, 5xx, 4xx, 422, malformed, lost answer). */
  fault: adminProcedure
    .input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES), operation: z.enum(SIM_OPERATIONS), fault: faultSchema, times: z.int().min(1).max(1000).default(1) }))
    .mutation(({ ctx, input }) => {
      simulatorOf(ctx.services, input.gateway).injectFault(input.operation, input.fault, input.times);
      return { gateway: input.gateway, operation: input.operation, fault: input.fault, times: input.times };
    }),

  clearFaults: adminProcedure.input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES) })).mutation(({ ctx, input }) => {
    simulatorOf(ctx.services, input.gateway).clearFaults();
    return { gateway: input.gateway, cleared: true };
  }),

  /** Produces an event of the given type in a sandbox environment (the only sandbox when none is named). */
  trigger: adminProcedure
    .input(z.strictObject({ eventType: z.enum(WEBHOOK_EVENT_TYPES), environmentId: RecordId.optional() }))
    .mutation(({ ctx, input }) => triggerEvent(ctx.em, ctx.services, input)),

  /** Sends the last webhooks again, optionally newest first, to rehearse duplicates and disorder. */
  replay: adminProcedure
    .input(z.strictObject({ gateway: z.enum(GATEWAY_NAMES), last: z.int().min(1).max(1000).default(1), reverse: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      const sent = await simulatorOf(ctx.services, input.gateway).replayWebhooks({ last: input.last, reverse: input.reverse });
      return { gateway: input.gateway, replayed: sent.map((delivery) => delivery.event) };
    }),
});
