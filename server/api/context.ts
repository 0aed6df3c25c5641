import type { Request, Response } from 'express';
import type {} from 'pino-http';
import type { Logger } from 'pino';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';

/** The tRPC context of a /v1 request; authenticated procedures add the caller's `principal`. */
export interface Context {
  req: Request;
  res: Response;
  log: Logger;
  /** A fresh unit of work for this request. */
  em: EntityManager;
  services: Services;
}

export function createContextFactory(services: Services) {
  return ({ req, res }: { req: Request; res: Response }): Context => ({
    req,
    res,
    log: req.log ?? services.log,
    em: services.db.fork(),
    services,
  });
}
