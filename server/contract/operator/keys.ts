/** Inputs of the API-key procedures. Browser-safe (zod and the contract only). */
import { z } from 'zod';
import { Name, RecordId } from '../schemas/text';

/** The rate-limit buckets a key may override (the same list as domain/rate-limits.ts; a test keeps them equal). */
export const RATE_LIMIT_BUCKET_NAMES = ['payments_create', 'payments_sync', 'payments_cancel', 'default'] as const;

/** Requests per minute per bucket; null goes back to the service default. */
export const RateLimits = z.partialRecord(z.enum(RATE_LIMIT_BUCKET_NAMES), z.int().min(1).max(1_000_000).nullable());

export const CreateApiKeyInput = z.strictObject({ environmentId: RecordId, name: Name.optional() });
export const ListApiKeysInput = z.strictObject({ environmentId: RecordId });
export const RevokeApiKeyInput = z.strictObject({ apiKeyId: RecordId });
export const SetRateLimitsInput = z.strictObject({ apiKeyId: RecordId, limits: RateLimits });
