/**
 * Operator procedures: the internal API behind the operator CLI and the
 * dashboard. Not part of /v1. Over HTTP it sits behind the admin token or a
 * dashboard session (checked in http/internal-api.ts); in-process callers such as
 * the demo seed call it directly. The procedures
 * only validate input and delegate to use cases in domain/ (and webhooks/ for
 * outbound deliveries); a refused action comes back as a domain Refusal,
 * which operator/operator-answers.ts translates.
 */
import { initTRPC } from '@trpc/server';
import type { Logger } from 'pino';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import type { SandboxKeyCaller } from '../domain/sandbox-keys';
import { OPERATOR, requireOperatorSecondFactor, type Actor } from './access';
import { asTrpcError } from './operator-answers';

/** What a call over HTTP knows of the browser: its session, and how to set or clear the session cookie. */
export interface WebCaller {
  /** The dashboard session the call came with (null: the admin token, or nobody logged in yet). */
  session: { id: string; userId: string; token: string } | null;
  /** The client's address (the log-in throttle counts by it). */
  address: string;
  userAgent: string | null;
  /** The trusted-device cookie the browser sent (domain/people/trusted-devices.ts), unverified. */
  deviceToken: string | null;
  setSessionCookie(token: string, maxAgeMs: number): void;
  setDeviceCookie(token: string, maxAgeMs: number): void;
  clearSessionCookie(): void;
}

export interface OperatorContext {
  log: Logger;
  /** The primary: every write, every access check, and every read a decision rests on. */
  em: EntityManager;
  /** Lists, search, the overview: reads that may lag behind, from a read replica when there are any (db/orm.ts forReads), else `em` itself. */
  reads: EntityManager;
  services: Services;
  /** Who calls: the operator (admin token, in-process callers) unless said otherwise. See access.ts. */
  actor: Actor;
  /** Null for in-process callers (the demo seed, tests' callers): they have no browser. */
  web: WebCaller | null;
  /**
   * A merchant's sandbox API key (`trigger` without the admin token), or null.
   * Its actor is a member of no organization, so any procedure but the few
   * that read this (the HTTP edge lets no other through) finds nothing.
   */
  sandboxKey: SandboxKeyCaller | null;
}

export const operatorContext = (
  services: Services,
  log: Logger = services.log,
  actor: Actor = OPERATOR,
  web: WebCaller | null = null,
  sandboxKey: SandboxKeyCaller | null = null,
): OperatorContext => {
  const em = services.db.fork();
  return { log, em, reads: services.db.forReads(em), services, actor, web, sandboxKey };
};

export const operatorT = initTRPC.context<OperatorContext>().create();

/**
 * Mutations that change nothing an API key's cache holds (people, their
 * sessions and roles; the sandbox's test payments, triggers and simulators;
 * refunds):
 * no epoch bump, so a merchant triggering events with a sandbox key does not
 * send every node's /v1 requests back to the database.
 */
const KEY_NEUTRAL = /^(auth|members|users|simulators|sandbox|refunds)\./;

const keyEpochAndRefusals = operatorT.middleware(async ({ ctx, type, path, next }) => {
  const result = await next();
  // Every node drops what it cached about keys and their tenancy before the operator hears the change is done.
  if (result.ok && type === 'mutation' && !KEY_NEUTRAL.test(path)) await ctx.services.apiKeys.epoch.bump();
  if (!result.ok) throw asTrpcError(result.error);
  return result;
});

/** Inside keyEpochAndRefusals, so its refusal is answered like a procedure's. */
const operatorSecondFactor = operatorT.middleware(({ ctx, path, next }) => {
  requireOperatorSecondFactor(ctx.actor, ctx.services.config.env === 'production', path);
  return next();
});

export const operatorProcedure = operatorT.procedure.use(keyEpochAndRefusals).use(operatorSecondFactor);
