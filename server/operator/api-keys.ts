/** API keys of an environment: developers create, revoke and limit them; every member sees them (never their secrets). */
import { ApiKey } from '../db/entities';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyRateLimits } from '../domain/api-keys';
import { notFound } from '../domain/refusal';
import { apiKeyBefore } from '../domain/audit/snapshots';
import { audited, scopeOf } from './audited';
import { environmentAccess, recordAccess } from './access';
import { CreateApiKeyInput, ListApiKeysInput, RevokeApiKeyInput, SetRateLimitsInput } from '../contract/operator/keys';
import { operatorProcedure, operatorT as t, type OperatorContext } from './procedure';

/** The key's organization decides; a key of another organization is not found. Answers the key's environment. */
async function keyAccess(ctx: OperatorContext, apiKeyId: string) {
  const missing = notFound('API key', apiKeyId);
  const key = await ctx.em.findOne(ApiKey, { id: apiKeyId });
  if (!key) throw missing;
  await recordAccess(ctx, key.environment.id, 'develop', missing);
  return environmentAccess(ctx, key.environment.id, 'develop');
}

export const apiKeysRouter = t.router({
  /** The secret is in this answer only; the service keeps its hash. */
  create: operatorProcedure.input(CreateApiKeyInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    return audited(ctx, async (em, audit) => {
      const created = await createApiKey(em, input);
      const { secret: _shownOnce, ...after } = created;
      audit({ action: 'api_key.created', ...scopeOf(environment), target: { type: 'api_key', id: created.id }, before: null, after });
      return created;
    });
  }),

  list: operatorProcedure.input(ListApiKeysInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listApiKeys(ctx.em, input.environmentId);
  }),

  revoke: operatorProcedure.input(RevokeApiKeyInput).mutation(async ({ ctx, input }) => {
    const environment = await keyAccess(ctx, input.apiKeyId);
    return audited(ctx, async (em, audit) => {
      const before = await apiKeyBefore(em, input.apiKeyId);
      const after = await revokeApiKey(em, input.apiKeyId, ctx.services.now());
      audit({ action: 'api_key.revoked', ...scopeOf(environment), target: { type: 'api_key', id: after.id }, before, after });
      return after;
    });
  }),

  setRateLimits: operatorProcedure.input(SetRateLimitsInput).mutation(async ({ ctx, input }) => {
    const environment = await keyAccess(ctx, input.apiKeyId);
    return audited(ctx, async (em, audit) => {
      const before = await apiKeyBefore(em, input.apiKeyId);
      const after = await setApiKeyRateLimits(em, input.apiKeyId, input.limits);
      audit({ action: 'api_key.rate_limits_changed', ...scopeOf(environment), target: { type: 'api_key', id: after.id }, before, after });
      return after;
    });
  }),
});
