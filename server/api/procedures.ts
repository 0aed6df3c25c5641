/**
 * The procedure builders every /v1 route starts from. For authenticated
 * routes the checks run in the contract's order: authentication (401), then
 * the route's rate limit (429, counting every authenticated request), then
 * the body (400); input validation runs after these because `.input()` comes
 * later in the chain. Billing, routing and the gateway follow in the use case.
 */
import { ApiError } from '../contract/errors';
import { authenticate } from '../domain/authenticate';
import type { Created } from '../domain/registration/create-once';
import type { Context } from './context';
import { t } from './trpc';

export const publicProcedure = t.procedure;

const authenticated = t.middleware(async ({ ctx, next }) => {
  const principal = await authenticate(ctx.em, ctx.req.headers.authorization, ctx.services.now(), ctx.services.apiKeys);
  return next({ ctx: { principal } });
});

const rateLimited = authenticated.unstable_pipe(async ({ ctx, meta, next }) => {
  const bucket = meta?.rateLimit ?? 'default';
  const limit = ctx.principal.apiKey.rateLimits?.[bucket] ?? ctx.services.config.rateLimits[bucket];
  const decision = await ctx.services.rateLimiter.consume(bucket, ctx.principal.apiKey.id, limit);
  ctx.res.setHeader('X-RateLimit-Limit', String(decision.limit));
  ctx.res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
  ctx.res.setHeader('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) {
    ctx.res.setHeader('Retry-After', String(decision.retryAfter));
    throw new ApiError('rate_limit_exceeded');
  }
  return next();
});

/** A body that failed to parse is reported only now, after authentication and rate limiting. */
const parsedBody = rateLimited.unstable_pipe(({ ctx, next }) => {
  if (ctx.req.bodyError) throw ctx.req.bodyError;
  return next();
});

export const authedProcedure = t.procedure.use(parsedBody);

/** Answers a create with its resource, telling a client that repeats an externalId that nothing new was created. */
export function markReplay<T>(ctx: Context, created: Created<T>): T {
  if (created.replayed) ctx.res.setHeader('Idempotent-Replayed', 'true');
  return created.resource;
}
