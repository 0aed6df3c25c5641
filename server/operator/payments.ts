/** The dashboard's payments of an environment: filtered, cursor-paginated list, and one payment with its events and their deliveries. */
import { Payment } from '../domain/payments/payment';
import { listPayments, paymentDetail } from '../domain/payments/listing';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { PaymentGetInput, PaymentListInput } from '../contract/operator/listing';
import { operatorProcedure, operatorT as t } from './procedure';
import { PaymentActionInput } from '../contract/operator/actions';
import { actingForPayment } from './acting-for';
import { cancelPayment } from '../domain/payments/cancel';
import { syncPayment } from '../domain/payments/sync';
import { paymentBody } from '../domain/payments/view';
import { paymentActionOptions } from '../domain/action-options';
import { PaymentTraceInput } from '../contract/operator/gateways';
import { paymentTrace } from '../domain/routing/views';

export const paymentsRouter = t.router({
  list: operatorProcedure.input(PaymentListInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listPayments(ctx.reads, input);
  }),

  get: operatorProcedure.input(PaymentGetInput).query(async ({ ctx, input }) => {
    const missing = notFound('Payment', input.paymentId);
    const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
    if (!payment) throw missing;
    await recordAccess(ctx, payment.environment.id, 'read', missing);
    return paymentDetail(ctx.em, payment);
  }),

  /** What cancel and sync would do with this payment now, and why not (the dashboard's buttons). */
  actions: operatorProcedure.input(PaymentActionInput).query(async ({ ctx, input }) => {
    const missing = notFound('Payment', input.paymentId);
    const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
    if (!payment) throw missing;
    await recordAccess(ctx, payment.environment.id, 'read', missing);
    return paymentActionOptions(payment);
  }),

  /** POST /v1/payments/{id}/cancel for a developer of its organization: the same rules (a Pix cannot be canceled) and refusals. */
  cancel: operatorProcedure.input(PaymentActionInput).mutation(async ({ ctx, input }) => {
    const context = await actingForPayment(ctx, input.paymentId, 'develop');
    return paymentBody(await cancelPayment(context, input.paymentId));
  }),

  /** POST /v1/payments/{id}/sync for a developer: reads the payment from its gateway now and applies what it says. */
  sync: operatorProcedure.input(PaymentActionInput).mutation(async ({ ctx, input }) => {
    const context = await actingForPayment(ctx, input.paymentId, 'develop');
    return paymentBody(await syncPayment(context, input.paymentId));
  }),

  /** How routing chose the gateway: the rule, the candidates, each attempt (decision 21). */
  trace: operatorProcedure.input(PaymentTraceInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return paymentTrace(ctx.em, input);
  }),
});
