import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { ErrorCode } from '../contract/errors';
import type { RateLimitQuota } from '../domain/rate-limits';
import type { Context } from './context';

export type ProcedureMeta = {
  /** HTTP status of a successful answer (trpc-to-openapi can only say 200 by itself). */
  successStatus?: 200 | 201;
  /** Rate-limit quota of the route; authenticated routes without one use `default`. */
  rateLimit?: RateLimitQuota;
  /** Contract error codes the route may answer with, from `routeErrors` (never listed by hand). */
  errors?: readonly ErrorCode[];
  /** A create that is idempotent by externalId: its answer may carry `Idempotent-Replayed: true`. */
  idempotentCreate?: true;
};

export const t = initTRPC.context<Context>().meta<OpenApiMeta<ProcedureMeta>>().create();
