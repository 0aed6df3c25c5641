/**
 * Input of the dashboard's "new test payment" in a sandbox environment.
 * Browser-safe: the payment is validated with the very schema of
 * `POST /v1/payments`, so the form refuses what the API would.
 */
import { z } from 'zod';
import { CreatePaymentInput } from '../schemas/payment';
import { RecordId } from '../schemas/text';

export const CreateTestPaymentInput = z.strictObject({ environmentId: RecordId, payment: CreatePaymentInput });

export const SandboxReadinessInput = z.strictObject({ environmentId: RecordId });
