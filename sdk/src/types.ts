/** Names for the parts of the generated contract types that merchants branch on. */
import type { AuthTest, Payment, Refund, Subscription } from './generated/contract.js';

export type PaymentStatus = Payment['status'];
export type PaymentMethod = Payment['method'];
export type GatewayName = Payment['gateway'];
export type Currency = Payment['currency'];
export type RefundStatus = Refund['status'];
export type SubscriptionStatus = Subscription['status'];
export type SubscriptionInterval = Subscription['interval'];
export type EnvironmentKind = AuthTest['environment']['kind'];
