/** API keys of an environment: developers create, revoke and limit them; every member sees them (never their secrets). */
import { ApiKey } from '../db/entities';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyRateLimits } from '../domain/api-keys';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { CreateApiKeyInput, ListApiKeysInput, RevokeApiKeyInput, SetRateLimitsInput } from './inputs/keys';
import { adminProcedure, adminT as t, type AdminContext } from './procedure';

/** The key's organization decides; a key of another organization is not found. */
async function keyAccess(ctx: AdminContext, apiKeyId: string): Promise<void> {
  const missing = notFound('API key', apiKeyId);
  const key = await ctx.em.findOne(ApiKey, { id: apiKeyId });
  if (!key) throw missing;
  await recordAccess(ctx, key.environment.id, 'develop', missing);
}

export const apiKeysRouter = t.router({
  /** The secret is in this answer only; the service keeps its hash. */
  create: adminProcedure.input(CreateApiKeyInput).mutation(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'develop');
    return createApiKey(ctx.em, input);
  }),

  list: adminProcedure.input(ListApiKeysInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listApiKeys(ctx.em, input.environmentId);
  }),

  revoke: adminProcedure.input(RevokeApiKeyInput).mutation(async ({ ctx, input }) => {
    await keyAccess(ctx, input.apiKeyId);
    return revokeApiKey(ctx.em, input.apiKeyId, ctx.services.now());
  }),

  setRateLimits: adminProcedure.input(SetRateLimitsInput).mutation(async ({ ctx, input }) => {
    await keyAccess(ctx, input.apiKeyId);
    return setApiKeyRateLimits(ctx.em, input.apiKeyId, input.limits);
  }),
});
