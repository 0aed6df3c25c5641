/** Inputs of the dashboard's actions on a payment or subscription (the /v1 cancel and sync, for a team member). Browser-safe. */
import { z } from 'zod';
import { RecordId } from '../schemas/text';

export const PaymentActionInput = z.strictObject({ paymentId: RecordId });
export const SubscriptionActionInput = z.strictObject({ subscriptionId: RecordId });
/** `atPeriodEnd`: the subscription runs until its current period ends (where its gateway supports it), as in POST /v1/subscriptions/{id}/cancel. */
export const SubscriptionCancelInput = z.strictObject({ subscriptionId: RecordId, atPeriodEnd: z.boolean().default(false) });
