/**
 * Operator procedures: the internal API behind the operator CLI (and a future
 * dashboard). Not part of /v1. Over HTTP it sits behind the admin token
 * (checked in admin/http.ts); in-process callers such as the demo seed call
 * it directly.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';

export interface AdminContext {
  log: Logger;
  em: EntityManager;
  services: Services;
}

export const adminContext = (services: Services, log: Logger = services.log): AdminContext => ({ log, em: services.db.fork(), services });

export const adminT = initTRPC.context<AdminContext>().create();
export const adminProcedure = adminT.procedure;

export const notFound = (what: string, id: string) => new TRPCError({ code: 'NOT_FOUND', message: `${what} ${id} does not exist.` });
