/**
 * Operator procedures: the internal API behind the operator CLI. Not part of
 * /v1. Over HTTP it sits behind the admin token (checked in admin/http.ts);
 * in-process callers such as the demo seed call it directly. The procedures
 * only validate input and delegate to use cases in domain/ (and webhooks/ for
 * outbound deliveries); a refused action comes back as an OperatorError.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import type { EntityManager } from '../db/orm';
import { OperatorError, type OperatorRefusal } from '../domain/operator-errors';
import type { Services } from '../services';
import { OPERATOR, type Actor } from './access';

export interface AdminContext {
  log: Logger;
  em: EntityManager;
  services: Services;
  /** Who calls: the operator (admin token, in-process callers) unless said otherwise. See access.ts. */
  actor: Actor;
}

export const adminContext = (services: Services, log: Logger = services.log, actor: Actor = OPERATOR): AdminContext => ({ log, em: services.db.fork(), services, actor });

export const adminT = initTRPC.context<AdminContext>().create();

const TRPC_CODE: Record<OperatorRefusal, TRPCError['code']> = {
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  invalid: 'BAD_REQUEST',
  unavailable: 'PRECONDITION_FAILED',
  forbidden: 'FORBIDDEN',
};

const refusals = adminT.middleware(async ({ ctx, type, next }) => {
  const result = await next();
  // Every node drops what it cached about keys and their tenancy before the operator hears the change is done.
  if (result.ok && type === 'mutation') await ctx.services.apiKeys.epoch.bump();
  if (!result.ok && result.error.cause instanceof OperatorError) {
    throw new TRPCError({ code: TRPC_CODE[result.error.cause.refusal], message: result.error.cause.message, cause: result.error.cause });
  }
  return result;
});

export const adminProcedure = adminT.procedure.use(refusals);
