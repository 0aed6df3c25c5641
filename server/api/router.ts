import { t } from './trpc';
import { listEventsProcedure } from './events';
import { cancelPaymentProcedure, createPaymentProcedure, getPayment, getPaymentByExternalId, syncPaymentProcedure } from './payments';
import { authTest, health } from './platform';
import { createRefundProcedure, getRefund, getRefundByExternalId } from './refunds';
import { cancelSubscriptionProcedure, createSubscriptionProcedure, getSubscription, getSubscriptionByExternalId, syncSubscriptionProcedure } from './subscriptions';

/** The public /v1 contract: every procedure here carries its REST mapping. */
export const v1Router = t.router({
  health,
  authTest,
  payments: t.router({
    create: createPaymentProcedure,
    findByExternalId: getPaymentByExternalId,
    get: getPayment,
    cancel: cancelPaymentProcedure,
    sync: syncPaymentProcedure,
  }),
  subscriptions: t.router({
    create: createSubscriptionProcedure,
    findByExternalId: getSubscriptionByExternalId,
    get: getSubscription,
    cancel: cancelSubscriptionProcedure,
    sync: syncSubscriptionProcedure,
  }),
  refunds: t.router({
    create: createRefundProcedure,
    findByExternalId: getRefundByExternalId,
    get: getRefund,
  }),
  events: t.router({
    list: listEventsProcedure,
  }),
});
export type V1Router = typeof v1Router;
