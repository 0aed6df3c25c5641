import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Context } from './context';
import type { RateLimitBucket } from './rate-limiter';

export type ProcedureMeta = {
  /** HTTP status of a successful answer (trpc-to-openapi can only say 200 by itself). */
  successStatus?: 200 | 201;
  /** Rate-limit bucket of the route; authenticated routes without one use `default`. */
  rateLimit?: RateLimitBucket;
  /** Contract error codes the route may answer with, for the OpenAPI document. */
  errors?: readonly string[];
};

export const t = initTRPC.context<Context>().meta<OpenApiMeta<ProcedureMeta>>().create();
