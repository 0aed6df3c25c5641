/** The dashboard's payments of an environment: filtered, cursor-paginated list, and one payment with its events and their deliveries. */
import { Payment } from '../domain/payments/payment';
import { listPayments, paymentDetail } from '../domain/payments/listing';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { PaymentGetInput, PaymentListInput } from './inputs/listing';
import { adminProcedure, adminT as t } from './procedure';
import { PaymentTraceInput } from './inputs/gateways';
import { paymentTrace } from '../domain/routing-views';

export const paymentsRouter = t.router({
  list: adminProcedure.input(PaymentListInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listPayments(ctx.em, input);
  }),

  get: adminProcedure.input(PaymentGetInput).query(async ({ ctx, input }) => {
    const missing = notFound('Payment', input.paymentId);
    const payment = await ctx.em.findOne(Payment, { id: input.paymentId });
    if (!payment) throw missing;
    await recordAccess(ctx, payment.environment.id, 'read', missing);
    return paymentDetail(ctx.em, payment);
  }),

  /** How routing chose the gateway: the rule, the candidates, each attempt (decision 21). */
  trace: adminProcedure.input(PaymentTraceInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return paymentTrace(ctx.em, input);
  }),
});
