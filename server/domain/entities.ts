/** The whole model the ORM maps: the record tables of db/ and the aggregates that carry their own rules. */
import { RECORD_ENTITIES } from '../db/entities';
import { PaymentSchema } from './payments/payment';
import { RefundSchema } from './refunds/refund';
import { SubscriptionSchema } from './subscriptions/subscription';

export const ENTITIES = [...RECORD_ENTITIES, PaymentSchema, SubscriptionSchema, RefundSchema];
