/**
 * The procedure builders every /v1 route starts from. For authenticated
 * routes the checks run in the contract's order: authentication (401), then
 * the route's rate limit (429, counting every authenticated request), then
 * the body (400); input validation runs after these because `.input()` comes
 * later in the chain. Billing, routing and the gateway follow in the use case.
 */
import { ApiError } from '../contract/errors';
import { authenticate } from '../domain/authenticate';
import { limitBucketOf } from '../domain/rate-limits';
import type { Created } from '../domain/registration/create-once';
import type { Context } from './context';
import { t } from './trpc';

export const publicProcedure = t.procedure;

/**
 * One middleware, not three piped ones: each tRPC middleware layer copies the
 * context, and this runs on every authenticated request.
 */
const authenticatedRequest = t.middleware(async ({ ctx, meta, next }) => {
  const principal = await authenticate(ctx.em, ctx.req.headers.authorization, ctx.services.now(), ctx.services.apiKeys);

  const quota = meta?.rateLimit ?? 'default';
  const bucket = limitBucketOf(quota);
  const limit = principal.rateLimits?.[bucket] ?? ctx.services.config.rateLimits[bucket];
  const decision = await ctx.services.rateLimiter.consume(quota, principal.apiKeyId, limit);
  ctx.res.setHeader('X-RateLimit-Limit', String(decision.limit));
  ctx.res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  ctx.res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) {
    ctx.res.setHeader('Retry-After', String(decision.retryAfter));
    throw new ApiError('rate_limit_exceeded');
  }

  // A body that failed to parse is reported only now, after authentication and rate limiting.
  if (ctx.req.bodyError) throw ctx.req.bodyError;
  return next({ ctx: { principal } });
});

export const authedProcedure = t.procedure.use(authenticatedRequest);

/** Answers a create with its resource, telling a client that repeats an externalId that nothing new was created. */
export function markReplay<T>(ctx: Context, created: Created<T>): T {
  if (created.replayed) ctx.res.setHeader('Idempotent-Replayed', 'true');
  return created.resource;
}
