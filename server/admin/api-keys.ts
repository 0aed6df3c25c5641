import { z } from 'zod';
import { Name, RecordId } from '../contract/schemas/text';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyRateLimits } from '../domain/api-keys';
import { RATE_LIMIT_BUCKETS } from '../domain/rate-limits';
import { adminProcedure, adminT as t } from './procedure';

const RateLimits = z.partialRecord(z.enum(RATE_LIMIT_BUCKETS), z.int().min(1).max(1_000_000).nullable());

export const apiKeysRouter = t.router({
  /** The secret is in this answer only; the service keeps its hash. */
  create: adminProcedure
    .input(z.strictObject({ environmentId: RecordId, name: Name.optional() }))
    .mutation(({ ctx, input }) => createApiKey(ctx.em, input)),

  list: adminProcedure.input(z.strictObject({ environmentId: RecordId })).query(({ ctx, input }) => listApiKeys(ctx.em, input.environmentId)),

  revoke: adminProcedure.input(z.strictObject({ apiKeyId: RecordId })).mutation(({ ctx, input }) => revokeApiKey(ctx.em, input.apiKeyId, ctx.services.now())),

  setRateLimits: adminProcedure
    .input(z.strictObject({ apiKeyId: RecordId, limits: RateLimits }))
    .mutation(({ ctx, input }) => setApiKeyRateLimits(ctx.em, input.apiKeyId, input.limits)),
});
