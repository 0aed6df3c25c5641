import { z } from 'zod';
import { ApiKey, Environment } from '../db/entities';
import { generateApiKey } from '../domain/api-keys';
import { RATE_LIMIT_BUCKETS } from '../http/rate-limiter';
import { adminProcedure, adminT as t, notFound } from './procedure';

const keyView = (key: ApiKey) => ({
  id: key.id,
  environmentId: key.environment.id,
  name: key.name ?? null,
  displayPrefix: key.displayPrefix,
  rateLimits: key.rateLimits ?? {},
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

const RateLimits = z.partialRecord(z.enum(RATE_LIMIT_BUCKETS), z.int().min(1).max(1_000_000).nullable());

export const apiKeysRouter = t.router({
  /** The secret is in this answer only; the service keeps its hash. */
  create: adminProcedure
    .input(z.object({ environmentId: z.string(), name: z.string().min(1).max(255).optional() }))
    .mutation(async ({ ctx, input }) => {
      const environment = await ctx.em.findOne(Environment, { id: input.environmentId });
      if (!environment) throw notFound('Environment', input.environmentId);
      const { secret, hash, displayPrefix } = generateApiKey(environment.kind);
      const key = ctx.em.create(ApiKey, { environment, name: input.name ?? null, keyHash: hash, displayPrefix });
      await ctx.em.flush();
      return { ...keyView(key), secret };
    }),

  list: adminProcedure.input(z.object({ environmentId: z.string() })).query(async ({ ctx, input }) =>
    (await ctx.em.find(ApiKey, { environment: input.environmentId }, { orderBy: { createdAt: 'asc' } })).map(keyView),
  ),

  /** Takes effect at once: authentication reads the key on every request, nothing is cached. */
  revoke: adminProcedure.input(z.object({ apiKeyId: z.string() })).mutation(async ({ ctx, input }) => {
    const key = await ctx.em.findOne(ApiKey, { id: input.apiKeyId });
    if (!key) throw notFound('API key', input.apiKeyId);
    key.revokedAt ??= ctx.services.now();
    await ctx.em.flush();
    return keyView(key);
  }),

  /** Per-key requests-per-minute; null goes back to the service default for that bucket. */
  setRateLimits: adminProcedure
    .input(z.object({ apiKeyId: z.string(), limits: RateLimits }))
    .mutation(async ({ ctx, input }) => {
      const key = await ctx.em.findOne(ApiKey, { id: input.apiKeyId });
      if (!key) throw notFound('API key', input.apiKeyId);
      const merged: Record<string, number> = { ...(key.rateLimits ?? {}) } as Record<string, number>;
      for (const [bucket, limit] of Object.entries(input.limits)) {
        if (limit == null) delete merged[bucket];
        else merged[bucket] = limit;
      }
      key.rateLimits = Object.keys(merged).length ? merged : null;
      await ctx.em.flush();
      return keyView(key);
    }),
});
